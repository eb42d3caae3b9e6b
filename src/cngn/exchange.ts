// One call to the service, budget included: take a slot, send, read the envelope, open the data.
// GETs are retried (each attempt takes its own slot); POST/PUT never are, and when their outcome is
// unknown they say so (CngnTransportError.mayHaveBeenSent) so the caller reconciles instead of resending.
import { setTimeout as delay, setImmediate } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { untilAborted } from './abort.js';
import type { Priority } from './api.js';
import { type CallEffect, CngnError, CngnTransportError, RateBudgetError } from './errors.js';
import { type HttpTransport, type RawResponse, TransportFailure } from './http.js';
import type { SharedRateLimiter } from './limiter.js';
import { readEnvelope } from './response.js';
import { sealRequestBody } from './wire.js';

export interface RetryPolicy {
  /** Attempts of a GET in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  /** A Retry-After longer than this is not waited for inside a call: the error surfaces instead. */
  maxDelayMs: number;
}

/** An answer this long (a page of the list, not a balance) is read in a turn of its own. */
const LARGE_ANSWER_CHARS = 64 * 1024;

const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxDelayMs: 5_000 };

/**
 * How an exchange went wrong: no complete answer (`network`), HTTP 429 (`rate-limited`), HTTP 5xx
 * (`server-error`), or an answer refusing the request (`refused`: HTTP 4xx, or a failure status in a
 * 2xx envelope).
 */
export type ServiceCallError = 'network' | 'rate-limited' | 'server-error' | 'refused';

/**
 * Told of every HTTP exchange with the service (metrics). `endpoint` is the route template
 * (`GET /v1/api/transactions/{ref}`), never a reference or amount. Called inline: it must be cheap
 * and must not throw.
 */
export interface ServiceCallObserver {
  exchanged(endpoint: string, seconds: number): void;
  failed(endpoint: string, error: ServiceCallError): void;
}

export interface ExchangeOptions {
  transport: HttpTransport;
  limiter: SharedRateLimiter;
  encryptionKey: string;
  open: (data: unknown, endpoint: string, effect: CallEffect) => Promise<unknown>;
  retry?: Partial<RetryPolicy>;
  logger?: Partial<Pick<Logger, 'debug' | 'warn'>>;
  sleep?: (ms: number) => Promise<void>;
  observer?: ServiceCallObserver | undefined;
}

