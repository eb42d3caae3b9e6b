// esbuild's build() runs in one service process per process, which stays beside the bot until
// esbuild's stop(); stop() also ends every build still under way, which is then never answered. So
// the service is stopped by the last build under way in this process, whoever started it: the passkey
// pages, the workbench page, and the production build. Plain JavaScript (typed in esbuild-builds.d.mts)
// so that scripts/build.mjs, run by plain node, counts with this same file. A later build starts the
// service again.

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
