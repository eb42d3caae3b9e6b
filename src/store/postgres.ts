// postgres:// (or postgresql://): keyv with @keyv/postgres for plain values (the `keyv` table, keyv's
// format, `<namespace>:<key>`), and native SQL for what must be atomic across replicas: claims as one
// INSERT … ON CONFLICT (an expired row counts as absent), compare-and-set as a conditional UPDATE on
// the exact text read (compare-and-delete: a conditional DELETE on it), locks as rows with a lease,
// lists and sets as tables (postgres-schema.ts).
// A lock's lease is on the database's clock and renewed on a connection of its own, so a busy pool
// cannot make it lapse under a live holder (docs/decisions/lease-rows-over-advisory-locks.md).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import KeyvPostgres from '@keyv/postgres';
import Keyv from 'keyv';
import type pg from 'pg';
import { LOCK_DEFAULTS, LockTimeoutError, StoreUnavailableError } from './errors.js';
import { KeyedMutex } from './mutex.js';
import { CONNECT_TIMEOUT_MS, postgresPool, QUERY_TIMEOUT_MS, statementTimeoutOf } from './postgres-pool.js';
import { migrate } from './postgres-schema.js';
import { readStored } from './sqlite-values.js';
import type { LockOptions, Store, StoreClaim, StoreLog, StoreWrite } from './types.js';
import { scrubbed } from './url-credentials.js';
import { checkDistinctWrites } from './writes.js';

const PING_TIMEOUT_MS = 2_000;
/** Expired keyv rows are never read (see get), only swept now and then. */
const SWEEP_EVERY_MS = 10 * 60_000;

type Query = <R = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<R[]>;

/** `host:port` of STORE_URL, for messages: never the user or the password. */
function postgresServer(url: string): string {
  try {
    const where = new URL(url);
    const host = where.hostname || where.searchParams.get('host') || 'localhost';
    return `${host}:${where.port || 5432}`;
  } catch {
    return 'STORE_URL';
  }
}

