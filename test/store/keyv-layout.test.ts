// What the stores write is keyv's own layout under our namespace, readable by a plain keyv; lists
// are one small entry per item, so appending to a long audit trail never rewrites it.
import { join } from 'node:path';
import KeyvRedis from '@keyv/redis';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { describe, expect } from 'vitest';
import { clearStore, createStore } from '../../src/store/index.js';
import { tempDirTest as it } from '../support/fixtures.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();

/** The longest value stored in the file, read by a plain connection. */
async function longestValue(file: string): Promise<number | undefined> {
  const raw = new KeyvSqlite({ uri: `sqlite://${file}` });
  try {
    const [row] = (await raw.query('SELECT max(length(value)) AS longest FROM keyv')) as Array<{
      longest: number;
    }>;
    return row?.longest;
  } finally {
    await raw.disconnect();
  }
}

describe('sqlite store', () => {
  it('writes values and claims that a plain keyv on the file reads back', async ({ tempDir: dir }) => {
    const file = join(dir, 'plain.sqlite');
    const store = await createStore(`sqlite://${file}`, { prefix: 'desk' });
    await store.set('value', { n: 1 });
    await store.setIfAbsent('claim', { owner: 'a' }, 60_000);
    const plain = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}` }), namespace: 'desk' });
    try {
      expect(await plain.get('value')).toEqual({ n: 1 });
      expect(await plain.get('claim')).toEqual({ owner: 'a' });
    } finally {
      await plain.disconnect();
      await store.close();
    }
  });

  it('appends to a long list without rewriting it', async ({ tempDir: dir }) => {
    const file = join(dir, 'long-list.sqlite');
    const store = await createStore(`sqlite://${file}`);
    for (let i = 0; i < 300; i++) await store.appendToList('audit', { action: 'approved', i });
    expect(await store.listLength('audit')).toBe(300);
    expect(await store.readList('audit', -2, -1)).toEqual([
      { action: 'approved', i: 298 },
      { action: 'approved', i: 299 },
    ]);
    await store.close();
    expect(await longestValue(file)).toBeLessThan(200); // one item per row, never the whole list
  });
});

describe('sqlite sets', () => {
  it('adds to and takes from a long set without rewriting it', async ({ tempDir: dir }) => {
    const file = join(dir, 'long-set.sqlite');
    const store = await createStore(`sqlite://${file}`);
    for (let i = 0; i < 300; i++) await store.addToSet('pending', `member-${String(i).padStart(3, '0')}`);
    await store.claimAndWrite({ key: 'entry', value: 1 }, [
      { kind: 'addToSet', set: 'pending', member: 'member-300' },
    ]);
    await store.addToSet('pending', 'member-000'); // already there: stays once
    await store.removeFromSet('pending', 'member-001');
    const members = await store.setMembers('pending');
    expect(members).toHaveLength(300);
    expect(members).not.toContain('member-001');
    expect(members).toContain('member-300');
    expect(await store.setMembers('pendin')).toEqual([]); // a set whose name is a prefix shares nothing
    await store.close();
    expect(await longestValue(file)).toBeLessThan(50); // one row per member, never the whole set
  });

  it('converts a set an earlier version kept as one array, once, when the file is opened', async ({
    tempDir: dir,
  }) => {
    const file = join(dir, 'legacy-set.sqlite');
    // As the earlier version wrote it: keyv's JSON array, with keyv's escape of a leading ':'.
    const plain = new Keyv({ store: new KeyvSqlite({ uri: `sqlite://${file}` }), namespace: 'desk' });
    await plain.set('set:open', ['a', ':colon', 'b']);
    await plain.set('set:other', ['z']);
    await plain.disconnect();
    const store = await createStore(`sqlite://${file}`, { prefix: 'desk' });
    try {
      expect((await store.setMembers('open')).sort()).toEqual([':colon', 'a', 'b']);
      expect(await store.setMembers('other')).toEqual(['z']);
      expect(await store.get('set:open')).toBeUndefined();
      await store.removeFromSet('open', ':colon');
      await store.addToSet('open', 'c');
      expect((await store.setMembers('open')).sort()).toEqual(['a', 'b', 'c']);
    } finally {
      await store.close();
    }
    const again = await createStore(`sqlite://${file}`, { prefix: 'desk' });
    try {
      expect((await again.setMembers('open')).sort()).toEqual(['a', 'b', 'c']);
    } finally {
      await again.close();
    }
  });
});

describe.each([
  ['memory', (_dir: string) => createStore('memory://')],
  ['sqlite', (dir: string) => createStore(`sqlite://${join(dir, `legacy-${Math.random()}.sqlite`)}`)],
])('%s store', (_kind, make) => {
  it('keeps a list written as one array by an earlier version, and appends after it', async ({ tempDir }) => {
    const store = await make(tempDir);
    try {
      await store.set('list:audit', ['one', 'two']);
      expect(await store.listLength('audit')).toBe(2);
      expect(await store.appendToList('audit', 'three')).toBe(3);
      expect(await store.readList('audit', 0, -1)).toEqual(['one', 'two', 'three']);
      expect(await store.get('list:audit')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe.runIf(hasRedis)('redis store', () => {
  it("keeps everything under keyv's namespace, where a plain keyv reads the values", async () => {
    const prefix = testPrefix('layout');
    const store = await createStore(REDIS_URL, { prefix });
    const adapter = new KeyvRedis(REDIS_URL);
    const plain = new Keyv(adapter, { namespace: prefix, useKeyPrefix: false });
    try {
      await store.set('value', { n: 1 });
      await store.setIfAbsent('claim', { owner: 'a' }, 60_000);
      await store.appendToList('audit', { i: 1 });
      await store.addToSet('open', 'r1');
      expect(await plain.get('value')).toEqual({ n: 1 });
      expect(await plain.get('claim')).toEqual({ owner: 'a' });
      const client = await adapter.getClient();
      const keys = (await client.keys(`${prefix}*`)).sort();
      expect(keys).toEqual(
        [`${prefix}::claim`, `${prefix}::list:audit`, `${prefix}::set:open`, `${prefix}::value`].sort(),
      );
      await clearStore(store);
      expect(await client.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await plain.disconnect();
      await store.close();
    }
  });
});
