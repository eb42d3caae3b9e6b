// Preloaded into a child running the bot: sqlite3 fails to load, after the settings were read, with a
// message that quotes the configured Slack signing secret (as a driver that prints its environment
// would). The parent test reads what the bot logged.
import { register } from 'node:module';

const message = `sqlite3 could not load; its environment: SLACK_SIGNING_SECRET=${process.env.SLACK_SIGNING_SECRET}`;
register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'sqlite3') throw new Error(${JSON.stringify(message)});
  return next(specifier, context);
}`)}`,
);
