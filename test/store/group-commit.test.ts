// Group commit on a real SQLite file: statements sent together share one transaction, none is
// answered before that transaction has committed, a failing statement fails alone, and a failed
// commit (or a failure that ends the whole transaction, or a failed rollback) fails every statement
// of its batch with nothing of it left in the file, and the next batch still runs. Both ways a batch
// runs: statement by statement, and as scripts on a connection that runs them.
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { describe, expect } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';
import { tempDirTest } from '../support/fixtures.js';

/** What keyv's SQLite adapter is opened with. */
type KeyvSqliteOptions = NonNullable<ConstructorParameters<typeof KeyvSqlite>[0]> & object;

/**
 * `keyv(options)`, keyv's SQLite adapter, and `sqlite()`, a connection of our own, each on a file of
 * its own in the file's temporary directory unless told, and closed after the test.
 */
const it = tempDirTest
  .extend(
    'sqliteFile',
    ({ tempDir }) =>
      () =>
        join(tempDir, `${Math.random().toString(36).slice(2)}.sqlite`),
  )
  .extend('keyv', ({ sqliteFile, defer }) => (options: Partial<KeyvSqliteOptions> = {}) => {
    const sqlite = new KeyvSqlite({ uri: `sqlite://${sqliteFile()}`, ...options });
    defer(() => sqlite.disconnect());
    return sqlite;
  })
  .extend('sqlite', ({ sqliteFile, defer }) => async () => {
    const opened = await SqliteConnection.open(sqliteFile(), 10_000);
    defer(() => opened.close());
    return opened;
  });

/** A real connection, with every statement it runs (and every answer given) written to `log`. */
async function connection(keyv: (options?: Partial<KeyvSqliteOptions>) => KeyvSqlite, log: string[]) {
  const sqlite = keyv();
  await sqlite.query('PRAGMA journal_mode = WAL');
  await sqlite.query('CREATE TABLE items (k TEXT PRIMARY KEY, v TEXT)');
  const raw = sqlite.query;
  const group = new GroupCommit(async (sql, ...params) => {
    const rows = await raw(sql, ...params);
    log.push(sql.split(' ')[0]!);
    return rows;
  });
  return { sqlite, group, raw };
}

