// The store answers within a bound, or the caller is told it did not: a stopped or hung store must
// make a webhook, a click or a health check answer "unavailable" in time, never hang. A stop waits for
// its parts the same way: what did not finish in time goes on, and the stop goes on without it.
import { withoutUrlCredentials } from '../log.js';
import { StoreErrorCode } from './errors.js';

/** The store did not answer within the time given. */
class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
  readonly code = StoreErrorCode.Timeout;
}

/**
 * `work`, or StoreTimeoutError once `ms` have passed without its answer. The work itself is not
 * stopped: callers make sure a late answer changes nothing they have already reported.
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(`${what}: no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `work` settled within `ms` (it goes on either way; a rejection counts as settled). */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a health check waits for the store. */
export const HEALTH_TIMEOUT_MS = 1_000;

export type StoreHealth = { ok: true } | { ok: false; reason: string };

/** Whether the store answers a trivial request in time; the reason in words when it does not. */
export async function storeHealth(
  store: { kind: string; ping(): Promise<void> },
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<StoreHealth> {
  try {
    await withinDeadline(store.ping(), timeoutMs, 'store');
    return { ok: true };
  } catch (error) {
    const why =
      error instanceof StoreTimeoutError
        ? `did not answer within ${timeoutMs} ms`
        : `failed: ${withoutUrlCredentials(error instanceof Error ? error.message : String(error)).slice(0, 200)}`;
    return { ok: false, reason: `the store (${store.kind}) ${why}` };
  }
}
