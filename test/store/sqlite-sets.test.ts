// The conversion of sets an earlier version kept as one JSON array reads only the keys of those sets,
// through the key index, at every open; a file holding many other rows is not scanned whole each time.
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import fc from 'fast-check';
import Keyv from 'keyv';
import { describe, expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { SqliteConnection } from '../../src/store/sqlite-connection.js';
import { prefixRange } from '../../src/store/sqlite-keys.js';
import { convertLegacySets } from '../../src/store/sqlite-sets.js';
import { tempDirTest as it } from '../support/fixtures.js';
import { assertFuzz } from '../support/fuzz-inputs.js';

/** keyv's own table, created by keyv's SQLite adapter as it creates it in a store's file. */
async function keyvTable(file: string): Promise<void> {
  const adapter = new KeyvSqlite({ uri: `sqlite://${file}` });
  await adapter.query('SELECT 1');
  await adapter.disconnect();
}

describe('legacy set conversion', () => {
  it('reads the table through its key index, never scanning it', async ({ tempDir: dir }) => {
    const file = join(dir, 'plan.sqlite');
    await keyvTable(file);
    const connection = await SqliteConnection.open(file, 1_000);
    const explaining = await SqliteConnection.open(file, 1_000);
    try {
      const plans: string[][] = [];
      await convertLegacySets(
        async (sql, ...params) => {
          if (/^\s*(INSERT|DELETE|SELECT|UPDATE)\b/i.test(sql)) {
            const rows = (await explaining.query(`EXPLAIN QUERY PLAN ${sql}`, ...params)) as Array<{
              detail: string;
            }>;
            plans.push(rows.map((row) => row.detail));
          }
          return connection.query(sql, ...params);
        },
        'keyv',
        'desk:set:',
        'desk:setm:',
      );
      expect(plans.length).toBeGreaterThan(0);
      for (const plan of plans) {
        // json_each is a virtual table (its own SCAN line); keyv's table is only ever searched by key.
        const onTable = plan.filter((line) => !/VIRTUAL TABLE/.test(line));
        expect(onTable.length).toBeGreaterThan(0);
        for (const line of onTable) {
          expect(line).toMatch(
            /^SEARCH \w+ USING (COVERING )?INDEX sqlite_autoindex_keyv_1 \(key>\? AND key<\?\)/,
          );
        }
      }
    } finally {
      await explaining.close();
      await connection.close();
    }
  });

  it('converts the arrays under the set prefix and leaves keys just outside it as they are', async ({
    tempDir: dir,
  }) => {
    const file = join(dir, 'neighbours.sqlite');
    const plain = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}` }), namespace: 'desk' });
    await plain.set('set:open', ['a', ':colon']);
    await plain.set('set:', ['unnamed']); // the set whose name is empty
    // Around the range: the same text without its colon, the next character, a longer word.
    await plain.set('set', ['x']);
    await plain.set('set;', ['y']);
    await plain.set('sets:open', ['z']);
    await plain.set('seu:', ['w']);
    await plain.disconnect();
    const other = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}` }), namespace: 'elsewhere' });
    await other.set('set:open', ['v']);
    await other.disconnect();
    const store = await createStore(`sqlite://${file}`, { prefix: 'desk' });
    try {
      expect((await store.setMembers('open')).sort()).toEqual([':colon', 'a']);
      expect(await store.setMembers('')).toEqual(['unnamed']);
      expect(await store.get('set:open')).toBeUndefined();
      expect(await store.getMany(['set', 'set;', 'sets:open', 'seu:'])).toEqual([['x'], ['y'], ['z'], ['w']]);
    } finally {
      await store.close();
    }
    const elsewhere = await createStore(`sqlite://${file}`, { prefix: 'elsewhere' });
    try {
      expect(await elsewhere.setMembers('open')).toEqual(['v']);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('prefixRange', () => {
  it("holds exactly the keys that start with the prefix, in SQLite's own order of keys", async () => {
    // SQLite orders keys in memory as in a file, and 300 runs of writes need no syncs to disk.
    const connection = await SqliteConnection.open(':memory:', 1_000);
    // Code points either side of the ones UTF-16 and UTF-8 order differently, and plain ASCII.
    const char = fc.oneof(
      fc.constantFrom('a', 'b', ':', ';', '\u0001', '\u007f', '\u0080', '\ud7ff', '\ue000', '\uffff'),
      fc.constantFrom('\u{10000}', '\u{1f600}', '\u{10fffe}'),
    );
    const text = fc.array(char, { maxLength: 4 }).map((chars) => chars.join(''));
    try {
      await connection.query('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
      await assertFuzz(
        fc.asyncProperty(
          text.filter((prefix) => prefix.length > 0),
          fc.uniqueArray(text),
          async (prefix, keys) => {
            await connection.query('DELETE FROM keyv');
            for (const key of keys) await connection.query('INSERT INTO keyv VALUES (?, 1)', key);
            const { from, to } = prefixRange(prefix);
            const rows = (await connection.query(
              'SELECT key FROM keyv WHERE key >= ? AND key < ? ORDER BY key',
              from,
              to,
            )) as Array<{ key: string }>;
            expect(rows.map((row) => row.key).sort()).toEqual(
              keys.filter((key) => key.startsWith(prefix)).sort(),
            );
          },
        ),
        300,
      );
    } finally {
      await connection.close();
    }
  });
});
