// The store's interface and the options it is built with; the factory is index.ts, the adapters
// implement this.
import type { Logger } from '../log.js';
import type { RedisPersistence } from './durability.js';
import type { PruneOptions } from './sqlite-prune.js';

type StoreKind = 'memory' | 'sqlite' | 'redis' | 'postgres';

export interface LockOptions {
  /** How long the lock is held at most if its holder dies (Redis, PostgreSQL); a live holder renews it. */
  ttlMs?: number;
  /**
   * How long to wait for it before giving up with LockTimeoutError, on every store. Unset: Redis and
   * PostgreSQL wait LOCK_DEFAULTS.waitMs; memory and SQLite (one process) until the holder lets go.
   */
  waitMs?: number;
}

/** One write of a claimAndWrite, applied only when its claim is won. */
export type StoreWrite =
  | { kind: 'set'; key: string; value: unknown; ttlMs?: number }
  | { kind: 'setIfAbsent'; key: string; value: unknown; ttlMs?: number }
  | { kind: 'addToSet'; set: string; member: string };

export interface StoreClaim {
  key: string;
  value: unknown;
  ttlMs?: number;
}

export interface Store {
  readonly kind: StoreKind;
  get<T>(key: string): Promise<T | undefined>;
  /** The values of several keys in one request, in the order asked (undefined where none). */
  getMany<T>(keys: string[]): Promise<Array<T | undefined>>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  /** True when this call removed the key's value: of callers deleting one key at once, exactly one. */
  delete(key: string): Promise<boolean>;
  /** Write only if the key holds nothing; true when this call wrote it. Atomic. */
  setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean>;
  /**
   * setIfAbsent(claim) and, only when it wins, every write of `writes` with it, as one atomic step:
   * nothing of it is seen, or survives a crash, without the rest; durable once it resolves (on SQLite
   * one synced commit for all of it). True when the claim was won. Each key (or set) at most once.
   */
  claimAndWrite(claim: StoreClaim, writes: StoreWrite[]): Promise<boolean>;
  /**
   * Write `next` (no expiry) only if the key still holds a value equal to `expected` (undefined: holds
   * nothing); true when this call wrote it. Atomic against setIfAbsent, claimAndWrite, compareAndSet and
   * compareAndDelete of the key, on every replica.
   */
  compareAndSet<T>(key: string, expected: T | undefined, next: T): Promise<boolean>;
  /**
   * Delete the key only if it still holds a live value equal to `expected` (a claim's owner); true when
   * this call deleted it. Atomic against setIfAbsent, compareAndSet and compareAndDelete of the key, on
   * every replica (on memory://, a plain set or delete of it is not ordered with it: claim keys are
   * written by setIfAbsent only): a holder whose lease lapsed never removes the claim another one took since.
   */
  compareAndDelete<T>(key: string, expected: T): Promise<boolean>;
  /** Run fn while holding a named lock shared by every replica on this store. */
  withLock<T>(name: string, fn: () => Promise<T>, options?: LockOptions): Promise<T>;
  /** Append to an append-only list; returns its new length. */
  appendToList<T>(list: string, value: T): Promise<number>;
  /** Items start..end inclusive; negative indexes count from the end (like Redis LRANGE). */
  readList<T>(list: string, start: number, end: number): Promise<T[]>;
  listLength(list: string): Promise<number>;
  /** Remove a whole list (audit retention, once a shorter copy replaced it). */
  deleteList(list: string): Promise<void>;
  addToSet(set: string, member: string): Promise<void>;
  removeFromSet(set: string, member: string): Promise<void>;
  setMembers(set: string): Promise<string[]>;
  /** The members of several sets in one request (a sharded index), in the order asked; empty where none. */
  setMembersMany(sets: string[]): Promise<string[][]>;
  /** Resolves once the store answers a trivial request (health checks); throws when it cannot. */
  ping(): Promise<void>;
  /** Redis only: whether it keeps its data across its own restart (checked at start-up). */
  persistence?(): Promise<RedisPersistence>;
  /**
   * SQLite only: delete the values whose TTL has run out, now (as is done at open and every hour;
   * sqlite-prune.ts). Redis expires keys itself, PostgreSQL sweeps them on a timer of its own.
   */
  pruneExpired?(): Promise<void>;
  close(): Promise<void>;
}

/** Where a store reports trouble it recovers from by itself. */
export type StoreLog = Pick<Logger, 'warn'>;

export interface StoreOptions {
  log?: StoreLog;
  /** Prefix of every key; tests use their own so they can run beside each other and clean up. */
  prefix?: string;
  /** sqlite://: how long to wait for another process to let go of the file (overlapping restarts). */
  fileLockWaitMs?: number;
  /** sqlite://: how expired values are deleted (tests: a small batch, a clock, no timer). */
  prune?: PruneOptions;
}
