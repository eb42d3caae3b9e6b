// memory:// and sqlite://: keyv in one process. SQLite files are held by one process at a time
// (file-lock.ts), so an in-process mutex is enough for locks and lists; claims, compare-and-set and
// compare-and-delete are atomic in the database itself all the same (each one conditional statement),
// so two of them racing over one key never both win, even from two connections.
// On memory a set is a JS Set. On SQLite a set is one small row per member (sqlite-sets.ts), so adding
// to or taking from a long set never rewrites it, and claimAndWrite is one conditional write of the
// group commit (group-commit.ts): one synced commit. SQLite reads skip keyv's per-call machinery and
// parse keyv's layout directly (sqlite-values.ts); so they do not delete an expired value as keyv's
// get would, and a pruner does (sqlite-prune.ts: at open, every hour, and pruneExpired).
import type KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { LockTimeoutError } from './errors.js';
import type { GroupCommit, Query, Statement } from './group-commit.js';
import type { KeyedMutex } from './mutex.js';
import type { ExpiryPruner } from './sqlite-prune.js';
import { KeyReads } from './sqlite-reads.js';
import { MEMBER_VALUE, memberKey, memberRange } from './sqlite-sets.js';
import { readStored, writeStored } from './sqlite-values.js';
import type { LockOptions, Store, StoreClaim, StoreWrite } from './types.js';
import { checkDistinctWrites } from './writes.js';

/** keyv's table on the SQLite file. */
const tableOf = (sqlite: KeyvSqlite) => sqlite.opts.table ?? 'keyv';

/** Lists are one key per item plus a length, so an append writes two small keys, never the list. */
const itemKey = (list: string, index: number) => `list:${list}#${index}`;
const lengthKey = (list: string) => `list:${list}#length`;
/** Before per-item keys, a list was one JSON array under this key; it is converted on first use. */
const legacyKey = (list: string) => `list:${list}`;
/** Sets read by one statement of setMembersMany. */
const SETS_PER_READ = 100;

export interface LocalStoreOptions {
  kind: 'memory' | 'sqlite';
  keyv: Keyv;
  /** Shared by every store of this process on the same file. */
  mutex: KeyedMutex;
  /** The SQLite connection, for claims in one statement; absent for memory. */
  sqlite?: KeyvSqlite;
  /** The SQLite connection's group commit, for several statements that stand or fall together. */
  group?: GroupCommit;
  /** SQLite: deletes expired values (sqlite-prune.ts); close stops it. */
  pruner?: ExpiryPruner;
  onClose?: () => Promise<void>;
}

export class LocalStore implements Store {
  readonly kind: 'memory' | 'sqlite';
  private readonly keyv: Keyv;
  private readonly mutex: KeyedMutex;
  private readonly converted = new Set<string>();
  private readonly sets = new Map<string, Set<string>>();
  private closing: Promise<void> | undefined;
  /** SQLite: reads gathered per turn of the event loop. */
  private readonly reads: KeyReads | undefined;
  /** SQLite: the text of the claims' statements, made once (claimSql, upsertSql). */
  private readonly statements = new Map<string, string>();

  constructor(private readonly options: LocalStoreOptions) {
    this.kind = options.kind;
    this.keyv = options.keyv;
    this.mutex = options.mutex;
    this.reads = options.sqlite
      ? new KeyReads(options.sqlite.query as Query, tableOf(options.sqlite))
      : undefined;
  }

  async get<T>(key: string): Promise<T | undefined> {
    if (!this.reads) return (await this.keyv.get<T>(key)) ?? undefined;
    const stored = this.storedKey(key);
    const found = await this.reads.read([stored]);
    return readStored<T>(found.get(stored), Date.now(), this.keyv.deserialize);
  }

