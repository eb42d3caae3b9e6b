// The workbench page as three strings the server sends: `/` (html), `/workbench/app.js`,
// `/workbench/app.css`. Bundled from this folder with esbuild on first call and kept in
// memory, esbuild's service stopped once no build needs it (../../esbuild-builds.mjs); nothing is
// fetched from outside, so the page works offline.
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundlePage } from '../../esbuild-builds.mjs';
import { helpSummary } from '../../slack/commands/help.js';
import { SUBCOMMANDS } from '../../slack/commands/registry.js';
import { WORKBENCH_PREFIX } from '../protocol.js';

export interface PageAssets {
  html: string;
  js: string;
  css: string;
}

const PAGE_SCRIPT = `${WORKBENCH_PREFIX}/app.js`;
const PAGE_STYLE = `${WORKBENCH_PREFIX}/app.css`;
/** The tab's icon, inline (the bot's green ₦ square), so the browser asks for no /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%2314532d'/%3E%3Ctext x='8' y='12.5' font-size='12' text-anchor='middle' fill='white' font-family='sans-serif'%3E%E2%82%A6%3C/text%3E%3C/svg%3E";

let cached: Promise<PageAssets> | undefined;

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function page(): string {
  // The composer's hints are the bot's own help (from the command registry), so they never drift
  // from what `/cngn help` says.
  const hints = SUBCOMMANDS.map((entry) => ({ usage: entry.usage, summary: helpSummary(entry) }));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cngn-desk workbench</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${PAGE_STYLE}">
<script type="application/json" id="hints">${scriptJson(hints)}</script>
<script defer src="${PAGE_SCRIPT}"></script>
</head>
<body>
<div class="banner" role="banner"><strong>LOCAL WORKBENCH — not Slack</strong></div>
<noscript>The workbench needs JavaScript.</noscript>
</body>
</html>
`;
}

/** The page bundled now, each call afresh: what pageAssets() keeps (once per process, a second or less). */
export async function bundlePageAssets(): Promise<PageAssets> {
  const { js, css } = await bundlePage(esbuild, {
    entry: fileURLToPath(new URL('./app.ts', import.meta.url)),
    outdir: 'workbench',
    what: 'workbench page',
  });
  return { html: page(), js, css };
}

/** The page, bundled once per process; a failed bundle is tried again on the next call. */
export function pageAssets(): Promise<PageAssets> {
  cached ??= bundlePageAssets().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

/**
 * Starts bundling now, so the first page load does not wait for it. For the workbench's start-up; a failure is reported by the next pageAssets() call.
 */
export function warmPageAssets(): void {
  pageAssets().catch(() => undefined);
}
