// Types for scripts/build.mjs (plain JavaScript so `npm start` needs no TypeScript loader).
import type { Esbuild } from '../src/esbuild-builds.mjs';

export interface BuildOptions {
  /** Entry, relative to the project (default src/main.ts). */
  entry?: string;
  /** Output file, relative to the project (default dist/main.js). */
  outfile?: string;
  /** The module that builds: the installed esbuild unless given (a test's, whose builds it holds or fails). */
  esbuild?: Esbuild;
}
/** Bundle the entry into the output file; returns the absolute paths of the inputs read. */
export function build(options?: BuildOptions): Promise<string[]>;
/** True when the output exists and no input changed since it was built. */
export function isFresh(outfile?: string): boolean;
/** Build unless fresh; says which. */
export function buildIfStale(options?: BuildOptions): Promise<'fresh' | 'built'>;
/** One JSON line on stderr with the bot's log fields (level, time, message). */
export function logLine(
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
): void;
/** A failed build of `outfile` as one error line (esbuild's errors with their places). */
export function logBuildFailure(outfile: string, error: unknown): void;
/** Build (or not, when fresh), then one info line; a failure is one error line and exit 1. */
export function buildForCommand(
  options?: BuildOptions & { force?: boolean; announceFresh?: boolean },
): Promise<void>;