describe('GroupCommit', () => {
  it('runs statements sent together in one transaction and answers none before its commit', async ({
    keyv,
  }) => {
    const log: string[] = [];
    const { group, raw } = await connection(keyv, log);
    const writes = Array.from({ length: 20 }, (_, i) =>
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', `k${i}`, 'v').then(() => log.push('answered')),
    );
    await Promise.all(writes);
    expect(log).toEqual(['BEGIN', ...Array(20).fill('INSERT'), 'COMMIT', ...Array(20).fill('answered')]);
    expect(await raw('SELECT count(*) AS n FROM items')).toEqual([{ n: 20 }]);
  });

  it('starts the next batch after the commit of the one before, with what was sent meanwhile', async ({
    keyv,
  }) => {
    const log: string[] = [];
    const { group } = await connection(keyv, log);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'a', '1');
    await Promise.all([
      group.query('SELECT v FROM items WHERE k = ?', 'a'),
      group.query('UPDATE items SET v = ? WHERE k = ?', '2', 'a'),
    ]);
    // Sent together, the two are concurrent: the connection runs them in either order.
    expect(log.slice(0, 4)).toEqual(['BEGIN', 'INSERT', 'COMMIT', 'BEGIN']);
    expect(log.slice(4, 6).sort()).toEqual(['SELECT', 'UPDATE']);
    expect(log.slice(6)).toEqual(['COMMIT']);
  });

  it('stops a batch whose transaction a failing statement ended, and rejects every statement of it', async ({
    keyv,
  }) => {
    const log: string[] = [];
    const { sqlite } = await connection(keyv, log);
    const raw = sqlite.query;
    // The connection runs one statement at a time, in the order sent. The second one fails the way a
    // full disk does: SQLite rolls the whole transaction back, not only the statement.
    let queue: Promise<unknown> = Promise.resolve();
    const group = new GroupCommit((sql, ...params) => {
      const run = queue.then(async () => {
        if (params[0] === 'disk-full') {
          await raw('ROLLBACK');
          throw Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'SQLITE_FULL' });
        }
        return raw(sql, ...params);
      });
      queue = run.catch(() => undefined);
      return run;
    });
    const outcomes = await Promise.allSettled([
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'before', 'v'),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'disk-full', 'v'),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'after', 'v'),
    ]);
    // None is answered as done, and nothing ran outside the transaction (committing on its own).
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await raw('SELECT k FROM items')).toEqual([]);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'next', 'v');
    expect(await raw('SELECT k FROM items')).toEqual([{ k: 'next' }]);
  });

  it('rejects every statement when both the commit and the rollback fail, and runs the next batch', async ({
    keyv,
  }) => {
    const log: string[] = [];
    const { sqlite } = await connection(keyv, log);
    const raw = sqlite.query;
    let broken = true;
    const group = new GroupCommit((sql, ...params) => {
      if (broken && sql === 'COMMIT') return Promise.reject(new Error('disk I/O error'));
      if (broken && sql === 'ROLLBACK') {
        broken = false;
        throw new Error('the connection is gone'); // thrown, not even a rejected promise
      }
      return raw(sql, ...params);
    });
    const outcomes = await Promise.allSettled([
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'one', 'v'),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'two', 'v'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    await raw('ROLLBACK');
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'next', 'v');
    expect(await raw('SELECT k FROM items')).toEqual([{ k: 'next' }]);
  });

  it('runs a conditional write with its follow-ups in one transaction, the follow-ups only when it says so', async ({
    keyv,
  }) => {
    const log: string[] = [];
    const { group, raw } = await connection(keyv, log);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'taken', 'first');
    const answered = (changed: boolean) => {
      log.push('answered');
      return changed;
    };
    const claim = (k: string) =>
      group.conditional('INSERT INTO items (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING', [k, 'v'], (won) =>
        won ? [['INSERT INTO items (k, v) VALUES (?, ?)', [`${k}:after`, 'v']]] : [],
      );
    const [won, lost, plain] = await Promise.all([
      claim('new').then(answered),
      claim('taken').then(answered),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'plain', 'v').then(() => log.push('answered')),
    ]);
    expect(won).toBe(true);
    expect(lost).toBe(false);
    expect(plain).toBeGreaterThan(0);
    // One transaction: the claims and the single statement in the order sent (each claim followed by
    // the question of whether it changed a row), then the winner's follow-up, then COMMIT; no one is
    // answered before it.
    expect(log.slice(3)).toEqual([
      'BEGIN',
      'INSERT',
      'SELECT',
      'INSERT',
      'SELECT',
      'INSERT',
      'INSERT',
      'COMMIT',
      ...Array(3).fill('answered'),
    ]);
    expect(await raw('SELECT k FROM items ORDER BY k')).toEqual([
      { k: 'new' },
      { k: 'new:after' },
      { k: 'plain' },
      { k: 'taken' },
    ]);
  });

  it('answers reads from a second connection that sees what is committed and nothing of an open batch', async ({
    keyv,
    tempDir,
  }) => {
    const file = join(tempDir, 'reader.sqlite');
    const writer = keyv({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
    await writer.query('PRAGMA journal_mode = WAL');
    await writer.query('CREATE TABLE items (k TEXT PRIMARY KEY, v TEXT)');
    const reader = keyv({ uri: `sqlite://${file}`, busyTimeout: 10_000 });
    await reader.query('PRAGMA query_only = ON');
    const seenBeforeCommit: unknown[] = [];
    const group: GroupCommit = new GroupCommit(async (sql, ...params) => {
      // Just before the commit, the batch's INSERT has run on the writer: a read now must not see it.
      if (sql === 'COMMIT') seenBeforeCommit.push(await group.query('SELECT v FROM items WHERE k = ?', 'k'));
      return writer.query(sql, ...params);
    }, reader.query);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'k', 'v');
    expect(seenBeforeCommit).toEqual([[]]);
    // Once the write has been answered, every read sees it.
    expect(await group.query('SELECT v FROM items WHERE k = ?', 'k')).toEqual([{ v: 'v' }]);
  });

  it('waits for what was sent before closing (idle)', async ({ keyv }) => {
    const log: string[] = [];
    const { group, raw } = await connection(keyv, log);
    void group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'late', 'v');
    await group.idle();
    expect(log.at(-1)).toBe('COMMIT');
    expect(await raw('SELECT k FROM items')).toEqual([{ k: 'late' }]);
  });
});

