// In front of Bolt's HTTP receiver: a request to POST /slack/events is read (within a size limit) and
// verified with Bolt's own reader and check (401 when unsigned, forged or stale), refused too when
// timestamped more than five minutes ahead (Bolt refuses only old ones) or when unsigned and more
// than Slack's SSL check (Bolt lets any form whose `ssl_check` is 1 through unsigned), then parsed
// the way Bolt will parse it and checked (nesting depth, the envelope's shape) before Bolt sees it; a
// signed body that fails is refused with 400 (413 when too large), but a modal's submission is answered
// so that the form stays open (refused-form.ts). Every refusal gets a log line with
// its reason. The receiver behind it takes the body already read here, verified (app.ts). While the
// bot starts, a request is answered 503 with a Retry-After, and Slack tries it again.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse } from 'node:querystring';
import { HTTPModuleFunctions } from '@slack/bolt';
import type { Logger } from '../../log.js';
import { checkSlackBody, SLACK_BODY_MAX_DEPTH } from './envelope.js';
import type { SlackTraffic } from './in-flight.js';
import { type RefusedFormAnswer, refusedFormAnswer } from './refused-form.js';

/** Slack's own bodies are a few KB; a modal with 100 full blocks stays well under this. */
export const SLACK_BODY_LIMIT_BYTES = 1024 * 1024;
/** Retry-After (seconds) on the 503s while the bot starts: its start-up check is a few calls to Slack. */
export const STARTING_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'retry-after': '5' });

export interface SlackRequestGuardOptions {
  path: string;
  signingSecret: string;
  logger: Logger;
  bodyLimitBytes?: number;
  maxDepth?: number;
  /** Told of each request's arrival, and of its ack from Bolt's start until answered (answers wait). */
  traffic?: SlackTraffic;
  /** False until the bot can take Slack's requests (the start-up check has passed): 503 meanwhile. */
  ready?: () => boolean;
  /** Serves the other requests it has a route for (true when it took one); the rest go to `next`. */
  routes?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
}

/** `slackId`: Slack's id of the request, once its body is read (see slackRequestId). */
/** `answer`: what a refused form gets instead of the status (refused-form.ts), so it stays open. */
type Screened = (
  | { ok: true }
  | { ok: false; status: number; reason: string; answer?: RefusedFormAnswer | undefined }
) & { slackId?: string };
type Buffered = IncomingMessage & { rawBody: Buffer };

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
    // Bolt's own rule for a Slack request (it compares the method in upper case): every request its
    // receiver takes as one goes through the checks below.
    if (req.method?.toUpperCase() !== 'POST' || path !== options.path) {
      if (options.routes?.(req, res, path)) return;
      return next(req, res);
    }
    // Slack tries a request again later; Bolt must not see one before its app exists.
    if (options.ready && !options.ready()) {
      return refuse(req, res, 503, 'the bot is starting', STARTING_HEADERS);
    }
    options.traffic?.arrived();
    void screen(req, options.signingSecret, limit, maxDepth)
      .then((screened) => {
        if (screened.ok) {
          const answered = options.traffic?.acking();
          if (answered) res.once('close', answered);
          return next(req, res);
        }
        answerRefused(req, res, screened, options.logger);
      })
      .catch((error: unknown) => {
        options.logger.error('a request to /slack/events failed before Bolt took it', { error });
        refuse(req, res, 500, 'internal error');
      });
  };
}

type Refused = Extract<Screened, { ok: false }>;