/** Errors that mean "the database is not there", as opposed to a refused statement. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    // connection exceptions, shutdown or starting up, too many connections, or a statement the server
    // cancelled at its statement_timeout (too slow to answer, as a client-side timeout is)
    return code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '57014';
  }
  return true; // socket errors, timeouts, a closed pool: no SQLSTATE at all
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  private readonly sweeper: NodeJS.Timeout;
  private readonly waiters = new KeyedMutex();
  private closing: Promise<void> | undefined;

  static async connect(
    url: string,
    namespace: string,
    options: {
      connectTimeoutMs?: number;
      queryTimeoutMs?: number;
      /** The server's statement limit; by default a little under queryTimeoutMs (postgres-pool.ts). */
      statementTimeoutMs?: number;
      log?: StoreLog;
    } = {},
  ): Promise<PostgresStore> {
    const server = postgresServer(url);
    const queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    const poolOf = (name: string, max?: number) =>
      postgresPool({
        url,
        server,
        name,
        ...(max ? { max } : {}),
        connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
        queryTimeoutMs,
        statementTimeoutMs: options.statementTimeoutMs ?? statementTimeoutOf(queryTimeoutMs),
        ...(options.log ? { log: options.log } : {}),
      });
    const pool = poolOf('cngn-desk');
    // Lock renewals only (see the top of this file): one connection, never queued behind the pool.
    const renewalPool = poolOf('cngn-desk-locks', 1);
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      await renewalPool.end().catch(() => undefined);
      const reason = scrubbed(error, url);
      throw new Error(
        isConnectionError(error)
          ? `PostgreSQL at ${server} did not answer (${reason}); check STORE_URL`
          : `PostgreSQL at ${server} refused to set up the store (${reason}); check STORE_URL and the database`,
      );
    }
    const on =
      (through: pg.Pool): Query =>
      async (text, values) => {
        try {
          return (await through.query(text, values)).rows;
        } catch (error) {
          if (!isConnectionError(error)) throw error;
          throw new StoreUnavailableError(`PostgreSQL at ${server} failed: ${scrubbed(error, url)}`);
        }
      };
    const query = on(pool);
    // The adapter names its table with a schema; ours were created unqualified, in the current one.
    const [{ schema } = { schema: 'public' }] = await query<{ schema: string }>(
      'SELECT current_schema() AS schema',
    );
    const keyv = new Keyv({ store: keyvAdapter(query, schema), namespace, throwOnErrors: true });
    keyv.on('error', () => {}); // every failure is thrown to the caller as well
    return new PostgresStore({ pool, query, renewalPool, renew: on(renewalPool) }, keyv, namespace, server);
  }

  private readonly pool: pg.Pool;
  private readonly query: Query;
  private readonly renewalPool: pg.Pool;
  /** Lock renewals, on their own connection. */
  private readonly renew: Query;

  private constructor(
    connections: { pool: pg.Pool; query: Query; renewalPool: pg.Pool; renew: Query },
    private readonly keyv: Keyv,
    private readonly namespace: string,
    private readonly server: string,
  ) {
    this.pool = connections.pool;
    this.query = connections.query;
    this.renewalPool = connections.renewalPool;
    this.renew = connections.renew;
    this.sweeper = setInterval(() => void this.sweep().catch(() => {}), SWEEP_EVERY_MS);
    this.sweeper.unref();
    void this.sweep().catch(() => {});
  }

  // Reads go to the adapter and judge expiry here, never through keyv's get: keyv deletes an entry it
  // finds expired by key, and the row it read may have expired (and been claimed afresh by another
  // replica) between the database's answer and keyv's clock, so that delete would remove the new claim.
  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.keyv.opts.store.get(this.storedKey(key));
    return readStored<T>(raw, Date.now(), this.keyv.deserialize);
  }

  async getMany<T>(keys: string[]): Promise<Array<T | undefined>> {
    if (keys.length === 0) return [];
    const adapter = this.keyv.opts.store as Pick<KeyvPostgres, 'getMany'>;
    const raws: unknown[] = await adapter.getMany(keys.map((key) => this.storedKey(key)));
    const now = Date.now();
    return Promise.all(raws.map((raw) => readStored<T>(raw, now, this.keyv.deserialize)));
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  /** One statement: of callers deleting one key at once, exactly one is told it removed it. */
  async delete(key: string): Promise<boolean> {
    const rows = await this.query('DELETE FROM keyv WHERE key = $1 RETURNING key', [this.storedKey(key)]);
    return rows.length === 1;
  }

  async setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean> {
    const now = Date.now();
    const stored = await this.serialize({ value, expires: ttlMs ? now + ttlMs : undefined });
    // ON CONFLICT DO NOTHING, except over an expired row: the row lock decides between claimants.
    const rows = await this.query(
      `INSERT INTO keyv (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE store_expired(keyv.value, $3)
       RETURNING key`,
      [this.storedKey(key), stored, now],
    );
    return rows.length === 1;
  }

  async claimAndWrite(claim: StoreClaim, writes: StoreWrite[]): Promise<boolean> {
    checkDistinctWrites(claim, writes);
    const now = Date.now();
    const stored = (value: unknown, ttlMs: number | undefined) =>
      this.serialize({ value, expires: ttlMs ? now + ttlMs : undefined });
    const values: unknown[] = [this.storedKey(claim.key), await stored(claim.value, claim.ttlMs), now];
    const $ = (value: unknown) => `$${values.push(value)}`;
    // One statement: every write reads the claim's RETURNING, so it happens only when the claim won,
    // and all of it commits (or fails) together.
    const parts = [
      `claim AS (INSERT INTO keyv (key, value) VALUES ($1, $2)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE store_expired(keyv.value, $3)
        RETURNING key)`,
    ];
    for (const [i, write] of writes.entries()) {
      if (write.kind === 'addToSet') {
        parts.push(`w${i} AS (INSERT INTO store_set_members (namespace, set_name, member)
          SELECT ${$(this.namespace)}, ${$(write.set)}, ${$(write.member)} FROM claim ON CONFLICT DO NOTHING)`);
        continue;
      }
      const row = `SELECT ${$(this.storedKey(write.key))}::text, ${$(await stored(write.value, write.ttlMs))}::text FROM claim`;
      parts.push(
        write.kind === 'set'
          ? `w${i} AS (INSERT INTO keyv (key, value) ${row} ON CONFLICT (key) DO UPDATE SET value = excluded.value)`
          : `w${i} AS (INSERT INTO keyv (key, value) ${row}
              ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE store_expired(keyv.value, $3))`,
      );
    }
    const rows = await this.query(`WITH ${parts.join(',\n')} SELECT key FROM claim`, values);
    return rows.length === 1;
  }

  async compareAndSet<T>(key: string, expected: T | undefined, next: T): Promise<boolean> {
    const storedKey = this.storedKey(key);
    const [row] = await this.query<{ value: string }>('SELECT value FROM keyv WHERE key = $1', [storedKey]);
    const current = row ? await this.liveValue<T>(row.value) : undefined;
    if (JSON.stringify(current) !== JSON.stringify(expected)) return false;
    const stored = await this.serialize({ value: next, expires: undefined });
    // Written only over exactly the text read (or into no row at all): any write in between wins.
    const rows = row
      ? await this.query(`UPDATE keyv SET value = $2 WHERE key = $1 AND value = $3 RETURNING key`, [
          storedKey,
          stored,
          row.value,
        ])
      : await this.query(
          `INSERT INTO keyv (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`,
          [storedKey, stored],
        );
    return rows.length === 1;
  }

  async compareAndDelete<T>(key: string, expected: T): Promise<boolean> {
    const storedKey = this.storedKey(key);
    const [row] = await this.query<{ value: string }>('SELECT value FROM keyv WHERE key = $1', [storedKey]);
    if (!row) return false;
    const current = await this.liveValue<T>(row.value);
    if (current === undefined || JSON.stringify(current) !== JSON.stringify(expected)) return false;
    // Deleted only while it still holds exactly the text read: a claim taken afresh since stays.
    const rows = await this.query('DELETE FROM keyv WHERE key = $1 AND value = $2 RETURNING key', [
      storedKey,
      row.value,
    ]);
    return rows.length === 1;
  }

  async withLock<T>(name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const { ttlMs, waitMs } = { ...LOCK_DEFAULTS, ...options };
    const deadline = Date.now() + waitMs;
    // Waiters of this process queue here, so one at a time asks the database: a crowd of pollers
    // would fill the pool's queue and hold up the holder's own release behind them.
    const endTurn = await this.waiters.acquire(name, waitMs);
    if (!endTurn) throw new LockTimeoutError(`Timed out waiting for lock ${name}`);
    try {
      return await this.holdingLock(name, fn, ttlMs, deadline);
    } finally {
      endTurn();
    }
  }

  private async holdingLock<T>(
    name: string,
    fn: () => Promise<T>,
    ttlMs: number,
    deadline: number,
  ): Promise<T> {
    const token = randomUUID();
    let pause = 2;
    while (!(await this.takeLock(name, token, ttlMs))) {
      if (Date.now() > deadline) throw new LockTimeoutError(`Timed out waiting for lock ${name}`);
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 50);
    }
    // The TTL only bounds a holder that died: a live holder keeps the lock however long fn takes.
    // On the renewal connection: a busy pool never holds a renewal back past the lease.
    const renewal = setInterval(() => {
      this.renew(
        `UPDATE store_locks SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
         WHERE namespace = $1 AND name = $2 AND token = $3`,
        [this.namespace, name, token, ttlMs],
      ).catch(() => {});
    }, ttlMs / 3);
    renewal.unref();
    try {
      return await fn();
    } finally {
      clearInterval(renewal);
      // Only our own lease; if the database is gone, it runs out by itself and fn's outcome stands.
      await this.query('DELETE FROM store_locks WHERE namespace = $1 AND name = $2 AND token = $3', [
        this.namespace,
        name,
        token,
      ]).catch(() => {});
    }
  }

  async appendToList<T>(list: string, value: T): Promise<number> {
    // One statement: the head row's lock orders concurrent appends, and the item takes its position.
    const [row] = await this.query<{ length: string }>(
      `WITH head AS (
         INSERT INTO store_lists (namespace, list, length) VALUES ($1, $2, 1)
         ON CONFLICT (namespace, list) DO UPDATE SET length = store_lists.length + 1
         RETURNING length
       )
       INSERT INTO store_list_items (namespace, list, position, value)
       SELECT $1, $2, length - 1, $3 FROM head
       RETURNING position + 1 AS length`,
      [this.namespace, list, JSON.stringify(value)],
    );
    return Number(row?.length);
  }

  async readList<T>(list: string, start: number, end: number): Promise<T[]> {
    // Negative indexes count from the end, out-of-range ones are clipped, as Redis LRANGE does.
    const rows = await this.query<{ value: string }>(
      `SELECT i.value FROM store_lists l
       JOIN store_list_items i ON i.namespace = l.namespace AND i.list = l.list
       WHERE l.namespace = $1 AND l.list = $2
         AND i.position >= CASE WHEN $3::bigint < 0 THEN l.length + $3::bigint ELSE $3::bigint END
         AND i.position <= CASE WHEN $4::bigint < 0 THEN l.length + $4::bigint ELSE $4::bigint END
       ORDER BY i.position`,
      [this.namespace, list, start, end],
    );
    return rows.map((row) => JSON.parse(row.value) as T);
  }

  async listLength(list: string): Promise<number> {
    const [row] = await this.query<{ length: string }>(
      'SELECT length FROM store_lists WHERE namespace = $1 AND list = $2',
      [this.namespace, list],
    );
    return row ? Number(row.length) : 0;
  }

  async deleteList(list: string): Promise<void> {
    // One statement, so no reader sees the head without its items or the other way round.
    await this.query(
      `WITH items AS (DELETE FROM store_list_items WHERE namespace = $1 AND list = $2)
       DELETE FROM store_lists WHERE namespace = $1 AND list = $2`,
      [this.namespace, list],
    );
  }

  async addToSet(set: string, member: string): Promise<void> {
    await this.query(
      `INSERT INTO store_set_members (namespace, set_name, member) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING`,
      [this.namespace, set, member],
    );
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.query('DELETE FROM store_set_members WHERE namespace = $1 AND set_name = $2 AND member = $3', [
      this.namespace,
      set,
      member,
    ]);
  }

  async setMembers(set: string): Promise<string[]> {
    const rows = await this.query<{ member: string }>(
      'SELECT member FROM store_set_members WHERE namespace = $1 AND set_name = $2 ORDER BY member',
      [this.namespace, set],
    );
    return rows.map((row) => row.member);
  }

  async setMembersMany(sets: string[]): Promise<string[][]> {
    if (sets.length === 0) return [];
    const rows = await this.query<{ set_name: string; member: string }>(
      `SELECT set_name, member FROM store_set_members WHERE namespace = $1 AND set_name = ANY($2::text[])
       ORDER BY set_name, member`,
      [this.namespace, [...new Set(sets)]],
    );
    const members = new Map<string, string[]>();
    for (const row of rows) {
      const found = members.get(row.set_name);
      if (found) found.push(row.member);
      else members.set(row.set_name, [row.member]);
    }
    return sets.map((set) => [...(members.get(set) ?? [])]);
  }

  async ping(): Promise<void> {
    const timer = new AbortController();
    const late = sleep(PING_TIMEOUT_MS, undefined, { signal: timer.signal }).then(() => {
      throw new StoreUnavailableError(
        `PostgreSQL at ${this.server} did not answer within ${PING_TIMEOUT_MS} ms`,
      );
    });
    late.catch(() => {}); // aborted once the answer came
    try {
      await Promise.race([this.query('SELECT 1'), late]);
    } finally {
      timer.abort();
    }
  }

  /** Remove everything of this namespace: values, lists, sets and locks (tests). */
  async clear(): Promise<void> {
    await this.query('DELETE FROM keyv WHERE starts_with(key, $1)', [`${this.namespace}:`]);
    for (const table of ['store_list_items', 'store_lists', 'store_set_members', 'store_locks']) {
      await this.query(`DELETE FROM ${table} WHERE namespace = $1`, [this.namespace]);
    }
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      try {
        await this.pool.end();
      } finally {
        await this.renewalPool.end();
      }
    })();
    return this.closing;
  }

  /** Take `name` for `token` if nobody holds it or its holder's lease ran out. */
  private async takeLock(name: string, token: string, ttlMs: number): Promise<boolean> {
    const rows = await this.query(
      `INSERT INTO store_locks (namespace, name, token, expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (namespace, name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
       WHERE store_locks.expires_at < clock_timestamp()
       RETURNING token`,
      [this.namespace, name, token, ttlMs],
    );
    return rows.length === 1;
  }

  /** Delete expired values of this namespace; a row rewritten meanwhile no longer matches. */
  private async sweep(): Promise<void> {
    await this.query('DELETE FROM keyv WHERE starts_with(key, $1) AND store_expired(value, $2)', [
      `${this.namespace}:`,
      Date.now(),
    ]);
  }

  private async serialize(data: { value: unknown; expires: number | undefined }): Promise<string> {
    const serialize = this.keyv.serialize;
    if (!serialize) throw new Error('the PostgreSQL store needs keyv serialization');
    return serialize(data);
  }

  /** The value in a stored keyv text, or undefined once it has expired. */
  private async liveValue<T>(raw: string): Promise<T | undefined> {
    const deserialize = this.keyv.deserialize;
    if (!deserialize) throw new Error('the PostgreSQL store needs keyv serialization');
    const data = await deserialize<T>(raw);
    if (!data || (typeof data.expires === 'number' && Date.now() > data.expires)) return undefined;
    return data.value;
  }

  /** keyv's own key for `key` (it leaves a key that already carries the namespace as it is). */
  private storedKey(key: string): string {
    return key.startsWith(`${this.namespace}:`) ? key : `${this.namespace}:${key}`;
  }
}

