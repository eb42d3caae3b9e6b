// The HTTP pipeline in the service's order: faults (tests) → rate limit → route → key → IP →
// permission → decrypt → validate → handle → seal. Every request is recorded for tests to inspect.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openRequestBody, sealResponseData } from '../cngn/wire.js';
import { handleControl } from './control.js';
import type { Faults } from './faults.js';
import type { RateLimiter } from './rate-limit.js';
import { matchRoute } from './routes.js';
import { SandboxError } from './rules.js';
import type { SandboxState } from './state.js';
import type { Timeline } from './timeline.js';

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_LOGGED_REQUESTS = 100_000;

export interface RequestLogEntry {
  method: string;
  path: string;
  /** HTTP status answered; 0 while held or when the response was dropped. */
  status: number;
  plainBody?: unknown;
  at: number;
}

export interface PipelineDeps {
  state: SandboxState;
  timeline: Timeline;
  faults: Faults;
  limiter: RateLimiter;
  apiKey: string;
  encryptionKey: string;
  curvePublic: Uint8Array;
  requests: RequestLogEntry[];
  now: () => number;
  log: (line: string) => void;
}

class BodyTooLarge extends Error {
  readonly code = 'sandbox_body_too_large' as const;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

const MISSING_ENCRYPTION = 'Missing encryption data, key, or IV';
const DECRYPTION_FAILED = 'Decryption failed';

/** Open an encrypted body; errors are the service's exact 400s. */
function openBody(raw: string, encryptionKey: string): unknown {
  let wire: unknown;
  try {
    wire = JSON.parse(raw);
  } catch {
    throw new SandboxError(400, MISSING_ENCRYPTION);
  }
  const sealed = wire as { content?: unknown; iv?: unknown } | null;
  if (
    !sealed ||
    typeof sealed !== 'object' ||
    typeof sealed.content !== 'string' ||
    typeof sealed.iv !== 'string'
  ) {
    throw new SandboxError(400, MISSING_ENCRYPTION);
  }
  try {
    return JSON.parse(openRequestBody({ content: sealed.content, iv: sealed.iv }, encryptionKey));
  } catch {
    throw new SandboxError(400, DECRYPTION_FAILED);
  }
}

function tryOpen(raw: string, encryptionKey: string): unknown {
  try {
    return raw ? openBody(raw, encryptionKey) : undefined;
  } catch {
    return undefined;
  }
}

export function createPipeline(deps: PipelineDeps) {
  const { log } = deps;

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    const entry = recordRequest(deps, method, url);
    const send = (status: number, body: unknown) => {
      entry.status = status;
      log(`${method} ${url.pathname} → ${status}`);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };

    const raw = await readBody(req).catch((error: unknown) => {
      if (error instanceof BodyTooLarge) return undefined;
      throw error;
    });
    if (raw === undefined) return send(413, { status: 413, message: 'Request entity too large' });

    if (url.pathname.startsWith('/sandbox/')) {
      const answer = await controlAnswer(deps, method, url, req, raw);
      return send(answer.status, answer.body);
    }

    if (method === 'POST' || method === 'PUT') entry.plainBody = tryOpen(raw, deps.encryptionKey);

    const faulted = await injectFaults(deps, { method, path: url.pathname, entry, req, res });
    if (faulted === 'answered') return;
    const { status, body } = answerOrRefuse(deps, method, url, req, raw);
    if (faulted === 'drop') {
      // Processed (state changed) but the client never hears back.
      entry.status = 0;
      log(`${method} ${url.pathname} → processed, response dropped (injected)`);
      req.socket.destroy();
      return;
    }
    send(status, body);
  };
}

/** The control routes (what tests and the workbench drive) answer loopback only. */
async function controlAnswer(
  deps: PipelineDeps,
  method: string,
  url: URL,
  req: IncomingMessage,
  raw: string,
): Promise<{ status: number; body: unknown }> {
  if (!isLoopback(req.socket.remoteAddress)) {
    return { status: 403, body: { error: 'Control routes answer loopback only' } };
  }
  return handleControl(method, url.pathname, raw, deps.timeline, deps.state);
}