  async getMany<T>(keys: string[]): Promise<Array<T | undefined>> {
    if (keys.length === 0) return [];
    if (!this.reads) {
      const values = await this.keyv.getMany<T>(keys);
      return values.map((value) => (value ?? undefined) as T | undefined);
    }
    const stored = keys.map((key) => this.storedKey(key));
    const found = await this.reads.read(stored);
    const now = Date.now();
    return Promise.all(stored.map((key) => readStored<T>(found.get(key), now, this.keyv.deserialize)));
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    const { sqlite } = this.options;
    if (!sqlite) {
      await this.keyv.set(key, value, ttlMs);
      return;
    }
    await sqlite.query(
      `INSERT INTO ${tableOf(sqlite)} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
      this.storedKey(key),
      await this.storedValue(value, ttlMs, Date.now()),
    );
  }

  async delete(key: string): Promise<boolean> {
    const { sqlite, group } = this.options;
    if (!sqlite || !group) return this.keyv.delete(key);
    // One statement; whether it removed a row says whether there was one.
    return group.conditional(`DELETE FROM ${tableOf(sqlite)} WHERE key = ?`, [this.storedKey(key)], () => []);
  }

  setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean> {
    const { sqlite, group } = this.options;
    if (sqlite && group) return this.claimInDatabase(sqlite, group, key, value, ttlMs);
    return this.mutex.run(`key:${key}`, async () => {
      if ((await this.keyv.get(key)) !== undefined) return false;
      await this.keyv.set(key, value, ttlMs);
      return true;
    });
  }

  async claimAndWrite(claim: StoreClaim, writes: StoreWrite[]): Promise<boolean> {
    checkDistinctWrites(claim, writes);
    const { sqlite, group } = this.options;
    if (sqlite && group) return this.claimAndWriteInDatabase(sqlite, group, claim, writes);
    // Under the mutex of every key and set it names, taken in one order so two calls never deadlock.
    const names = [
      `key:${claim.key}`,
      ...writes.map((w) => (w.kind === 'addToSet' ? `set:${w.set}` : `key:${w.key}`)),
    ];
    const locked = names.sort().reduceRight<() => Promise<boolean>>(
      (inner, name) => () => this.mutex.run(name, inner),
      async () => {
        if ((await this.keyv.get(claim.key)) !== undefined) return false;
        await this.keyv.set(claim.key, claim.value, claim.ttlMs);
        for (const write of writes) {
          if (write.kind === 'addToSet') {
            this.memorySet(write.set).add(write.member);
          } else if (write.kind === 'set' || (await this.keyv.get(write.key)) === undefined) {
            await this.keyv.set(write.key, write.value, write.ttlMs);
          }
        }
        return true;
      },
    );
    return locked();
  }

  /**
   * Memory: under the key's mutex, as setIfAbsent and compareAndDelete are. SQLite: written only over
   * exactly the text read, in one statement, so the database orders it against every connection's
   * claims, compare-and-deletes and writes of the key (compareAndSetInDatabase).
   */
  compareAndSet<T>(key: string, expected: T | undefined, next: T): Promise<boolean> {
    const { sqlite, group } = this.options;
    if (sqlite && group && this.reads) {
      return this.compareAndSetInDatabase(sqlite, group, this.reads, key, expected, next);
    }
    return this.mutex.run(`key:${key}`, async () => {
      const current = (await this.keyv.get<T>(key)) ?? undefined;
      if (JSON.stringify(current) !== JSON.stringify(expected)) return false;
      await this.keyv.set(key, next);
      return true;
    });
  }

  /**
   * Memory: under the key's mutex, as setIfAbsent and compareAndSet are. SQLite: one statement, so the
   * database decides it against every connection's claims of the key.
   */
  compareAndDelete<T>(key: string, expected: T): Promise<boolean> {
    const { sqlite, group } = this.options;
    if (sqlite && group) return this.compareAndDeleteInDatabase(sqlite, group, key, expected);
    return this.mutex.run(`key:${key}`, async () => {
      const current = (await this.keyv.get<T>(key)) ?? undefined;
      if (current === undefined || JSON.stringify(current) !== JSON.stringify(expected)) return false;
      return this.keyv.delete(key);
    });
  }

  /** Without `waitMs`, waits until the holder lets go (one process holds the store, so none dies holding it). */
  async withLock<T>(name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    if (options.waitMs === undefined) return this.mutex.run(`lock:${name}`, fn);
    const endTurn = await this.mutex.acquire(`lock:${name}`, options.waitMs);
    if (!endTurn) throw new LockTimeoutError(`Timed out waiting for lock ${name}`);
    try {
      return await fn();
    } finally {
      endTurn();
    }
  }

  appendToList<T>(list: string, value: T): Promise<number> {
    return this.mutex.run(`list:${list}`, async () => {
      const length = await this.lengthOf(list);
      // The item first: a crash in between leaves an unseen item that the next append overwrites.
      await this.keyv.set(itemKey(list, length), value);
      await this.keyv.set(lengthKey(list), length + 1);
      return length + 1;
    });
  }

  async readList<T>(list: string, start: number, end: number): Promise<T[]> {
    const length = await this.mutex.run(`list:${list}`, () => this.lengthOf(list));
    const from = start < 0 ? Math.max(length + start, 0) : start;
    const to = Math.min(end < 0 ? length + end : end, length - 1);
    if (to < from) return [];
    const keys = Array.from({ length: to - from + 1 }, (_, i) => itemKey(list, from + i));
    const items = await this.getMany<T>(keys);
    return items.filter((item): item is T => item !== undefined);
  }

  listLength(list: string): Promise<number> {
    return this.mutex.run(`list:${list}`, () => this.lengthOf(list));
  }

  deleteList(list: string): Promise<void> {
    return this.mutex.run(`list:${list}`, async () => {
      const length = await this.lengthOf(list);
      // The length first: a crash part-way leaves unseen items that later appends overwrite.
      await this.keyv.delete(lengthKey(list));
      for (let index = 0; index < length; index++) await this.keyv.delete(itemKey(list, index));
    });
  }

  async addToSet(set: string, member: string): Promise<void> {
    const { sqlite } = this.options;
    if (!sqlite) {
      this.memorySet(set).add(member);
      return;
    }
    await sqlite.query(
      `INSERT INTO ${tableOf(sqlite)} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`,
      this.memberKey(set, member),
      MEMBER_VALUE,
    );
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    const { sqlite } = this.options;
    if (!sqlite) {
      this.memorySet(set).delete(member);
      return;
    }
    await sqlite.query(`DELETE FROM ${tableOf(sqlite)} WHERE key = ?`, this.memberKey(set, member));
  }

  async setMembers(set: string): Promise<string[]> {
    const { sqlite } = this.options;
    if (!sqlite) return [...(this.sets.get(set) ?? [])];
    const { from, to } = memberRange(this.storedKey(`setm:${set}`));
    const rows = (await sqlite.query(
      `SELECT key FROM ${tableOf(sqlite)} WHERE key >= ? AND key < ? ORDER BY key`,
      from,
      to,
    )) as Array<{ key: string }>;
    return rows.map((row) => row.key.slice(from.length));
  }

  async setMembersMany(sets: string[]): Promise<string[][]> {
    const { sqlite } = this.options;
    if (!sqlite) return sets.map((set) => [...(this.sets.get(set) ?? [])]);
    const ranges = sets.map((set) => memberRange(this.storedKey(`setm:${set}`)));
    const members: string[][] = sets.map(() => []);
    // One range read per set, joined in one statement; a compound SELECT holds at most 500 of them.
    for (let start = 0; start < ranges.length; start += SETS_PER_READ) {
      const chunk = ranges.slice(start, start + SETS_PER_READ);
      const select = chunk.map(() => `SELECT ? AS i, key FROM ${tableOf(sqlite)} WHERE key >= ? AND key < ?`);
      const rows = (await sqlite.query(
        `${select.join(' UNION ALL ')} ORDER BY i, key`,
        ...chunk.flatMap(({ from, to }, i) => [start + i, from, to]),
      )) as Array<{ i: number; key: string }>;
      for (const row of rows) members[row.i]?.push(row.key.slice(ranges[row.i]?.from.length));
    }
    return members;
  }

  /**
   * SQLite: delete expired values now (also done at open and every hour). Memory: nothing (keyv drops
   * an expired value when it reads it, and nothing of memory:// outlives the process).
   */
  async pruneExpired(): Promise<void> {
    if (this.closing) throw new Error('the store is closed');
    await this.options.pruner?.run();
  }

  async ping(): Promise<void> {
    if (this.closing) throw new Error('the store is closed');
    if (this.options.sqlite) await this.options.sqlite.query('SELECT 1');
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.keyv.disconnect();
      } finally {
        await this.options.onClose?.();
      }
    })();
    return this.closing;
  }

  /** memory://: a set is a Set (nothing outlives the process), never rewritten whole on a change. */
  private memorySet(set: string): Set<string> {
    const members = this.sets.get(set) ?? new Set<string>();
    this.sets.set(set, members);
    return members;
  }

  /** Call holding the list's mutex. Converts a list still stored as one array, once. */
  private async lengthOf(list: string): Promise<number> {
    const length = await this.keyv.get<number>(lengthKey(list));
    if (length !== undefined || this.converted.has(list)) return length ?? 0;
    const legacy = await this.keyv.get<unknown[]>(legacyKey(list));
    if (legacy?.length) {
      for (const [index, item] of legacy.entries()) await this.keyv.set(itemKey(list, index), item);
      await this.keyv.set(lengthKey(list), legacy.length);
    }
    if (legacy) await this.keyv.delete(legacyKey(list));
    this.converted.add(list);
    return legacy?.length ?? 0;
  }

  /** All of it in one transaction of the group commit: the claim's INSERT decides, the writes follow it. */
  private async claimAndWriteInDatabase(
    sqlite: KeyvSqlite,
    group: GroupCommit,
    claim: StoreClaim,
    writes: StoreWrite[],
  ): Promise<boolean> {
    const now = Date.now();
    const table = tableOf(sqlite);
    const claimed = [this.storedKey(claim.key), await this.storedValue(claim.value, claim.ttlMs, now), now];
    const statements: Statement[] = [];
    const write = await this.writesSql(table, writes, now);
    if (write) statements.push(write);
    return group.conditional(this.claimSql(table), claimed, (won) => (won ? statements : []));
  }

  /**
   * Every write of a claimAndWrite in one statement (each statement of a batch is one more round trip
   * to SQLite's thread, run one after another): a multi-row upsert whose conflict clause does, per
   * row, what its kind asks — `set` replaces, `setIfAbsent` replaces only an expired entry, and
   * `addToSet` writes the member's row, which never expires, so a member already there stays.
   */
  private async writesSql(table: string, writes: StoreWrite[], now: number): Promise<Statement | undefined> {
    if (writes.length === 0) return undefined;
    const params: unknown[] = [];
    const keys: string[] = [];
    const replaced: string[] = [];
    for (const write of writes) {
      const key =
        write.kind === 'addToSet' ? this.memberKey(write.set, write.member) : this.storedKey(write.key);
      keys.push(key);
      const value =
        write.kind === 'addToSet' ? MEMBER_VALUE : await this.storedValue(write.value, write.ttlMs, now);
      params.push(key, value);
      if (write.kind === 'set') replaced.push(key);
    }
    if (new Set(keys).size !== keys.length) throw new Error('claimAndWrite names one key or set twice');
    return [this.upsertSql(table, writes.length), [...params, JSON.stringify(replaced), now]];
  }

  /**
   * writesSql's statement for `count` rows, made once per count: the same string each time, which the
   * group commit writes out without reading it again (sql-inline.ts).
   */
  private upsertSql(table: string, count: number): string {
    let sql = this.statements.get(`upsert:${count}`);
    if (sql) return sql;
    const rows = Array.from({ length: count }, (_, i) => `(?${2 * i + 1}, ?${2 * i + 2})`);
    sql = `INSERT INTO ${table} (key, value) VALUES ${rows.join(', ')}
       ON CONFLICT(key) DO UPDATE SET value = excluded.value
       WHERE excluded.key IN (SELECT j.value FROM json_each(?${2 * count + 1}) AS j)
         OR (json_valid(${table}.value)
           AND json_type(${table}.value, '$.expires') IN ('integer', 'real')
           AND json_extract(${table}.value, '$.expires') < ?${2 * count + 2})`;
    this.statements.set(`upsert:${count}`, sql);
    return sql;
  }

  /** Insert, or replace an expired entry; whether it changed a row says whether it was written. */
  private claimSql(table: string): string {
    let sql = this.statements.get('claim');
    if (sql) return sql;
    sql = `INSERT INTO ${table} (key, value) VALUES (?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value
       WHERE json_valid(${table}.value)
         AND json_type(${table}.value, '$.expires') IN ('integer', 'real')
         AND json_extract(${table}.value, '$.expires') < ?`;
    this.statements.set('claim', sql);
    return sql;
  }

  /** A value as keyv writes it (with its expiry). */
  private async storedValue(value: unknown, ttlMs: number | undefined, now: number): Promise<string> {
    const serialize = this.keyv.serialize;
    if (!serialize) throw new Error('the SQLite store needs keyv serialization');
    return writeStored({ value, expires: ttlMs ? now + ttlMs : undefined }, serialize);
  }

  /**
   * Insert, or replace an expired entry, in one statement: the database decides who wins even
   * against another connection. Key and value are written exactly as keyv would write them.
   */
  private async claimInDatabase<T>(
    sqlite: KeyvSqlite,
    group: GroupCommit,
    key: string,
    value: T,
    ttlMs?: number,
  ): Promise<boolean> {
    const now = Date.now();
    const stored = await this.storedValue(value, ttlMs, now);
    return group.conditional(this.claimSql(tableOf(sqlite)), [this.storedKey(key), stored, now], () => []);
  }

  /**
   * Compared as on memory (the JSON of the live value read against `expected`'s), then written by a
   * statement that applies only while the row still holds the text read, or, over nothing, as a claim
   * (while there is no live entry): a claim, a delete or another write in between wins over it.
   */
  private async compareAndSetInDatabase<T>(
    sqlite: KeyvSqlite,
    group: GroupCommit,
    reads: KeyReads,
    key: string,
    expected: T | undefined,
    next: T,
  ): Promise<boolean> {
    const stored = this.storedKey(key);
    const found = await reads.read([stored]);
    const now = Date.now();
    const read = found.get(stored);
    const current = await readStored<T>(read, now, this.keyv.deserialize);
    if (JSON.stringify(current) !== JSON.stringify(expected)) return false;
    const table = tableOf(sqlite);
    const value = await this.storedValue(next, undefined, now);
    // Over nothing: as a claim (insert, or replace an entry that has expired), so an expired row the
    // pruner deletes meanwhile does not make it lose to no one.
    if (expected === undefined) {
      if (await group.conditional(this.claimSql(table), [stored, value, now], () => [])) return true;
      if (!found.has(stored)) return false;
    }
    // IS: a row whose value is NULL (never written so, but readable as absent) is matched too.
    return group.conditional(
      `UPDATE ${table} SET value = ? WHERE key = ? AND value IS ?`,
      [value, stored, read],
      () => [],
    );
  }

  /**
   * Delete only a live value whose JSON is `expected`'s: both sides' `value` read by SQLite from keyv's
   * text, so they compare as the same rendering.
   */
  private async compareAndDeleteInDatabase<T>(
    sqlite: KeyvSqlite,
    group: GroupCommit,
    key: string,
    expected: T,
  ): Promise<boolean> {
    if (expected === undefined) return false;
    const table = tableOf(sqlite);
    const now = Date.now();
    const sql = `DELETE FROM ${table} WHERE key = ?1 AND json_valid(value)
       AND (value -> '$.value') = (?2 -> '$.value')
       AND IFNULL(json_type(value, '$.expires') NOT IN ('integer', 'real')
         OR json_extract(value, '$.expires') >= ?3, 1)`;
    const params = [this.storedKey(key), await this.storedValue(expected, undefined, now), now];
    return group.conditional(sql, params, () => []);
  }

  /** The row of one member of a set. */
  private memberKey(set: string, member: string): string {
    return memberKey(this.storedKey(`setm:${set}`), member);
  }

  /** keyv's own key for `key` (it leaves a key that already carries the namespace as it is). */
  private storedKey(key: string): string {
    const namespace = this.keyv.namespace;
    if (!namespace || key.startsWith(`${namespace}:`)) return key;
    return `${namespace}:${key}`;
  }
}
