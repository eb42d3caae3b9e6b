// POST /webhooks/cngn: read at most the body limit, verify the signature over the raw bytes, parse,
// store durably, then answer. Only unsigned, oversized, non-JSON or event-less bodies are refused (4xx,
// nothing stored or posted): a signed event is never lost over a field of an unexpected type.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, silentLogger } from '../log.js';
import { withinDeadline } from '../store/index.js';
import { type WebhookPipeline, webhookEntryId } from './pipeline.js';
import { readWebhookEvent } from './read-event.js';
import { RepeatedWarnings } from './repeated-warnings.js';
import { type VerifiedBy, verifyWithEither } from './signature.js';

const WEBHOOK_PATH = '/webhooks/cngn';
const DEFAULT_BODY_LIMIT = 64 * 1024;
/** How long storing an event may take before the sender is told 503 (it waits 10 s at most). */
const DEFAULT_STORE_TIMEOUT_MS = 1_500;

export interface IntakeOptions {
  /** CNGN_WEBHOOK_SECRET; without it every delivery is refused. */
  secret: string | undefined;
  /** CNGN_WEBHOOK_SECRET_PREVIOUS: also accepted while set, and each delivery it verifies says so. */
  previousSecret?: string | undefined;
  pipeline: WebhookPipeline;
  /** Opens `data` that arrives sealed like response data (the client's private key). */
  openSealed?: ((sealed: string) => string) | undefined;
  bodyLimitBytes?: number;
  /** How long storing may take before the answer is 503 (default DEFAULT_STORE_TIMEOUT_MS). */
  storeTimeoutMs?: number;
  log?: Logger;
  /** Where unsigned and forged deliveries are written, summarised per minute when they repeat (from `log` if absent). */
  warnings?: RepeatedWarnings;
  /** Told of each delivery's result once it is answered (metrics); must be cheap and not throw. */
  onResult?: ((result: IntakeResult) => void) | undefined;
}

/**
 * What became of one delivery: stored (`accepted`), stored but posted only for a person to check as a
 * possible replay (`stale`), already stored (`duplicate`), or refused, and why (`aborted`: the sender
 * closed the connection before its body was whole, so there is nothing to verify). `store-unavailable`
 * (503) and `error` (500) are deliveries that could not be stored.
 */
export type IntakeResult =
  | 'accepted'
  | 'stale'
  | 'duplicate'
  | 'no-secret'
  | 'unsigned'
  | 'too-large'
  | 'aborted'
  | 'bad-signature'
  | 'not-json'
  | 'invalid'
  | 'store-unavailable'
  | 'error';

