// The durable store, built from STORE_URL: key-value with TTL plus the atomic primitives keyv lacks
// (set-if-absent, locks, append-only lists, sets) that approvals, the rate limiter, webhook dedupe
// and the outbox are built on.
//
// memory:// and sqlite:// are keyv (+ @keyv/sqlite), atomic within one process (one replica).
// redis:// is keyv + @keyv/redis with native commands on the adapter's client, atomic across
// replicas (redis.ts). Keys starting with `list:`, `set:` or `lock:` are reserved for those.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { KeyedMutex } from './mutex.js';
import { RedisStore } from './redis.js';

export type StoreKind = 'memory' | 'sqlite' | 'redis';

export { LockTimeoutError } from './redis.js';

export interface LockOptions {
  /** How long the lock is held at most if its holder dies (Redis). */
  ttlMs?: number;
  /** How long to wait for it before giving up with LockTimeoutError. */
  waitMs?: number;
}

export interface Store {
  readonly kind: StoreKind;
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Write only if the key holds nothing; true when this call wrote it. Atomic. */
  setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean>;
  /** Run fn while holding a named lock shared by every replica on this store. */
  withLock<T>(name: string, fn: () => Promise<T>, options?: LockOptions): Promise<T>;
  /** Append to an append-only list; returns its new length. */
  appendToList<T>(list: string, value: T): Promise<number>;
  /** Items start..end inclusive; negative indexes count from the end (like Redis LRANGE). */
  readList<T>(list: string, start: number, end: number): Promise<T[]>;
  listLength(list: string): Promise<number>;
  addToSet(set: string, member: string): Promise<void>;
  removeFromSet(set: string, member: string): Promise<void>;
  setMembers(set: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Prefix of every key; tests use their own so they can run beside each other and clean up. */
  prefix?: string;
}

export async function createStore(url: string, options: StoreOptions = {}): Promise<Store> {
  const prefix = options.prefix ?? 'cngn-desk';
  if (url === 'memory://' || url === 'memory') {
    return new KeyvStore('memory', new Keyv({ namespace: prefix }));
  }
  if (url.startsWith('sqlite://')) {
    const path = resolve(url.slice('sqlite://'.length) || './data/cngn-desk.sqlite');
    mkdirSync(dirname(path), { recursive: true });
    const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: 10_000 });
    return new KeyvStore('sqlite', new Keyv({ store: adapter, namespace: prefix }));
  }
  if (url.startsWith('redis://') || url.startsWith('rediss://')) {
    return RedisStore.connect(url, prefix);
  }
  throw new Error(`STORE_URL must start with sqlite://, redis:// or memory:// (got "${url.split(':')[0]}:")`);
}

/** memory:// and sqlite://: one process, so an in-process mutex makes the primitives atomic. */
class KeyvStore implements Store {
  private readonly mutex = new KeyedMutex();

  constructor(
    readonly kind: 'memory' | 'sqlite',
    private readonly keyv: Keyv,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.keyv.get<T>(key)) ?? undefined;
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  async delete(key: string): Promise<boolean> {
    return this.keyv.delete(key);
  }

  setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean> {
    return this.mutex.run(`key:${key}`, async () => {
      if ((await this.keyv.get(key)) !== undefined) return false;
      await this.keyv.set(key, value, ttlMs);
      return true;
    });
  }

  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.mutex.run(`lock:${name}`, fn);
  }

  appendToList<T>(list: string, value: T): Promise<number> {
    return this.mutex.run(`list:${list}`, async () => {
      const items = (await this.keyv.get<T[]>(`list:${list}`)) ?? [];
      items.push(value);
      await this.keyv.set(`list:${list}`, items);
      return items.length;
    });
  }

  async readList<T>(list: string, start: number, end: number): Promise<T[]> {
    const items = (await this.keyv.get<T[]>(`list:${list}`)) ?? [];
    const from = start < 0 ? Math.max(items.length + start, 0) : start;
    const to = end < 0 ? items.length + end : end;
    return items.slice(from, to + 1);
  }

  async listLength(list: string): Promise<number> {
    return ((await this.keyv.get<unknown[]>(`list:${list}`)) ?? []).length;
  }

  addToSet(set: string, member: string): Promise<void> {
    return this.updateSet(set, (members) => members.add(member));
  }

  removeFromSet(set: string, member: string): Promise<void> {
    return this.updateSet(set, (members) => members.delete(member));
  }

  async setMembers(set: string): Promise<string[]> {
    return (await this.keyv.get<string[]>(`set:${set}`)) ?? [];
  }

  private updateSet(set: string, change: (members: Set<string>) => void): Promise<void> {
    return this.mutex.run(`set:${set}`, async () => {
      const members = new Set((await this.keyv.get<string[]>(`set:${set}`)) ?? []);
      change(members);
      await this.keyv.set(`set:${set}`, [...members]);
    });
  }

  async close(): Promise<void> {
    await this.keyv.disconnect();
  }
}

/** For tests: drop everything a store holds under its prefix. */
export async function clearStore(store: Store): Promise<void> {
  if (store instanceof RedisStore) await store.clear();
}

export { LOCK_DEFAULTS } from './redis.js';
