// esbuild's build() runs in one service process per process, which stays beside the bot until
// esbuild's stop(); stop() also ends every build still under way, which is then never answered. So
// the service is stopped by the last build under way in this process, whoever started it: the passkey
// pages, the workbench page, and the production build (scripts/build.mjs keeps the same count under
// the same key, as it cannot import this file). A later build starts the service again.
import type { BuildOptions, BuildResult } from 'esbuild';

/** The esbuild calls used: passed in, so a caller without esbuild (a release) never loads it here. */
export interface Esbuild {
  build<T extends BuildOptions>(options: T): Promise<BuildResult<T>>;
  stop(): Promise<void> | void;
}

/** Where the count lives: one per process (each module graph that loads this file shares it). */
const UNDER_WAY = Symbol.for('cngn-desk.esbuild.builds-under-way');

interface Count {
  builds: number;
}

function count(): Count {
  const holder = globalThis as { [UNDER_WAY]?: Count };
  holder[UNDER_WAY] ??= { builds: 0 };
  return holder[UNDER_WAY];
}

/** `esbuild.build(options)`; once it has ended (built or failed) and no other build is under way, esbuild's service is stopped. */
export async function buildThenStop<T extends BuildOptions>(
  esbuild: Esbuild,
  options: T,
): Promise<BuildResult<T>> {
  const under = count();
  under.builds += 1;
  try {
    return await esbuild.build(options);
  } finally {
    under.builds -= 1;
    if (under.builds === 0) await esbuild.stop();
  }
}
