// Expired values are deleted from the SQLite file (reads only skip them): a pass deletes every row of
// the store's namespace whose TTL has run out and nothing else, decides expiry on the row as it is
// when it deletes (a value rewritten in the meantime stays), goes in batches of a bounded number of
// keys, runs at open and on a timer that close stops. Every clock here is injected; nothing waits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Query } from '../../src/store/group-commit.js';
import { createStore } from '../../src/store/index.js';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';
import { prefixRange } from '../../src/store/sqlite-keys.js';
import { ExpiryPruner } from '../../src/store/sqlite-prune.js';
import { test as base } from '../support/fixtures.js';

/**
 * `file(name)`: a path for a new SQLite file, in a directory of the file's own, removed after its last
 * test; `table(expired, live)`: keyv's table on one of them, see below.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('file', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-prune-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return (name: string) => join(dir, `${name}-${Math.random().toString(36).slice(2)}.sqlite`);
  })
  .extend('table', async ({ file, defer }) => {
    /** keyv's table with `expired` expired and `live` live rows under `desk:`, and a connection to it. */
    return async (expired: number, live: number): Promise<SqliteConnection> => {
      const path = file('pruner');
      const adapter = new KeyvSqlite({ uri: `sqlite://${path}` });
      await adapter.query('SELECT 1'); // keyv's own CREATE TABLE
      await adapter.disconnect();
      const connection = await SqliteConnection.open(path, 1_000);
      defer(() => connection.close());
      const put = (key: string, expires: number | undefined) =>
        connection.query(
          'INSERT INTO keyv (key, value) VALUES (?, ?)',
          key,
          JSON.stringify({ value: key, expires }),
        );
      for (let i = 0; i < expired; i++) await put(`desk:e${String(i).padStart(3, '0')}`, 1_000);
      for (let i = 0; i < live; i++) await put(`desk:l${i}`, i % 2 ? undefined : 3_000);
      return connection;
    };
  });
const SHORT = 1_000;
const LONG = 10 * 60 * 60_000;
/** A clock well past every SHORT TTL written by a test and well before every LONG one. */
const later = () => Date.now() + 60_000;

/** Every row of the file, read by a connection of its own. */
async function rows(path: string): Promise<Map<string, string>> {
  const connection = await SqliteConnection.open(path, 1_000);
  try {
    const found = (await connection.query('SELECT key, value FROM keyv')) as Array<{
      key: string;
      value: string;
    }>;
    return new Map(found.map((row) => [row.key, row.value]));
  } finally {
    await connection.close();
  }
}

