// In front of Bolt's HTTP receiver: a request to POST /slack/events is read (within a size limit),
// parsed the way Bolt will parse it and checked (nesting depth, the envelope's shape) before Bolt sees
// it; a body that fails and is correctly signed is refused with 400 (413 when too large) and a log
// line. Bolt still does its own verification over the same raw bytes, which it finds already read on
// the request, so an unsigned or forged request gets Bolt's 401 as before.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HTTPModuleFunctions, isValidSlackRequest } from '@slack/bolt';
import { nestsDeeperThan } from '../format/json-depth.js';
import type { Logger } from '../log.js';
import { checkSlackEnvelope } from './envelope.js';

/** Slack's own bodies are a few KB; a modal with 100 full blocks stays well under this. */
export const SLACK_BODY_LIMIT_BYTES = 1024 * 1024;
/** Slack's payloads nest about a dozen levels (rich text inside blocks inside a view). */
export const SLACK_BODY_MAX_DEPTH = 64;

export interface SlackRequestGuardOptions {
  path: string;
  signingSecret: string;
  logger: Logger;
  bodyLimitBytes?: number;
  maxDepth?: number;
}

type Screened = { ok: true } | { ok: false; status: number; reason: string };

/** Wraps the receiver's request listener; requests to other paths pass through untouched. */
export function guardSlackRequests(
  next: RequestListener,
  options: SlackRequestGuardOptions,
): RequestListener {
  const limit = options.bodyLimitBytes ?? SLACK_BODY_LIMIT_BYTES;
  const maxDepth = options.maxDepth ?? SLACK_BODY_MAX_DEPTH;
  return (req, res) => {
    const path = pathOf(req);
    if (path === undefined) {
      // Bolt would throw on it and answer 500 with an error line; it is the client's mistake.
      options.logger.warn('refused a request whose target is not a path', { status: 400 });
      return refuse(req, res, 400, 'the request target is not a valid path');
    }
    if (req.method !== 'POST' || path !== options.path) return next(req, res);
    void screen(req, options.signingSecret, limit, maxDepth)
      .then((screened) => {
        if (screened.ok) return next(req, res);
        options.logger.warn('refused a request to /slack/events', {
          status: screened.status,
          reason: screened.reason.slice(0, 300),
        });
        refuse(req, res, screened.status, screened.reason);
      })
      .catch((error: unknown) => {
        options.logger.error('a request to /slack/events failed before Bolt took it', {
          error: error instanceof Error ? error.message : String(error),
        });
        refuse(req, res, 500, 'internal error');
      });
  };
}

/**
 * The request's path, or undefined when it is not one: a target `new URL` rejects (`//`), or one whose
 * escapes do not decode (`%zz`), on which route matching would throw.
 */
export function pathOf(req: IncomingMessage): string | undefined {
  try {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    decodeURIComponent(path);
    return path;
  } catch {
    return undefined;
  }
}

async function screen(
  req: IncomingMessage,
  signingSecret: string,
  limit: number,
  maxDepth: number,
): Promise<Screened> {
  let buffered: Awaited<ReturnType<typeof HTTPModuleFunctions.bufferIncomingMessage>>;
  try {
    // Bolt's own reader: it sets req.rawBody, which Bolt then reuses (and verifies) as is.
    buffered = await HTTPModuleFunctions.bufferIncomingMessage(req, limit);
  } catch (error) {
    if (HTTPModuleFunctions.isRawBodyError(error) && error.statusCode === 413) {
      return { ok: false, status: 413, reason: `the body is larger than ${limit} bytes` };
    }
    return { ok: false, status: 400, reason: 'the body could not be read' };
  }
  const verdict = checkBody(buffered, maxDepth);
  // The signature only decides between our 400 and Bolt's 401, so it is computed here only for a body
  // that fails: a well-formed request has it computed once (by Bolt) before its ack, as in any Bolt app.
  // Unsigned or forged: Bolt refuses it (401), whatever its shape.
  if (verdict.ok || !signedBySlack(buffered, signingSecret)) return { ok: true };
  return verdict;
}

function checkBody(buffered: IncomingMessage & { rawBody: Buffer }, maxDepth: number): Screened {
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
  } catch {
    return { ok: false, status: 400, reason: 'the body (or its payload) is not valid JSON' };
  }
  if (nestsDeeperThan(body, maxDepth)) {
    return { ok: false, status: 400, reason: `the body nests deeper than ${maxDepth} levels` };
  }
  const envelope = checkSlackEnvelope(body);
  return envelope.ok ? envelope : { ok: false, status: 400, reason: envelope.reason };
}

function signedBySlack(req: IncomingMessage & { rawBody: Buffer }, signingSecret: string): boolean {
  const signature = req.headers['x-slack-signature'];
  const timestamp = Number(req.headers['x-slack-request-timestamp']);
  if (typeof signature !== 'string' || !Number.isFinite(timestamp)) return false;
  return isValidSlackRequest({
    signingSecret,
    body: req.rawBody.toString(),
    headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
  });
}

export function refuse(req: IncomingMessage, res: ServerResponse, status: number, reason: string): void {
  if (res.headersSent) return;
  if (!req.complete) res.setHeader('connection', 'close');
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`refused: ${reason}`);
}
