// Preloaded into a child running the bot: sqlite3 cannot be loaded, as when its native binding was
// built for another Node (a Node upgrade without `npm rebuild`). The parent test reads what the bot
// logged and how it exited.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'sqlite3') throw new Error('Could not locate the bindings file (node_sqlite3.node)');
  return next(specifier, context);
}`)}`,
);
