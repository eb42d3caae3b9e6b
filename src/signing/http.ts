// The plumbing every passkey route shares: the workbench's headers on every answer (its policy loads
// only the page's own script, stylesheet and API, and forbids framing), no caching and no referrer
// (the page's address carries its one-time token), JSON bodies read with a size limit, and the
// signing host: a page opened on another name for the same server is sent to the signing URL's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WORKBENCH_HEADERS } from '../workbench/headers.js';
import type { Problem } from './protocol.js';

/** The largest body a page sends (a registration response is a few kilobytes). */
const MAX_BODY = 32_000;

/** Headers on every answer of the passkey routes, whatever it is. */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...WORKBENCH_HEADERS,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

type Headers = Readonly<Record<string, string>>;

/** A sentence the page shows as it is: the request was understood and refused (`headers` go with it). */
export class PageProblem extends Error {
  constructor(
    message: string,
    readonly status = 422,
    readonly headers: Headers = {},
  ) {
    super(message);
  }
}

export function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  type: string,
  headers: Headers = {},
): void {
  res.writeHead(status, { ...headers, ...PAGE_HEADERS, 'content-type': type });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}

export function sendProblem(
  res: ServerResponse,
  status: number,
  problem: string,
  headers: Headers = {},
): void {
  sendJson(res, status, { ok: false, problem } satisfies Problem, headers);
}

/** The body as JSON: at most MAX_BODY bytes, and JSON (content-type and text), or a PageProblem. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new PageProblem('The page sends JSON (content-type: application/json).', 415);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new PageProblem('The request is too large.', 413);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new PageProblem('The request is not JSON.', 400);
  }
}

/** Where the pages live: the signing URL's origin (scheme://host[:port]) and its host (with port). */
export interface SigningHost {
  origin: string;
  host: string;
}

export function signingHost(origin: string): SigningHost {
  return { origin, host: new URL(origin).host.toLowerCase() };
}

/** Did the request name the signing host (the Host header, as a reverse proxy passes it through)? */
export function onSigningHost(req: IncomingMessage, where: SigningHost): boolean {
  return (req.headers.host ?? '').toLowerCase() === where.host;
}

/**
 * A POST from a page: on the signing host, and from the signing origin when the browser says where it
 * comes from (a page elsewhere cannot call the API in an approver's name).
 */
export function fromSigningPage(req: IncomingMessage, where: SigningHost): string | undefined {
  if (!onSigningHost(req, where)) return `Open the page at ${where.origin}.`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== where.origin) return `Open the page at ${where.origin}.`;
  return undefined;
}

/** 303 to the same path and query on the signing origin. */
export function redirectToSigningHost(req: IncomingMessage, res: ServerResponse, where: SigningHost): void {
  // Path and query only, after the origin: whatever the request's target, it stays on the signing host.
  const { pathname, search } = new URL(req.url ?? '/', 'http://any.invalid');
  const target = `${where.origin}${pathname}${search}`;
  res.writeHead(303, { ...PAGE_HEADERS, location: target, 'content-type': 'text/plain; charset=utf-8' });
  res.end(`See ${target}`);
}