describe.each([
  ['statement by statement', false],
  ['as scripts', true],
])('GroupCommit, a batch run %s', (_way, scripts) => {
  async function connection(sqlite: () => Promise<SqliteConnection>) {
    const opened = await sqlite();
    await opened.query('PRAGMA journal_mode = WAL');
    await opened.query('CREATE TABLE items (k TEXT PRIMARY KEY, v TEXT)');
    const group = new GroupCommit(opened.query, undefined, scripts ? opened.exec : undefined);
    return { group, raw: opened.query };
  }

  it('fails a failing statement alone and commits the rest of its batch, a conditional write with it', async ({
    sqlite,
  }) => {
    const { group, raw } = await connection(sqlite);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'taken', 'first');
    const [one, duplicate, claim] = await Promise.allSettled([
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'one', 'v'),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'taken', 'second'),
      group.conditional('INSERT INTO items (k, v) VALUES (?, ?)', ['claimed', 'v'], (won) =>
        won ? [['INSERT INTO items (k, v) VALUES (?, ?)', ['claimed:after', 'v']]] : [],
      ),
    ]);
    expect(one.status).toBe('fulfilled');
    expect(claim).toEqual({ status: 'fulfilled', value: true });
    expect(duplicate).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT' } });
    expect(await raw('SELECT k, v FROM items ORDER BY k')).toEqual([
      { k: 'claimed', v: 'v' },
      { k: 'claimed:after', v: 'v' },
      { k: 'one', v: 'v' },
      { k: 'taken', v: 'first' },
    ]);
  });

  it('fails every statement of a batch whose commit fails, leaving nothing of it behind', async ({
    sqlite,
  }) => {
    const { group, raw } = await connection(sqlite);
    // A deferred foreign key is checked at COMMIT: one orphan makes the whole commit fail.
    await raw('PRAGMA foreign_keys = ON');
    await raw('CREATE TABLE parents (id TEXT PRIMARY KEY)');
    await raw(
      'CREATE TABLE children (id TEXT PRIMARY KEY, parent TEXT REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED)',
    );
    const outcomes = await Promise.allSettled([
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'lost', 'v'),
      group.conditional('INSERT INTO items (k, v) VALUES (?, ?)', ['claimed', 'v'], () => []),
      group.query('INSERT INTO children (id, parent) VALUES (?, ?)', 'orphan', 'nobody'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await raw('SELECT count(*) AS n FROM items')).toEqual([{ n: 0 }]);
    expect(await raw('SELECT count(*) AS n FROM children')).toEqual([{ n: 0 }]);
    // The connection is usable again: the next batch commits.
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'after', 'v');
    expect(await raw('SELECT k FROM items')).toEqual([{ k: 'after' }]);
  });

  it('runs plain and conditional writes in the order sent (a delete, then a write of the same key)', async ({
    sqlite,
  }) => {
    const { group, raw } = await connection(sqlite);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'k', 'old');
    const [deleted] = await Promise.all([
      group.conditional('DELETE FROM items WHERE k = ?', ['k'], () => []),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'k', 'new'),
    ]);
    expect(deleted).toBe(true);
    expect(await raw('SELECT v FROM items WHERE k = ?', 'k')).toEqual([{ v: 'new' }]);
  });

  it('fails the whole batch when a follow-up fails, leaving nothing of it behind', async ({ sqlite }) => {
    const { group, raw } = await connection(sqlite);
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'taken', 'first');
    const outcomes = await Promise.allSettled([
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'plain', 'v'),
      group.conditional('INSERT INTO items (k, v) VALUES (?, ?)', ['claimed', 'v'], () => [
        ['INSERT INTO items (k, v) VALUES (?, ?)', ['taken', 'again']], // a duplicate key: fails
      ]),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await raw('SELECT k, v FROM items')).toEqual([{ k: 'taken', v: 'first' }]);
    // The connection is usable again.
    await group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'after', 'v');
    expect(await raw('SELECT count(*) AS n FROM items')).toEqual([{ n: 2 }]);
  });
});