describe('sqlite store: expired values', () => {
  test('deletes the rows whose TTL has run out, and keeps live, rewritten and TTL-less ones', async ({
    file,
  }) => {
    const path = file('mixed');
    // Another namespace on the same file, expired by the same clock: not this store's to delete.
    const other = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${path}` }), namespace: 'other' });
    await other.set('old', 'theirs', SHORT);
    await other.disconnect();
    let now = Date.now();
    const store = await createStore(`sqlite://${path}`, {
      prefix: 'desk',
      prune: { everyMs: 0, batch: 3, now: () => now },
    });
    try {
      // Expiring, by each way the store writes a TTL.
      await store.set('expired', { n: 1 }, SHORT);
      expect(await store.setIfAbsent('claim', 'mine', SHORT)).toBe(true);
      await store.claimAndWrite({ key: 'event', value: { id: 1 }, ttlMs: SHORT }, [
        { kind: 'set', key: 'tail', value: 'e1', ttlMs: SHORT },
        { kind: 'setIfAbsent', key: 'final', value: 'done', ttlMs: SHORT },
        { kind: 'addToSet', set: 'pending', member: 'e1' },
      ]);
      // Staying.
      await store.set('live', 'yes', LONG);
      await store.set('forever', 'yes');
      await store.set('to-plain', 'first', SHORT);
      await store.set('to-plain', 'second');
      await store.set('to-longer', 'first', SHORT);
      await store.set('to-longer', 'second', LONG);
      await store.set('nested', { expires: 1, text: '"expires":1' }); // an `expires` that is not keyv's
      await store.appendToList('audit', { i: 1 });
      await store.addToSet('open', 'r1');
      expect(await store.compareAndSet('cas', undefined, 'v')).toBe(true);

      const before = await rows(path);
      await store.pruneExpired?.(); // nothing has expired yet
      expect(await rows(path)).toEqual(before);

      now = later();
      await store.pruneExpired?.();
      const after = await rows(path);
      const gone = ['expired', 'claim', 'event', 'tail', 'final'].map((key) => `desk:${key}`);
      for (const key of gone) expect(after.has(key)).toBe(false);
      expect([...after.keys()].sort()).toEqual(
        [...before.keys()].filter((key) => !gone.includes(key)).sort(),
      );
      for (const [key, value] of after) expect(value).toBe(before.get(key)); // untouched
      expect(after.has('other:old')).toBe(true);
      expect(await store.get('to-plain')).toBe('second');
      expect(await store.get('to-longer')).toBe('second');
      expect(await store.setMembers('pending')).toEqual(['e1']);
      expect(await store.readList('audit', 0, -1)).toEqual([{ i: 1 }]);
    } finally {
      await store.close();
    }
  });

  test('runs a pass at open by itself, and close waits for a pass under way', async ({ file }) => {
    const path = file('open');
    const plain = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${path}` }), namespace: 'desk' });
    for (let i = 0; i < 40; i++) await plain.set(`old-${i}`, i, SHORT);
    await plain.set('kept', 'yes');
    await plain.disconnect();
    let started!: () => void;
    const firstPass = new Promise<void>((resolve) => {
      started = resolve;
    });
    const store = await createStore(`sqlite://${path}`, {
      prefix: 'desk',
      prune: {
        batch: 4,
        now: () => {
          started();
          return later();
        },
      },
    });
    try {
      await firstPass; // nobody asked: the pass at open asked for the time
      await store.pruneExpired?.(); // joins it (or runs one more)
      expect([...(await rows(path)).keys()]).toEqual(['desk:kept']);
      for (let i = 0; i < 40; i++) await store.set(`again-${i}`, i, SHORT);
      const pass = store.pruneExpired?.();
      await store.close(); // stops the pass after its current batch, then closes the file
      await expect(pass).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('ExpiryPruner on a file', () => {
  const keys = async (db: SqliteConnection) =>
    ((await db.query('SELECT key FROM keyv ORDER BY key')) as Array<{ key: string }>).map((row) => row.key);

  test('deletes in batches of at most `batch` keys, each found and deleted through the key index', async ({
    table,
  }) => {
    const db = await table(30, 7);
    const deletes: number[] = [];
    const plans: string[] = [];
    const spy: Query = async (sql, ...params) => {
      plans.push(
        ...((await db.query(`EXPLAIN QUERY PLAN ${sql}`, ...params)) as Array<{ detail: string }>).map(
          (row) => row.detail,
        ),
      );
      if (/^\s*DELETE/.test(sql)) {
        // The keys this DELETE looks at: its window, [?1, ?3).
        const [from, , to] = params as [string, number, string | undefined];
        const [{ n }] = (await db.query(
          `SELECT count(*) AS n FROM keyv WHERE key >= ?${to === undefined ? '' : ' AND key < ?'}`,
          ...(to === undefined ? [from] : [from, to]),
        )) as [{ n: number }];
        deletes.push(n);
      }
      return db.query(sql, ...params);
    };
    await new ExpiryPruner(spy, 'keyv', prefixRange('desk:'), {
      batch: 4,
      everyMs: 0,
      now: () => 2_000,
    }).run();
    expect(await keys(db)).toEqual([
      'desk:l0',
      'desk:l1',
      'desk:l2',
      'desk:l3',
      'desk:l4',
      'desk:l5',
      'desk:l6',
    ]);
    expect(deletes.length).toBe(Math.ceil(37 / 4));
    for (const looked of deletes) expect(looked).toBeLessThanOrEqual(4);
    for (const line of plans)
      expect(line).toMatch(/^SEARCH keyv USING (COVERING )?INDEX sqlite_autoindex_keyv_1 \(key>\?/);
  });

  test('never deletes a value rewritten after it expired, even between finding its batch and deleting it', async ({
    table,
  }) => {
    const db = await table(6, 0);
    const fresh = [
      JSON.stringify({ value: 'no TTL now' }),
      JSON.stringify({ value: 'a later TTL', expires: 9_000 }),
    ];
    const spy: Query = async (sql, ...params) => {
      if (/^\s*DELETE/.test(sql)) {
        // The batch is found; before its DELETE runs, two of its keys are written again.
        await db.query('UPDATE keyv SET value = ? WHERE key = ?', fresh[0], 'desk:e001');
        await db.query('UPDATE keyv SET value = ? WHERE key = ?', fresh[1], 'desk:e004');
      }
      return db.query(sql, ...params);
    };
    await new ExpiryPruner(spy, 'keyv', prefixRange('desk:'), {
      batch: 10,
      everyMs: 0,
      now: () => 2_000,
    }).run();
    expect(await db.query('SELECT key, value FROM keyv ORDER BY key')).toEqual([
      { key: 'desk:e001', value: fresh[0] },
      { key: 'desk:e004', value: fresh[1] },
    ]);
  });
});

describe('ExpiryPruner timer', () => {
  // Fake timers and a spy on setTimeout are globals a fixture cannot hold: put back after each test.
  afterEach(() => {
    // The spy on the fake setTimeout goes first: with it still in place, useRealTimers would leave
    // a setTimeout that never fires for whatever the worker runs next.
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('passes once at start, then every `everyMs` after the last, logs a failure and stops for good', async () => {
    vi.useFakeTimers();
    let passes = 0;
    let failing = false;
    const query: Query = async (sql) => {
      if (/^\s*DELETE/.test(sql)) {
        passes += 1;
        if (failing) throw new Error('disk I/O error');
      }
      return [];
    };
    const warn = vi.fn();
    const pruner = new ExpiryPruner(query, 'keyv', { from: '' }, { everyMs: 60_000 }, { warn });
    pruner.start();
    expect(passes).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(passes).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);
    failing = true;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(passes).toBe(3);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('expired values'), { error: 'disk I/O error' });
    failing = false;
    await vi.advanceTimersByTimeAsync(60_000); // a failed pass does not end the timer
    expect(passes).toBe(4);
    await pruner.stop();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(passes).toBe(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps no process alive and runs nothing by itself when everyMs is 0', async () => {
    vi.useFakeTimers();
    const query = vi.fn(async () => []);
    const idle = new ExpiryPruner(query, 'keyv', { from: '' }, { everyMs: 0 });
    idle.start();
    expect(vi.getTimerCount()).toBe(0);
    const timed = new ExpiryPruner(query, 'keyv', { from: '' }, { everyMs: 1_000 });
    const unref = vi.spyOn(globalThis, 'setTimeout');
    timed.start();
    const timer = unref.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await timed.stop();
    expect(query).not.toHaveBeenCalled();
  });
});
