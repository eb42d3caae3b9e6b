// `npm start`: build dist/main.js if any of its sources changed (a few hundred stat calls when none
// did), then run it in this same process, so what serves Slack is compiled JavaScript and no
// TypeScript loader or second process stays resident.
// What the build says is JSON lines on stderr, like the bot's log; a failed build exits 1.
import { buildForCommand } from './build.mjs';

await buildForCommand({ announceFresh: false });
await import('../dist/main.js');
