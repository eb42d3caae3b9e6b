// Types for scripts/build.mjs (plain JavaScript so `npm start` needs no TypeScript loader).
export interface BuildOptions {
  /** Entry, relative to the project (default src/main.ts). */
  entry?: string;
  /** Output file, relative to the project (default dist/main.js). */
  outfile?: string;
}
/** Bundle the entry into the output file; returns the absolute paths of the inputs read. */
export function build(options?: BuildOptions): Promise<string[]>;
/** True when the output exists and no input changed since it was built. */
export function isFresh(outfile?: string): boolean;
/** Build unless fresh; says which. */
export function buildIfStale(options?: BuildOptions): Promise<'fresh' | 'built'>;
