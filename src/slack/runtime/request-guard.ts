// In front of Bolt's HTTP receiver: a request to POST /slack/events is read (within a size limit), its
// signature verified (401 with no body when unsigned, forged or stale, as Bolt answers), then parsed the
// way Bolt will parse it and checked (nesting depth, the envelope's shape) before Bolt sees it; a signed
// body that fails is refused with 400 (413 when too large) and a log line. The receiver is built with
// its own verification off: it finds the body already read and verified here, once, with one HMAC and
// a constant-time compare (Bolt's compare costs two more HMACs and a random key before every ack).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { HTTPModuleFunctions } from '@slack/bolt';
import { nestsDeeperThan } from '../../format/json-depth.js';
import type { Logger } from '../../log.js';
import { checkSlackEnvelope } from './envelope.js';
import type { SlackTraffic } from './in-flight.js';

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
  /** Told of each request's arrival, and of its ack from Bolt's start until answered (answers wait). */
  traffic?: SlackTraffic;
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
    options.traffic?.arrived();
    void screen(req, options.signingSecret, limit, maxDepth)
      .then((screened) => {
        if (screened.ok) {
          const answered = options.traffic?.acking();
          if (answered) res.once('close', answered);
          return next(req, res);
        }
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
  // Slack's SSL check is not signed: it is passed on as `ssl_check=1` alone, as Bolt does, so nothing
  // else in it (a smuggled payload) reaches a listener.
  if (isSslCheck(buffered)) {
    buffered.rawBody = Buffer.from('ssl_check=1');
    return { ok: true };
  }
  // Unsigned or forged: refused whatever its shape, before it is parsed.
  const unsigned = signatureProblem(buffered, signingSecret);
  if (unsigned) return { ok: false, status: 401, reason: unsigned };
  return checkBody(buffered, maxDepth);
}

/** Bolt's rule: a form body whose `ssl_check` is `1` (exact content type, as Bolt compares it). */
function isSslCheck(req: IncomingMessage & { rawBody: Buffer }): boolean {
  if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return false;
  return parseQuery(req.rawBody.toString()).ssl_check === '1';
}

const STALE_AFTER_S = 5 * 60;

/**
 * Why the request is not Slack's (Bolt's rules: a v0 signature over `v0:timestamp:body` with the
 * signing secret, a timestamp no more than five minutes old), or undefined when it is. A timestamp
 * more than five minutes ahead is refused too: a request signed for later could be replayed then.
 */
function signatureProblem(
  req: IncomingMessage & { rawBody: Buffer },
  signingSecret: string,
): string | undefined {
  if (!signingSecret) return 'no signing secret is configured';
  const signature = req.headers['x-slack-signature'];
  const timestamp = Number(req.headers['x-slack-request-timestamp']);
  if (typeof signature !== 'string') return 'no x-slack-signature header';
  if (Number.isNaN(timestamp)) return 'x-slack-request-timestamp is not a number';
  const now = Math.floor(Date.now() / 1_000);
  if (timestamp < now - STALE_AFTER_S) return 'the request is stale';
  if (timestamp > now + STALE_AFTER_S) return 'the request is timestamped in the future';
  const [version, hash] = signature.split('=');
  if (version !== 'v0') return 'unknown signature version';
  const ours = Buffer.from(
    createHmac('sha256', signingSecret).update(`v0:${timestamp}:${req.rawBody.toString()}`).digest('hex'),
  );
  const theirs = Buffer.from(hash ?? '');
  // The hex text compared in constant time, as Bolt compares it (lower case, exactly 64 digits).
  if (theirs.length !== ours.length || !timingSafeEqual(theirs, ours)) return 'signature mismatch';
  return undefined;
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

export function refuse(req: IncomingMessage, res: ServerResponse, status: number, reason: string): void {
  if (res.headersSent) return;
  if (!req.complete) res.setHeader('connection', 'close');
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(`refused: ${reason}`);
}