export class Exchange {
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ExchangeOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? ((ms) => delay(ms).then(() => undefined));
  }

  /**
   * A read: retried on 429, 5xx and network failures; returns the opened data (or undefined).
   * `signal` ends it at once, waiting or in flight, with its reason; no attempt starts after it fired.
   */
  async get(path: string, endpoint: string, priority: Priority, signal?: AbortSignal): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.retry.attempts;
      const raw = await this.readAttempt(path, endpoint, priority, { attempt, last }, signal);
      if (raw === undefined) continue;
      if (!(await this.readAgain(raw, endpoint, { attempt, last }, signal))) {
        return this.settle(raw, endpoint, 'none');
      }
    }
  }

  /**
   * One attempt at a read; undefined when it failed in transport and the pause before the next attempt
   * is over. The last attempt's failure, an abort or any other error throws.
   */
  private async readAttempt(
    path: string,
    endpoint: string,
    priority: Priority,
    { attempt, last }: { attempt: number; last: boolean },
    signal: AbortSignal | undefined,
  ): Promise<RawResponse | undefined> {
    try {
      return await this.attempt('GET', path, endpoint, priority, undefined, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!(error instanceof TransportFailure)) throw error;
      if (last) throw this.transportError(endpoint, error);
      await untilAborted(this.pause(endpoint, attempt, undefined, error.message), signal);
      return undefined;
    }
  }

  /** Whether a read's answer calls for another attempt (429, or a 5xx worth waiting for), once waited. */
  private async readAgain(
    raw: RawResponse,
    endpoint: string,
    { attempt, last }: { attempt: number; last: boolean },
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (raw.httpStatus === 429) {
      // The key is now blocked for everyone: the next attempt's slot waits for the block (money)
      // or is refused at once with RateBudgetError (interactive, background).
      await this.options.limiter.reportRateLimited(raw.retryAfterMs);
      return !last;
    }
    if (raw.httpStatus < 500 || last) return false;
    const wait = raw.retryAfterMs;
    if (wait !== undefined && wait > this.retry.maxDelayMs) return false;
    await untilAborted(this.pause(endpoint, attempt, wait, `HTTP ${raw.httpStatus}`), signal);
    return true;
  }

  /**
   * A write, sent exactly once. Nothing reached the service → CngnTransportError(false); it may
   * have (timeout, reset after writing, 5xx) → CngnTransportError(true). A CngnResponseError after
   * a write means the service answered success but the data could not be read: it was accepted.
   */
  async write(
    method: 'POST' | 'PUT',
    path: string,
    endpoint: string,
    json: string,
    priority: Priority,
    effect: CallEffect,
  ): Promise<unknown> {
    const body = JSON.stringify(sealRequestBody(json, this.options.encryptionKey));
    let raw: RawResponse;
    try {
      raw = await this.attempt(method, path, endpoint, priority, body);
    } catch (error) {
      if (error instanceof TransportFailure) throw this.transportError(endpoint, error);
      throw error;
    }
    if (raw.httpStatus === 429) await this.options.limiter.reportRateLimited(raw.retryAfterMs);
    if (raw.httpStatus >= 500) {
      const envelope = readEnvelope(raw);
      const said = envelope.ok ? '' : `: ${envelope.message}`;
      throw new CngnTransportError(
        `${endpoint}: the service failed (HTTP ${raw.httpStatus}${said}); the outcome is unknown`,
        endpoint,
        true,
      );
    }
    return this.settle(raw, endpoint, effect);
  }

  private async attempt(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    endpoint: string,
    priority: Priority,
    body?: string,
    signal?: AbortSignal,
  ): Promise<RawResponse> {
    let slot: Awaited<ReturnType<SharedRateLimiter['acquire']>>;
    try {
      slot = await this.options.limiter.acquire(priority, signal);
    } catch (error) {
      if (error instanceof RateBudgetError || signal?.aborted) throw error;
      // The budget lives in the store: when it cannot be read, the request was never sent.
      const why = error instanceof Error ? error.message : String(error);
      throw new TransportFailure(
        `the request budget could not be read from the store (${why})`,
        false,
        error,
      );
    }
    const began = performance.now();
    try {
      // The slot was taken: a signal that fired meanwhile stops the read before it is sent.
      signal?.throwIfAborted();
      const raw = await this.options.transport.send(method, path, body, signal);
      this.observe(endpoint, began, statusError(raw.httpStatus));
      this.options.logger?.debug?.('cngn call', { endpoint, httpStatus: raw.httpStatus, priority });
      return raw;
    } catch (error) {
      if (error instanceof TransportFailure) this.observe(endpoint, began, 'network');
      throw error;
    } finally {
      // A failed release must not hide the answer (a money POST may have gone through): the slot
      // then counts as in flight until the limiter gives up on it, which only costs budget.
      await slot.release().catch((error: unknown) => {
        this.options.logger?.warn?.('rate slot not released', { endpoint, error: String(error) });
      });
    }
  }

  /** Tell the observer; whatever it does, the answer (a money POST's, say) is never lost to it. */
  private observe(endpoint: string, began: number | undefined, error: ServiceCallError | undefined): void {
    const observer = this.options.observer;
    if (!observer) return;
    try {
      if (began !== undefined) observer.exchanged(endpoint, (performance.now() - began) / 1000);
      if (error) observer.failed(endpoint, error);
    } catch {
      // Metrics only: nothing to do.
    }
  }

  private async settle(raw: RawResponse, endpoint: string, effect: CallEffect): Promise<unknown> {
    // A large answer (a page of the list) is read in a turn of its own, not the one its last bytes came in.
    if (raw.text.length >= LARGE_ANSWER_CHARS) await setImmediate();
    const envelope = readEnvelope(raw);
    if (!envelope.ok) {
      // A refusal inside a 2xx answer; other statuses were counted when they arrived.
      if (raw.httpStatus >= 200 && raw.httpStatus < 300) this.observe(endpoint, undefined, 'refused');
      throw new CngnError(envelope.message, envelope.httpStatus, endpoint);
    }
    return this.options.open(envelope.data, endpoint, effect);
  }

  private transportError(endpoint: string, failure: TransportFailure): CngnTransportError {
    const outcome = failure.mayHaveBeenSent ? 'the outcome is unknown' : 'nothing was sent';
    return new CngnTransportError(
      `${endpoint}: ${failure.message}; ${outcome}`,
      endpoint,
      failure.mayHaveBeenSent,
      failure.cause,
    );
  }

  private async pause(endpoint: string, attempt: number, retryAfterMs: number | undefined, why: string) {
    const backoff = this.retry.baseDelayMs * 2 ** (attempt - 1);
    const wait = Math.min(retryAfterMs ?? backoff + Math.random() * backoff, this.retry.maxDelayMs);
    this.options.logger?.warn?.('cngn read retried', { endpoint, attempt, why, waitMs: Math.round(wait) });
    await this.sleep(wait);
  }
}

/** What an HTTP status says went wrong; undefined for a 2xx (its envelope may still refuse). */
function statusError(status: number): ServiceCallError | undefined {
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'server-error';
  return status >= 300 ? 'refused' : undefined;
}
