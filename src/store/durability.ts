// Start-up on Redis: does this Redis keep its data across its own restart? With neither an
// append-only file nor snapshots, a Redis restart erases pending and approved requests, execution
// claims and the audit trail. With a live key the bot refuses to start on such a Redis; with test
// keys and the sandbox it warns. A managed Redis that forbids CONFIG GET gets a warning.
import type { Logger } from '../log.js';
import { StoreErrorCode } from './errors.js';

/** What CONFIG GET answered for `appendonly` and `save`, or that it could not be read. */
export type RedisPersistence = { appendonly: string; save: string } | { unreadable: string };

export type DurabilityVerdict = { level: 'ok' } | { level: 'warn' | 'refuse'; message: string };

export class StoreDurabilityError extends Error {
  override name = 'StoreDurabilityError';
  readonly code = StoreErrorCode.NotDurable;
}

const ERASED = 'pending and approved requests, execution claims and the audit trail';

/** The verdict on a Redis's persistence settings, for a bot holding a live key or not. Pure. */
export function redisDurability(settings: RedisPersistence, options: { live: boolean }): DurabilityVerdict {
  if ('unreadable' in settings) {
    return {
      level: 'warn',
      message: `Redis did not answer CONFIG GET (${settings.unreadable}; managed Redis services often forbid it, and proxies or Redis-compatible servers may not answer it), so the bot cannot check that Redis keeps its data across a restart. Make sure persistence is on (appendonly yes, or snapshots): without it a Redis restart erases ${ERASED}.`,
    };
  }
  const appendOnly = settings.appendonly.trim().toLowerCase() === 'yes';
  const snapshots = settings.save.trim() !== '';
  if (appendOnly || snapshots) return { level: 'ok' };
  const found = `Redis keeps nothing across a restart (appendonly no, save "")`;
  const fix =
    'turn on its append-only file: `appendonly yes` in redis.conf (or `CONFIG SET appendonly yes` then `CONFIG REWRITE`)';
  if (options.live) {
    return {
      level: 'refuse',
      message: `${found}: a Redis restart would erase ${ERASED}, with real money in flight. Not starting with a live key; ${fix}, then start again.`,
    };
  }
  return {
    level: 'warn',
    message: `${found}: a Redis restart would erase ${ERASED}. Acceptable for test keys and the sandbox; before going live, ${fix}.`,
  };
}

/**
 * Check the store at start-up: nothing to check unless it is Redis. Throws StoreDurabilityError
 * where the bot must not start; logs a warning where it only should not be relied on.
 */
export async function checkStoreDurability(
  store: { kind: string; persistence?: () => Promise<RedisPersistence> },
  options: { live: boolean; log: Pick<Logger, 'warn'> },
): Promise<void> {
  if (store.kind !== 'redis' || !store.persistence) return;
  const verdict = redisDurability(await store.persistence(), options);
  if (verdict.level === 'refuse') throw new StoreDurabilityError(verdict.message);
  if (verdict.level === 'warn') options.log.warn(verdict.message);
}