/** Logged with its reason; a refused form is answered so that it stays open, the rest get their status. */
function answerRefused(req: IncomingMessage, res: ServerResponse, screened: Refused, log: Logger): void {
  const logger = screened.slackId ? log.child({ slackRequestId: screened.slackId }) : log;
  const { answer } = screened;
  logger.warn('refused a request to /slack/events', {
    status: answer ? 200 : screened.status,
    reason: screened.reason.slice(0, 300),
  });
  if (answer) {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(answer));
  } else refuse(req, res, screened.status, screened.reason);
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
  let buffered: Buffered;
  let sent: Buffer;
  try {
    // Bolt's reader and check, as its receiver calls them: the reader sets req.rawBody, which the
    // check and then the receiver reuse as is. The check passes an unsigned SSL check on, cut down
    // to `ssl_check=1` (a new buffer): the bytes Slack sent are kept to tell what came with it.
    sent = (await HTTPModuleFunctions.bufferIncomingMessage(req, limit)).rawBody;
    buffered = await HTTPModuleFunctions.parseAndVerifyHTTPRequest(
      { enabled: true, signingSecret, bodyLimit: limit },
      req,
    );
  } catch (error) {
    if (HTTPModuleFunctions.isRawBodyError(error)) {
      if (error.statusCode === 413) {
        return { ok: false, status: 413, reason: `the body is larger than ${limit} bytes` };
      }
      return { ok: false, status: 400, reason: 'the body could not be read' };
    }
    // Unsigned or forged: refused whatever its shape, before it is parsed.
    return { ok: false, status: 401, reason: error instanceof Error ? error.message : String(error) };
  }
  if (buffered.rawBody !== sent) {
    // Bolt's check skipped the signature (it cut the body down): only Slack's own SSL check may come
    // unsigned. Told by the new buffer, so signed forms are not parsed once more; the guard's test of
    // a command smuggled in an SSL check fails if a Bolt upgrade stops cutting the body.
    if (isSlackSslCheck(sent)) return { ok: true };
    return { ok: false, status: 401, reason: 'an unsigned SSL check carries more than Slack sends' };
  }
  if (timestampedAhead(buffered)) {
    return { ok: false, status: 401, reason: 'the request is timestamped in the future' };
  }
  return checkBody(buffered, maxDepth);
}

/** What Slack's SSL check sends: `ssl_check=1&token=…` (the token is optional here). */
const SSL_CHECK_FIELDS = new Set(['ssl_check', 'token']);

/**
 * The body of an unsigned request Bolt's check let through (a form whose `ssl_check` parses to `1`,
 * by `node:querystring` as Bolt parses it) is Slack's SSL check: no field but `ssl_check` and
 * `token`, each once. Anything else would be passed on unsigned, and is refused instead. Every pair
 * is read here (`maxKeys: 0`): by default only the first 1000 are, empty ones counted, and a field
 * after them would go unseen.
 */
function isSlackSslCheck(sent: Buffer): boolean {
  const fields = parse(sent.toString(), '&', '=', { maxKeys: 0 });
  return Object.entries(fields).every(
    ([name, value]) => SSL_CHECK_FIELDS.has(name) && typeof value === 'string',
  );
}

const SKEW_S = 5 * 60;

/** A request signed for more than five minutes ahead could be replayed until then: refused too. */
function timestampedAhead(req: IncomingMessage): boolean {
  const timestamp = Number(req.headers['x-slack-request-timestamp']);
  return timestamp > Math.floor(Date.now() / 1_000) + SKEW_S;
}

function checkBody(buffered: Buffered, maxDepth: number): Screened {
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
  } catch {
    return { ok: false, status: 400, reason: 'the body (or its payload) is not valid JSON' };
  }
  const checked = checkSlackBody(body, maxDepth);
  return checked.ok
    ? checked
    : {
        ok: false,
        status: 400,
        reason: checked.reason,
        slackId: slackRequestId(body),
        answer: refusedFormAnswer(body),
      };
}

/**
 * Slack's own id of a request, carried by the log lines about it: an event's `event_id`, or the
 * `trigger_id` of a command or an interaction (options requests have none).
 */
export function slackRequestId(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { event_id: eventId, trigger_id: triggerId } = body as Record<string, unknown>;
  const id = typeof eventId === 'string' ? eventId : typeof triggerId === 'string' ? triggerId : undefined;
  return id?.slice(0, 100);
}

export function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  reason: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) return;
  if (!req.complete) res.setHeader('connection', 'close');
  res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
  res.end(`refused: ${reason}`);
}
