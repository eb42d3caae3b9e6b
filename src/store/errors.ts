// What every store shares without loading any driver: index.ts imports the SQLite, Redis and
// PostgreSQL stores only when STORE_URL names them, so their errors and lock defaults live here.

/** The stable codes of the store's errors: a caller switches on `error.code`, never on a class name. */
export const StoreErrorCode = {
  LockTimeout: 'store_lock_timeout',
  Unavailable: 'store_unavailable',
  Locked: 'store_locked',
  NotDurable: 'store_not_durable',
  Timeout: 'store_timeout',
  SchemaTooNew: 'store_schema_too_new',
} as const;
export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
  readonly code = StoreErrorCode.LockTimeout;
}

/** A lock's lease (how long a dead holder keeps it) and how long a caller waits for it. */
export const LOCK_DEFAULTS = { ttlMs: 15_000, waitMs: 10_000 };

/** The store's database could not be reached or stopped answering; nothing was read as absent. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly code = StoreErrorCode.Unavailable;
}

/** Another process holds the SQLite store's file. */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
  readonly code = StoreErrorCode.Locked;
}
