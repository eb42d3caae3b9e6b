// What tests start in a child process (the bot, a store peer, a crashing replica, a preload) runs as
// the production build makes it: one JavaScript bundle per entry, started with plain `node`. Under
// `node --import tsx` every start resolves and transpiles some 430 modules through tsx's hooks, 10–18 s
// a start with every core busy; a bundle starts in well under a second. The bundles come from
// scripts/build.mjs itself (incremental: an unchanged entry is not rebuilt, across runs too), so a
// child runs the code `npm start` runs. src/main.ts goes to dist/main.js, as for `npm start`; a test's
// own entry goes under node_modules/.cache/cngn-desk-tests/, mirroring its path, with a linked source
// map, so the logger's stack traces still name the TypeScript file.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../../scripts/build.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = 'node_modules/.cache/cngn-desk-tests';

/** Where `entry` (a .ts path relative to the project) is bundled to, relative to the project. */
function outfileOf(entry: string): string {
  return entry === 'src/main.ts' ? 'dist/main.js' : `${CACHE}/${entry.replace(/\.ts$/, '.js')}`;
}

const built = new Map<string, Promise<string>>();
// One build at a time in a worker. Builds running at once in one process (these, the passkey and
// workbench pages') share esbuild's service, stopped when the last ends (src/esbuild-builds.mjs).
let queue: Promise<unknown> = Promise.resolve();

/**
 * The absolute path of `entry`'s bundle, built unless fresh, once per worker (a file built again by
 * another worker meanwhile is written aside and renamed, so a child never reads half of it).
 */
export function bundled(entry: string): Promise<string> {
  let path = built.get(entry);
  if (!path) {
    const outfile = outfileOf(entry);
    path = queue.then(async () => {
      await buildIfStale({ entry, outfile });
      return join(ROOT, outfile);
    });
    queue = path.catch(() => undefined);
    built.set(entry, path);
  }
  return path;
}

/** dist/main.js, what `npm start` runs, built unless fresh. */
export const bundledMain = (): Promise<string> => bundled('src/main.ts');
