// The durable store, built from STORE_URL: keyv (namespaced) with TTL, plus the atomic primitives
// keyv lacks (set-if-absent, compare-and-set, locks, append-only lists, sets) that approvals, the
// rate limiter, webhook dedupe and the outbox are built on.
//
// memory:// is keyv on a Map: one process. sqlite:// is keyv + @keyv/sqlite, held by one process at
// a time (a second one waits, then refuses; file-lock.ts); its claims are atomic in the database, and
// its expired values are deleted at open and every hour (sqlite.ts, sqlite-prune.ts).
// redis:// is keyv + @keyv/redis with native commands on the adapter's client, atomic across
// replicas (redis.ts). Keys starting with `list:`, `set:` or `lock:` are reserved for those.
// postgres:// is keyv + @keyv/postgres for values, native SQL and tables of its own for the rest,
// atomic across replicas and durable (postgres.ts, postgres-schema.ts).
import { resolve } from 'node:path';
import Keyv from 'keyv';
import { LocalStore } from './local.js';
import { KeyedMutex } from './mutex.js';
import { withJsonSpeed } from './sqlite-values.js';
import type { Store, StoreOptions } from './types.js';

export {
  HEALTH_TIMEOUT_MS,
  settledWithin,
  storeHealth,
  withinDeadline,
} from './deadline.js';
export {
  checkStoreDurability,
  type RedisPersistence,
  redisDurability,
  StoreDurabilityError,
} from './durability.js';
export {
  LOCK_DEFAULTS,
  LockTimeoutError,
  StoreErrorCode,
  StoreUnavailableError,
} from './errors.js';

export type {
  LockOptions,
  Store,
  StoreOptions,
  StoreWrite,
} from './types.js';

export async function createStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const prefix = options.prefix ?? 'cngn-desk';
  if (url === 'memory://' || url === 'memory') {
    const keyv = withJsonSpeed(new Keyv({ namespace: prefix, throwOnErrors: true }));
    return new LocalStore({ kind: 'memory', keyv, mutex: new KeyedMutex() });
  }
  // Each driver is loaded only when STORE_URL names it: the others' code never enters the process. A
  // driver that cannot load (SQLite's native binding built for another Node) then fails inside
  // start-up, where main.ts logs it as one JSON line, not while the entry module is still loading.
  if (url.startsWith('sqlite://')) {
    const { openSqlite } = await import('./sqlite.js');
    return openSqlite(resolve(url.slice('sqlite://'.length) || './data/cngn-desk.sqlite'), prefix, options);
  }
  if (url.startsWith('redis://') || url.startsWith('rediss://')) {
    const { RedisStore } = await import('./redis.js');
    return RedisStore.connect(url, prefix, options.log ? { log: options.log } : {});
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { PostgresStore } = await import('./postgres.js');
    return PostgresStore.connect(url, prefix, options.log ? { log: options.log } : {});
  }
  throw new Error(
    `STORE_URL must start with sqlite://, redis://, postgres:// or memory:// (got "${url.split(':')[0]}:")`,
  );
}

/** For tests: drop everything a store holds under its prefix. */
export async function clearStore(store: Store): Promise<void> {
  if (store.kind === 'redis') {
    const { RedisStore } = await import('./redis.js');
    if (store instanceof RedisStore) await store.clear();
  }
  if (store.kind === 'postgres') {
    const { PostgresStore } = await import('./postgres.js');
    if (store instanceof PostgresStore) await store.clear();
  }
}
