// esbuild's build() runs in one service process per process, which stays beside the bot until
// esbuild's stop(); stop() also ends every build still under way, which is then never answered. So
// the service is stopped by the last build under way in this process, whoever started it: the passkey
// pages, the workbench page, and the production build. Plain JavaScript (typed in esbuild-builds.d.mts)
// so that scripts/build.mjs, run by plain node, counts with this same file. A later build starts the
// service again. Beside it, how our pages are bundled for the browser, the same for all of them.

// Where the count lives: one per process (each module graph that loads this file shares it, the
// production bundle's copy included).
const UNDER_WAY = Symbol.for('cngn-desk.esbuild.builds-under-way');

function count() {
  globalThis[UNDER_WAY] ??= { builds: 0 };
  return globalThis[UNDER_WAY];
}

/** How many builds are under way in this process. */
export function buildsUnderWay() {
  return count().builds;
}

/** `esbuild.build(options)`; once it has ended (built or failed) and no other build is under way, esbuild's service is stopped. */
export async function buildThenStop(esbuild, options) {
  const under = count();
  under.builds += 1;
  try {
    return await esbuild.build(options);
  } finally {
    under.builds -= 1;
    if (under.builds === 0) await stopService(esbuild);
  }
}

/** esbuild's stop(), which may throw or reject. */
async function stopService(esbuild) {
  try {
    await esbuild.stop();
  } catch {
    // Swallowed on purpose: the caller asked for the build's result or error, not the service's, and
    // a service that would not stop ends with the process.
  }
}

/**
 * How a page of ours is bundled for the browser (the passkey pages, the workbench): one script and
 * one stylesheet, minified, for the browsers the pages support, written nowhere.
 */
export const BROWSER_PAGE = {
  bundle: true,
  write: false,
  format: 'iife',
  platform: 'browser',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'silent',
};

/** The page at `entry` bundled for the browser (into `outdir`, a name only): its script and stylesheet as text. */
export async function bundlePage(esbuild, { entry, outdir, what }) {
  const result = await buildThenStop(esbuild, { ...BROWSER_PAGE, entryPoints: [entry], outdir });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'))?.text;
  if (js === undefined || css === undefined) throw new Error(`${what}: esbuild gave no app.js or app.css`);
  return { js, css };
}
