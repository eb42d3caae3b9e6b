// The HTTP leg: one pooled undici connection pool per service origin, with connect/headers/body
// timeouts, the service's headers, and a careful answer to "may this request have been received?"
import type { Pool } from 'undici';
import { CngnErrorCode } from './errors.js';

export interface Timeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 5_000, headersMs: 15_000, bodyMs: 15_000 };

/** Larger answers are refused rather than buffered (the biggest real one is a transaction page). */
const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

export interface RawResponse {
  httpStatus: number;
  text: string;
  /** From a Retry-After header (seconds or HTTP date), when one was sent. */
  retryAfterMs?: number;
}

/** The exchange failed before a complete answer arrived. */
export class TransportFailure extends Error {
  override name = 'TransportFailure';
  readonly code = CngnErrorCode.TransportFailure;
  constructor(
    message: string,
    /** False only when we know nothing reached the service (the connection was never made). */
    readonly mayHaveBeenSent: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

// Failures that happen before any byte of the request was written: while connecting, or undici
// refusing the request's own arguments (a header value holding a line break) before it writes any.
const NOT_SENT_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const FAILURE_TEXT = new Map<string, string>([
  ['UND_ERR_CONNECT_TIMEOUT', 'could not connect in time'],
  ['UND_ERR_HEADERS_TIMEOUT', 'no answer in time'],
  ['UND_ERR_BODY_TIMEOUT', 'the answer stopped arriving'],
  ['UND_ERR_SOCKET', 'the connection was closed before the answer arrived'],
  ['ECONNREFUSED', 'the connection was refused'],
  ['ECONNRESET', 'the connection was reset'],
  ['ENOTFOUND', 'the host name does not resolve'],
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function classifyFailure(error: unknown): TransportFailure {
  if (error instanceof TransportFailure) return error;
  const code = errorCode(error) ?? 'unknown';
  const text = FAILURE_TEXT.get(code) ?? `network error (${code})`;
  return new TransportFailure(text, !NOT_SENT_CODES.has(code), error);
}

function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(date - now, 0);
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeouts?: Partial<Timeouts>;
  connections?: number;
}

export class HttpTransport {
  private pool: Promise<Pool> | undefined;
  private closed = false;
  private readonly origin: string;
  private readonly timeouts: Timeouts;
  private readonly connections: number;
  private readonly basePath: string;
  private readonly authorization: string;

  constructor(options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.authorization = `Bearer ${options.apiKey}`;
    this.origin = url.origin;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.connections = options.connections ?? 8;
  }

  /**
   * The pool, made with the first exchange: undici is loaded then (docs/decisions/loaded-on-first-use.md).
   * A load whose chunk could not be read is tried again by the next exchange. Nothing has been sent
   * when this throws.
   */
  private async connected(): Promise<Pool> {
    if (this.closed) throw new TransportFailure('the HTTP client is closed', false);
    this.pool ??= import('undici').then(({ default: undici }) => {
      const pool = new undici.Pool(this.origin, {
        connections: this.connections,
        connect: { timeout: this.timeouts.connectMs },
        headersTimeout: this.timeouts.headersMs,
        bodyTimeout: this.timeouts.bodyMs,
      });
      if (this.closed) void pool.close();
      return pool;
    });
    const loading = this.pool;
    let pool: Pool;
    try {
      pool = await loading;
    } catch (error) {
      if (this.pool === loading) this.pool = undefined;
      throw new TransportFailure('could not load the HTTP client', false, error);
    }
    // Closed while undici loaded: nothing was sent.
    if (this.closed) throw new TransportFailure('the HTTP client is closed', false);
    return pool;
  }

  /**
   * One exchange, never retried here. `path` starts with /v1/api. Throws TransportFailure, or the
   * signal's reason once it fired (given to GETs only: a write, once sent, is never cut off).
   */
  async send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    jsonBody?: string,
    signal?: AbortSignal,
  ): Promise<RawResponse> {
    const cut = method === 'GET' ? signal : undefined;
    const pool = await this.connected();
    try {
      const response = await pool.request({
        method,
        path: this.basePath + path,
        headers: {
          authorization: this.authorization,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: jsonBody,
        ...(cut ? { signal: cut } : {}),
      });
      // Decoded chunk by chunk as they come, so a page of a megabyte is not decoded in one turn.
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      let text = '';
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESPONSE_BYTES) {
          response.body.destroy();
          throw new TransportFailure('the answer is too large', true);
        }
        text += decoder.decode(chunk as Buffer, { stream: true });
      }
      return {
        httpStatus: response.statusCode,
        text: text + decoder.decode(),
        retryAfterMs: parseRetryAfter(response.headers['retry-after'], Date.now()),
      };
    } catch (error) {
      if (cut?.aborted) throw cut.reason;
      throw classifyFailure(error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await (await this.pool?.catch(() => undefined))?.close();
  }
}
