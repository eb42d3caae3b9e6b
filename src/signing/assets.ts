// The passkey pages as the strings the server sends: one small HTML shell for both pages, and the
// script and stylesheet under /passkeys/assets/, bundled from page/ with esbuild (with
// @simplewebauthn/browser) on first call and kept in memory, esbuild's service stopped once no build
// needs it (../esbuild-builds.mjs); a release, without esbuild, serves the bundle the production build
// made (dist/passkeys/). No inline script or style: the pages' policy allows only their own files.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundlePage } from '../esbuild-builds.mjs';
import { ASSETS } from './protocol.js';

export interface PageAssets {
  html: string;
  js: string;
  css: string;
}

const SCRIPT_PATH = `${ASSETS}/app.js`;
const STYLE_PATH = `${ASSETS}/app.css`;

/** The tab's icon, inline (the bot's green ₦ square), so the browser asks for no /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%2314532d'/%3E%3Ctext x='8' y='12.5' font-size='12' text-anchor='middle' fill='white' font-family='sans-serif'%3E%E2%82%A6%3C/text%3E%3C/svg%3E";

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cngn-desk passkey</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${STYLE_PATH}">
<script defer src="${SCRIPT_PATH}"></script>
</head>
<body>
<main id="page" aria-busy="true">
<noscript>This page needs JavaScript: your passkey is used through the browser.</noscript>
</main>
</body>
</html>
`;

let cached: Promise<PageAssets> | undefined;

/** Where the production build puts the pages' bundle (scripts/build.mjs), from src/ and dist/ alike. */
const PREBUILT = new URL('../../dist/passkeys/', import.meta.url);

/**
 * The pages as the production build bundled them: what a release serves, having neither esbuild nor
 * the pages' sources.
 */
export async function prebuiltAssets(dir: URL = PREBUILT): Promise<PageAssets> {
  const [js, css] = await Promise.all([
    readFile(new URL('app.js', dir), 'utf8'),
    readFile(new URL('app.css', dir), 'utf8'),
  ]);
  return { html: SHELL, js, css };
}

/** The pages bundled now, each call afresh: what pageAssets() keeps. */
export async function bundlePageAssets(): Promise<PageAssets> {
  // esbuild is loaded only when a page is first asked for; a release has none, and serves the build's.
  const esbuild = await import('esbuild').catch(() => undefined);
  if (!esbuild) return prebuiltAssets();
  const { js, css } = await bundlePage(esbuild, {
    entry: fileURLToPath(new URL('./page/app.ts', import.meta.url)),
    outdir: 'passkeys',
    what: 'passkey pages',
  });
  return { html: SHELL, js, css };
}

/** The pages, bundled once per process; a failed bundle is tried again on the next call. */
export function pageAssets(): Promise<PageAssets> {
  cached ??= bundlePageAssets().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
