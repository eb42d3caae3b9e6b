// `npm start`: build dist/main.js if any of its sources changed (a few hundred stat calls when none
// did), then run it in this same process, so what serves Slack is compiled JavaScript and no
// TypeScript loader or second process stays resident.
import { buildIfStale } from './build.mjs';

if ((await buildIfStale()) === 'built') process.stderr.write('built dist/main.js\n');
await import('../dist/main.js');