describe('GroupCommit, scripted (a connection that runs scripts)', () => {
  /** A real connection; `trips` counts every call made to SQLite's thread. */
  async function scripted(sqlite: () => Promise<SqliteConnection>) {
    const connection = await sqlite();
    await connection.query('PRAGMA journal_mode = WAL');
    await connection.query('CREATE TABLE items (k TEXT PRIMARY KEY, v TEXT)');
    const trips = { query: 0, exec: 0 };
    const group = new GroupCommit(
      (sql, ...params) => {
        trips.query += 1;
        return connection.query(sql, ...params);
      },
      undefined,
      (sql) => {
        trips.exec += 1;
        return connection.exec(sql);
      },
    );
    return { group, trips, raw: connection.query };
  }

  it('runs a batch of writes in three round trips whatever its size, answering none before its commit', async ({
    sqlite,
  }) => {
    const { group, trips, raw } = await scripted(sqlite);
    const answered: number[] = [];
    const writes = Array.from({ length: 20 }, (_, i) =>
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', `k${i}`, "it's").then((rows) => {
        answered.push(i);
        return rows;
      }),
    );
    const claims = [
      group.conditional(
        'INSERT INTO items (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING',
        ['won', 'v'],
        (won) => (won ? [['INSERT INTO items (k, v) VALUES (?, ?)', ['won:after', 'v']]] : []),
      ),
      group.conditional(
        'INSERT INTO items (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING',
        ['k3', 'v'],
        (won) => (won ? [['INSERT INTO items (k, v) VALUES (?, ?)', ['k3:after', 'v']]] : []),
      ),
    ];
    expect(answered).toEqual([]);
    expect(await Promise.all(writes)).toEqual(Array(20).fill([]));
    expect(await Promise.all(claims)).toEqual([true, false]);
    expect(trips).toEqual({ query: 1, exec: 2 });
    expect(await raw('SELECT count(*) AS n FROM items')).toEqual([{ n: 22 }]);
    expect(await raw('SELECT v FROM items WHERE k = ?', 'k3')).toEqual([{ v: "it's" }]); // the claim lost
    expect(await raw('SELECT k FROM items WHERE k LIKE ?', '%:after')).toEqual([{ k: 'won:after' }]);
  });

  it('binds a follow-up whose parameter has no exact literal, in the same transaction', async ({
    sqlite,
  }) => {
    const { group, trips, raw } = await scripted(sqlite);
    const won = await group.conditional('INSERT INTO items (k, v) VALUES (?, ?)', ['claimed', 'v'], () => [
      ['INSERT INTO items (k, v) VALUES (?, ?)', ['before', 'v']],
      ['INSERT INTO items (k, v) VALUES (?, ?)', ['fraction', 0.1]], // a fraction is bound, not written out
      ['INSERT INTO items (k, v) VALUES (?, ?)', ['after', 'v']],
    ]);
    expect(won).toBe(true);
    expect(trips.exec).toBe(3);
    expect(await raw('SELECT k, v FROM items ORDER BY k')).toEqual([
      { k: 'after', v: 'v' },
      { k: 'before', v: 'v' },
      { k: 'claimed', v: 'v' },
      { k: 'fraction', v: '0.1' },
    ]);
  });

  it('runs a batch holding a statement that answers rows statement by statement, with its rows', async ({
    sqlite,
  }) => {
    const { group, trips } = await scripted(sqlite);
    const [rows, plain] = await Promise.all([
      group.query('INSERT INTO items (k, v) VALUES (?, ?) RETURNING k', 'returned', 'v'),
      group.query('INSERT INTO items (k, v) VALUES (?, ?)', 'plain', 'v'),
    ]);
    expect(rows).toEqual([{ k: 'returned' }]);
    expect(plain).toEqual([]);
    expect(trips.exec).toBe(0);
  });
});
