// Types for esbuild-builds.mjs.
import type { BuildOptions, BuildResult } from 'esbuild';

/** The esbuild calls used: passed in, so a caller without esbuild (a release) never loads it here. */
export interface Esbuild {
  build<T extends BuildOptions>(options: T): Promise<BuildResult<T>>;
  stop(): Promise<void> | void;
}

/** How many builds are under way in this process. */
export function buildsUnderWay(): number;

/** `esbuild.build(options)`; once it has ended (built or failed) and no other build is under way, esbuild's service is stopped. */
export function buildThenStop<T extends BuildOptions>(esbuild: Esbuild, options: T): Promise<BuildResult<T>>;
