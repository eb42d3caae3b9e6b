// What every store shares without loading any driver: index.ts imports the SQLite, Redis and
// PostgreSQL stores only when STORE_URL names them, so their errors and lock defaults live here.

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

/** A lock's lease (how long a dead holder keeps it) and how long a caller waits for it. */
export const LOCK_DEFAULTS = { ttlMs: 15_000, waitMs: 10_000 };

/** The store's database could not be reached or stopped answering; nothing was read as absent. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** Another process holds the SQLite store's file. */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}
