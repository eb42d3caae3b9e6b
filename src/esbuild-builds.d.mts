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

/** How a page of ours is bundled for the browser (the passkey pages, the workbench). */
export const BROWSER_PAGE: {
  bundle: true;
  write: false;
  format: 'iife';
  platform: 'browser';
  target: string[];
  minify: true;
  legalComments: 'none';
  charset: 'utf8';
  logLevel: 'silent';
};

/** The page at `entry` bundled for the browser (into `outdir`, a name only): its script and stylesheet as text. */
export function bundlePage(
  esbuild: Esbuild,
  page: { entry: string; outdir: string; what: string },
): Promise<{ js: string; css: string }>;
