// SQLite's compare-and-set is decided by the database, not by a process's own locks: two connections to
// one file (each with its own locks, as two processes past the file lock would have) never both win a
// key, and an expired entry the pruner deletes meanwhile does not make a compare-and-set over nothing
// lose to no one.
import { join } from 'node:path';
import { expect } from 'vitest';
import { connectSqlite } from '../../src/store/sqlite.js';
import { tempDirTest as it } from '../support/fixtures.js';

const KEYS = Array.from({ length: 100 }, (_, i) => `k:${i}`);

it('orders compare-and-set against another connection’s compare-and-delete and claims, key by key', async ({
  tempDir,
}) => {
  const file = join(tempDir, 'two-processes.sqlite');
  const [one, two] = [await connectSqlite(file, 'p'), await connectSqlite(file, 'p')];
  try {
    await Promise.all(KEYS.map((key) => one.setIfAbsent(`held:${key}`, 'owner-A', 60_000)));
    const raced = await Promise.all(
      KEYS.map((key) =>
        Promise.all([
          one.compareAndSet(`held:${key}`, 'owner-A', 'owner-B'),
          two.compareAndDelete(`held:${key}`, 'owner-A'),
          one.compareAndSet(`free:${key}`, undefined, 'by-set'),
          two.setIfAbsent(`free:${key}`, 'by-claim'),
        ]),
      ),
    );
    for (const [index, [set, deleted, written, claimed]] of raced.entries()) {
      const key = KEYS[index] ?? '';
      expect([set, deleted].filter(Boolean), key).toHaveLength(1);
      expect(await two.get(`held:${key}`), key).toBe(set ? 'owner-B' : undefined);
      expect([written, claimed].filter(Boolean), key).toHaveLength(1);
      expect(await two.get(`free:${key}`), key).toBe(written ? 'by-set' : 'by-claim');
    }
  } finally {
    await one.close();
    await two.close();
  }
});

it('writes over an expired entry even when another connection prunes it meanwhile', async ({ tempDir }) => {
  const file = join(tempDir, 'pruned.sqlite');
  const [one, two] = [await connectSqlite(file, 'p'), await connectSqlite(file, 'p')];
  try {
    await Promise.all(KEYS.map((key) => one.setIfAbsent(key, 'lapsed', 1)));
    const lapsed = Date.now() + 2;
    while (Date.now() <= lapsed) await new Promise((resolve) => setImmediate(resolve));
    const [written] = await Promise.all([
      Promise.all(KEYS.map((key) => one.compareAndSet(key, undefined, 'taken'))),
      two.pruneExpired?.(),
    ]);
    expect(written.filter((won) => !won)).toEqual([]);
    for (const key of KEYS) expect(await two.get(key), key).toBe('taken');
  } finally {
    await one.close();
    await two.close();
  }
});