/**
 * keyv's PostgreSQL adapter on our pool. Its own pool is one per process for the last URL given, and
 * its disconnect ends it for every store using it; here each store owns its pool, and close ends it.
 * Reads leave out expired rows: keyv deletes an expired entry it reads, by key, which on a shared
 * database could delete the fresh claim another replica has just written over it.
 */
function keyvAdapter(query: Query, schema: string): KeyvPostgres {
  const Adapter = class extends KeyvPostgres {
    override async connect() {
      return query;
    }

    override async disconnect(): Promise<void> {}

    override async get(key: string): Promise<string | undefined> {
      const [row] = await query<{ value: string }>(
        'SELECT value FROM keyv WHERE key = $1 AND NOT store_expired(value, $2)',
        [key, Date.now()],
      );
      return row?.value;
    }

    override async getMany(keys: string[]): Promise<Array<string | undefined>> {
      const rows = await query<{ key: string; value: string }>(
        'SELECT key, value FROM keyv WHERE key = ANY($1) AND NOT store_expired(value, $2)',
        [keys, Date.now()],
      );
      const found = new Map(rows.map((row) => [row.key, row.value]));
      return keys.map((key) => found.get(key));
    }
  };
  const quoted = /^[a-z_][a-z0-9_]*$/.test(schema) ? schema : `"${schema.replace(/"/g, '""')}"`;
  return new Adapter({ table: 'keyv', schema: quoted });
}