/** Record the request for tests to inspect; a long-running demo must not grow the list without bound. */
function recordRequest(deps: PipelineDeps, method: string, url: URL): RequestLogEntry {
  const entry: RequestLogEntry = { method, path: url.pathname + url.search, status: 0, at: deps.now() };
  deps.requests.push(entry);
  // Tests never get near this.
  if (deps.requests.length > MAX_LOGGED_REQUESTS) deps.requests.splice(0, MAX_LOGGED_REQUESTS / 10);
  return entry;
}

/**
 * The faults a test injected for this request, in order: held until released, the connection reset,
 * an injected failure answered. 'answered' when one of these ended the request; 'drop' when it is to
 * be processed and its answer dropped.
 */
async function injectFaults(
  deps: PipelineDeps,
  request: {
    method: string;
    path: string;
    entry: RequestLogEntry;
    req: IncomingMessage;
    res: ServerResponse;
  },
): Promise<'answered' | 'drop' | undefined> {
  const { faults, log } = deps;
  const { method, path, entry, req, res } = request;
  const hold = faults.take(method, path, 'hold');
  if (hold?.kind === 'hold') {
    hold.onArrive();
    await hold.released;
  }
  if (faults.take(method, path, 'reset')) {
    entry.status = 0;
    log(`${method} ${path} → connection reset (injected)`);
    req.socket.destroy();
    return 'answered';
  }
  const fail = faults.take(method, path, 'fail');
  if (fail?.kind === 'fail') {
    entry.status = fail.status;
    log(`${method} ${path} → ${fail.status} (injected)`);
    res.writeHead(fail.status, { 'content-type': 'application/json; charset=utf-8', ...fail.headers });
    res.end(JSON.stringify({ status: fail.status, message: fail.message }));
    return 'answered';
  }
  return faults.take(method, path, 'drop') !== undefined ? 'drop' : undefined;
}

/** The service's answer, or the refusal it would give (an unexpected error is a 500). */
function answerOrRefuse(
  deps: PipelineDeps,
  method: string,
  url: URL,
  req: IncomingMessage,
  raw: string,
): { status: number; body: unknown } {
  try {
    return answer(deps, method, url, req, raw);
  } catch (error) {
    if (error instanceof SandboxError) {
      return { status: error.httpStatus, body: { status: error.bodyStatus, message: error.message } };
    }
    deps.log(`sandbox error on ${method} ${url.pathname}: ${error instanceof Error ? error.message : error}`);
    return { status: 500, body: { status: 500, message: 'Internal server error' } };
  }
}

function answer(
  deps: PipelineDeps,
  method: string,
  url: URL,
  req: IncomingMessage,
  raw: string,
): { status: number; body: unknown } {
  const { state, timeline } = deps;
  const authorization = req.headers.authorization;
  const token = authorization?.replace(/^Bearer\s+/i, '').trim() ?? '';
  if (!url.pathname.startsWith('/v1/api/')) throw new SandboxError(404, 'Route not found');
  if (!deps.limiter.allow(token || `ip:${req.socket.remoteAddress}`)) {
    throw new SandboxError(429, 'Too many requests. Please try again later.');
  }
  const matched = matchRoute(method, url.pathname);
  if (!matched) throw new SandboxError(404, 'Route not found');
  checkMerchant(deps, token);
  const { route, params } = matched;
  if (route.permission && !state.permissions[route.permission]) {
    throw new SandboxError(403, 'Permission denied', false);
  }
  const body = route.encrypted ? openBody(raw, deps.encryptionKey) : undefined;
  const result = route.handle({ state, timeline, params, query: url.searchParams, body });
  const data = sealResponseData(JSON.stringify(result.data), deps.curvePublic);
  return { status: 200, body: { status: 200, message: result.message, data } };
}

/** The key, the IP allow-list and the uploaded SSH key, checked in the service's order. */
function checkMerchant(deps: PipelineDeps, token: string): void {
  const { state } = deps;
  if (!token) throw new SandboxError(400, 'No token provided');
  if (!/^cngn_(test|live)/.test(token)) throw new SandboxError(400, 'Invalid token prefix');
  if (token !== deps.apiKey) throw new SandboxError(400, 'Merchant not found');
  if (!state.ipAllowed) throw new SandboxError(403, 'IP address not whitelisted');
  // Responses are sealed to the key uploaded for this environment; without one nothing can answer.
  if (!state.sshKeyUploaded) {
    throw new SandboxError(400, `No ${state.config.mode === 'live' ? 'Live' : 'Test'} SSH Key found`);
  }
}
