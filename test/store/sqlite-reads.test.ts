// Reads on the SQLite file asked for within one turn of the event loop go to SQLite as one statement,
// each caller getting its own keys' values; a failing read fails every caller of it.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';
import { KeyReads } from '../../src/store/sqlite-reads.js';
import { tempDirTest as it } from '../support/fixtures.js';

describe('KeyReads', () => {
  it('reads every key asked for in one turn with one statement', async ({ tempDir }) => {
    const connection = await SqliteConnection.open(join(tempDir, 'reads.sqlite'), 1_000);
    try {
      await connection.query('CREATE TABLE keyv (key TEXT PRIMARY KEY, value TEXT)');
      await connection.query("INSERT INTO keyv VALUES ('a', '1'), ('b', '2'), ('c', '3')");
      let statements = 0;
      const reads = new KeyReads((sql, ...params) => {
        statements += 1;
        return connection.query(sql, ...params);
      }, 'keyv');
      const [first, second, third] = await Promise.all([
        reads.read(['a', 'missing']),
        reads.read(['b']),
        reads.read(['a', 'c']),
      ]);
      expect(statements).toBe(1);
      expect(first.get('a')).toBe('1');
      expect(first.has('missing')).toBe(false);
      expect(second.get('b')).toBe('2');
      expect(third.get('c')).toBe('3');
      // A later turn is a statement of its own.
      expect((await reads.read(['b'])).get('b')).toBe('2');
      expect(statements).toBe(2);
    } finally {
      await connection.close();
    }
  });

  it('finds keys holding a NUL, which JSON text would not carry to SQLite as it is', async ({ tempDir }) => {
    const connection = await SqliteConnection.open(join(tempDir, 'odd-keys.sqlite'), 1_000);
    try {
      await connection.query('CREATE TABLE keyv (key TEXT PRIMARY KEY, value TEXT)');
      const odd = ['a\u0000b', 'emoji 😀'];
      for (const key of odd) await connection.query('INSERT INTO keyv VALUES (?, ?)', key, key.length);
      const found = await new KeyReads(connection.query, 'keyv').read([...odd, 'plain']);
      expect(odd.map((key) => found.has(key))).toEqual([true, true]);
    } finally {
      await connection.close();
    }
  });

  it("fails every read of a statement that fails, with SQLite's reason", async () => {
    const reads = new KeyReads(() => Promise.reject(new Error('SQLITE_IOERR: disk I/O error')), 'keyv');
    const outcomes = await Promise.allSettled([reads.read(['a']), reads.read(['b'])]);
    expect(outcomes).toEqual([
      { status: 'rejected', reason: new Error('SQLITE_IOERR: disk I/O error') },
      { status: 'rejected', reason: new Error('SQLITE_IOERR: disk I/O error') },
    ]);
  });
});
