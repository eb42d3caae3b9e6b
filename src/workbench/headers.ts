// Headers on every answer of the workbench's two servers (the page's and the Web API's): pages, JSON,
// files, errors and 404s alike. Anyone who reaches the page acts as any demo user, so no page on
// another origin may frame it (a click inside an invisible frame would approve a request); the page
// loads only its own script, stylesheet and API, so nothing injected could run or call out.

/** The page's policy: its own bundle and API, the inline icon, and no framing. */
const WORKBENCH_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const WORKBENCH_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': WORKBENCH_CSP,
  // For browsers that predate frame-ancestors.
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};