/** A route in the shape Bolt's `customRoutes` takes (raw Node request and response). */
export interface WebhookRoute {
  path: string;
  method: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export function webhookRoute(options: IntakeOptions): WebhookRoute {
  const log = options.log ?? silentLogger;
  const warnings = options.warnings ?? new RepeatedWarnings(log);
  return {
    path: WEBHOOK_PATH,
    method: 'POST',
    handler: (req, res) => {
      receive(req, res, options, warnings)
        .catch((error: unknown): IntakeResult => {
          // Storage failed: say so (5xx). The service will not retry; the reconciler is the safety net.
          log.error(`webhook could not be stored: ${messageOf(error)}`);
          answer(res, 500, { ok: false, error: 'could not store the event' });
          return 'error';
        })
        .then((result) => {
          try {
            options.onResult?.(result);
          } catch {
            // Metrics only: the delivery is answered already.
          }
        });
    },
  };
}

async function receive(
  req: IncomingMessage,
  res: ServerResponse,
  options: IntakeOptions,
  warnings: RepeatedWarnings,
): Promise<IntakeResult> {
  const log = options.log ?? silentLogger;
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const unverifiable = refuseUnverifiable(req, res, options, warnings);
  if (unverifiable) return unverifiable;
  const raw = await readBody(req, res, limit, warnings);
  if (!Buffer.isBuffer(raw)) return raw;
  const verifiedBy = verifyWithEither(raw, req.headers['x-cngn-signature'], {
    current: options.secret,
    previous: options.previousSecret,
  });
  if (!verifiedBy) {
    // Anyone can send these, as fast as they like: counted, not written one by one. A signed body
    // that is refused below is the service's own delivery lost, so each of those keeps its line.
    warnings.warn('webhook refused: bad signature');
    answer(res, 401, { ok: false, error: 'bad signature' });
    return 'bad-signature';
  }
  let body: unknown;
  const text = raw.toString('utf8');
  try {
    body = JSON.parse(text);
  } catch {
    log.warn('webhook refused: body is not JSON');
    answer(res, 400, { ok: false, error: 'body is not JSON' });
    return 'not-json';
  }
  const read = readWebhookEvent(body, options.openSealed, text);
  if (!read.ok) {
    log.warn(`webhook refused: ${read.error}`);
    answer(res, 400, { ok: false, error: read.error });
    return 'invalid';
  }
  const extras = { unreadable: read.unreadable, raw: body };
  // Made only for a line to write: the lines about a delivery carry the id it is kept under.
  const logAbout = () => log.child({ webhookId: webhookEntryId(read.event, extras) });
  if (read.unreadable.length > 0) {
    logAbout().warn(
      `webhook ${read.event.event} kept with fields it could not read: ${read.unreadable.join(', ')}`,
    );
  }
  let result: Awaited<ReturnType<WebhookPipeline['accept']>>;
  try {
    const stored = options.pipeline.accept(read.event, extras);
    result = await withinDeadline(stored, options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, 'store');
  } catch (error) {
    // The store is down or hung: say so in time. The service never retries; the reconciler reads
    // the transaction list and posts what was missed once the store is back.
    logAbout().error(
      `webhook ${read.event.event} could not be stored (${messageOf(error)}); the reconciler will find it in the transaction list later`,
    );
    answer(res, 503, { ok: false, error: 'could not store the event; try again later' });
    return 'store-unavailable';
  }
  answer(res, 200, { ok: true, ...(result === 'duplicate' ? { duplicate: true } : {}) });
  if (options.previousSecret) logVerifiedBy(logAbout(), read.event.event, verifiedBy);
  return result === 'stored' ? 'accepted' : result;
}

/** The body, or what became of a delivery refused while it was read: too large, or cut off by its sender. */
async function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  warnings: RepeatedWarnings,
): Promise<Buffer | 'too-large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  const raw = Number.isFinite(declared) && declared > limit ? 'too-large' : await readLimited(req, limit);
  if (raw === 'too-large') {
    // Refused before its signature is known (a body that nests too deep is large too): counted like
    // forged ones, so that a flood of them cannot bury the log.
    warnings.warn(`webhook refused: body larger than ${limit} bytes`);
    refuse(req, res, 413, 'body too large');
    return 'too-large';
  }
  if (raw === 'aborted') {
    // Anyone can start a request and drop it: counted like forged ones; nobody is left to answer.
    warnings.warn('webhook refused: connection closed before the body was whole');
    return 'aborted';
  }
  return raw;
}

/**
 * Refused before the body is read: no secret to verify it with, or no signature to verify. Anyone can
 * send these too: counted like forged ones, never a line each, and nothing of the body in them.
 */
function refuseUnverifiable(
  req: IncomingMessage,
  res: ServerResponse,
  options: IntakeOptions,
  warnings: RepeatedWarnings,
): 'no-secret' | 'unsigned' | undefined {
  if (!options.secret) {
    warnings.warn('webhook refused: no signing secret is configured');
    refuse(req, res, 401, 'webhooks are refused: no signing secret is configured');
    return 'no-secret';
  }
  if (!req.headers['x-cngn-signature']) {
    warnings.warn('webhook refused: missing X-cNGN-Signature');
    refuse(req, res, 401, 'missing X-cNGN-Signature');
    return 'unsigned';
  }
  return undefined;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * While a previous secret is set, each stored delivery says which secret verified it (`verifiedBy`:
 * `current` or `previous`), so the operator
 * sees when the service has switched and the previous one can be removed (docs/rotation.md).
 */
function logVerifiedBy(log: Logger, event: string, verifiedBy: VerifiedBy): void {
  // Not a field named `secret`: the logger writes fields named like secrets as [redacted].
  log.child({ verifiedBy }).info(`webhook ${event} verified with the ${verifiedBy} secret`);
}

/**
 * The body as bytes, 'too-large' as soon as it passes the limit (the rest is not read), or 'aborted' when
 * the sender closes the connection before the body is whole (Node's "aborted", ECONNRESET).
 */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: NodeJS.ErrnoException) => {
      cleanup();
      if (error.code === 'ECONNRESET') resolve('aborted');
      else reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** Answer and close the connection without reading the rest of the body. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, error: string): void {
  res.setHeader('connection', 'close');
  answer(res, status, { ok: false, error });
  req.pause();
}

/**
 * With its length given, the answer goes out as one piece: headers written without one make Node send
 * the body chunked (a chunk, its size and the closing chunk, gathered into one writev of several buffers).
 */
function answer(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
