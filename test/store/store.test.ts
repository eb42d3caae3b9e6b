import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { clearStore, createStore, type Store } from '../../src/store/index.js';
import { postgresAvailable, type testDatabaseOnce } from '../support/postgres.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';
import { memoryDatabaseTest as it } from '../support/test-database.js';

const hasRedis = await redisAvailable();
const hasPostgres = await postgresAvailable();

/** Where a store of each kind is made: the file's temporary directory and test database (fixtures). */
interface Places {
  tempDir: string;
  database: ReturnType<typeof testDatabaseOnce>;
}

/** A prefix of a store's own: tests running together never share keys (testPrefix's ms can repeat). */
const ownPrefix = () => testPrefix(`store-${Math.random()}`);

const kinds: Array<[string, (at: Places) => Promise<Store>, boolean]> = [
  ['memory', () => createStore('memory://'), true],
  ['sqlite', ({ tempDir }) => createStore(`sqlite://${join(tempDir, `s-${Math.random()}.sqlite`)}`), true],
  ['redis', () => createStore(REDIS_URL, { prefix: ownPrefix() }), hasRedis],
  [
    'postgres',
    async ({ database }) => createStore(await database.url(), { prefix: ownPrefix() }),
    hasPostgres,
  ],
];

describe.each(kinds)('%s store', (_kind, make, enabled) => {
  it.runIf(enabled)('gets, sets with TTL and deletes JSON values', async ({ tempDir, database }) => {
    const store = await make({ tempDir, database });
    try {
      await store.set('a', { n: 1, s: 'x' });
      expect(await store.get('a')).toEqual({ n: 1, s: 'x' });
      await store.set('short', 1, 30);
      await expect.poll(() => store.get('short'), { interval: 10 }).toBeUndefined();
      expect(await store.delete('a')).toBe(true);
      expect(await store.get('a')).toBeUndefined();
    } finally {
      await clearStore(store);
      await store.close();
    }
  });

  it.runIf(enabled)(
    'reads several keys in one call, in the order asked, expired ones as absent',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        await store.set('one', { n: 1 });
        await store.set('two', 'second');
        await store.set('brief', 'gone soon', 30);
        expect(await store.getMany([])).toEqual([]);
        expect(await store.getMany(['two', 'none', 'one'])).toEqual(['second', undefined, { n: 1 }]);
        await expect
          .poll(() => store.getMany(['brief', 'one']), { interval: 10 })
          .toEqual([undefined, { n: 1 }]);
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'tells exactly one of many concurrent deletes of a key that it removed it',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        for (let round = 0; round < 5; round++) {
          await store.set(`once-${round}`, { used: false });
          const results = await Promise.all(Array.from({ length: 20 }, () => store.delete(`once-${round}`)));
          expect(results.filter(Boolean)).toHaveLength(1);
        }
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'lets exactly one of many concurrent setIfAbsent calls win',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.setIfAbsent('claim', i)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('claim')).toBe(results.indexOf(true));
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'writes with compare-and-set only over the value read, once among racing writers',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        expect(await store.compareAndSet('state', undefined, { step: 1 })).toBe(true);
        expect(await store.compareAndSet('state', undefined, { step: 9 })).toBe(false);
        expect(await store.compareAndSet('state', { step: 2 }, { step: 9 })).toBe(false);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.compareAndSet('state', { step: 1 }, { step: 2, by: i })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('state')).toEqual({ step: 2, by: results.indexOf(true) });
        // An expired value counts as nothing: written over as absent, never as what it held.
        // Its twin, set after it with the same TTL, tells when it has run out without reading it (a
        // read could drop it, and the write below would then meet no value rather than an expired one).
        await store.set('lease', 'old', 30);
        await store.set('lease-twin', 'old', 30);
        await expect.poll(() => store.get('lease-twin'), { interval: 10 }).toBeUndefined();
        expect(await store.compareAndSet('lease', 'old', 'new')).toBe(false);
        expect(await store.compareAndSet('lease', undefined, 'new')).toBe(true);
        expect(await store.get('lease')).toBe('new');
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'never lets a compare-and-set win beside a compare-and-delete or a claim it raced',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        for (let round = 0; round < 30; round++) {
          await store.setIfAbsent(`held-${round}`, 'owner-A', 60_000);
          const [set, deleted] = await Promise.all([
            store.compareAndSet(`held-${round}`, 'owner-A', 'owner-B'),
            store.compareAndDelete(`held-${round}`, 'owner-A'),
          ]);
          expect([set, deleted].filter(Boolean)).toHaveLength(1);
          expect(await store.get(`held-${round}`)).toBe(set ? 'owner-B' : undefined);
          const [written, claimed] = await Promise.all([
            store.compareAndSet(`free-${round}`, undefined, 'by-set'),
            round % 2
              ? store.setIfAbsent(`free-${round}`, 'by-claim', 60_000)
              : store.claimAndWrite({ key: `free-${round}`, value: 'by-claim' }, []),
          ]);
          expect([written, claimed].filter(Boolean)).toHaveLength(1);
          expect(await store.get(`free-${round}`)).toBe(written ? 'by-set' : 'by-claim');
        }
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'claims and writes together, or writes nothing when the claim is already held',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        await store.set('final', 'earlier');
        await store.set('tail', 'older');
        await store.addToSet('pending', 'old');
        const won = await store.claimAndWrite({ key: 'entry', value: { id: 'e1' } }, [
          { kind: 'addToSet', set: 'pending', member: 'e1' },
          { kind: 'set', key: 'tail', value: 'e1', ttlMs: 60_000 },
          { kind: 'setIfAbsent', key: 'final', value: 'mine' },
          { kind: 'setIfAbsent', key: 'other-final', value: 'mine', ttlMs: 60_000 },
          { kind: 'addToSet', set: ':colon set', member: ':colon member' },
        ]);
        expect(won).toBe(true);
        expect(await store.get('entry')).toEqual({ id: 'e1' });
        expect(await store.get('tail')).toBe('e1');
        expect(await store.get('final')).toBe('earlier'); // set-if-absent: what was there stays
        expect(await store.get('other-final')).toBe('mine');
        expect((await store.setMembers('pending')).sort()).toEqual(['e1', 'old']);
        expect(await store.setMembers(':colon set')).toEqual([':colon member']);
        // The claim is held: none of the writes happen.
        const again = await store.claimAndWrite({ key: 'entry', value: { id: 'e2' } }, [
          { kind: 'addToSet', set: 'pending', member: 'e2' },
          { kind: 'set', key: 'tail', value: 'e2' },
          { kind: 'setIfAbsent', key: 'third', value: 'e2' },
        ]);
        expect(again).toBe(false);
        expect(await store.get('entry')).toEqual({ id: 'e1' });
        expect(await store.get('tail')).toBe('e1');
        expect(await store.get('third')).toBeUndefined();
        expect((await store.setMembers('pending')).sort()).toEqual(['e1', 'old']);
        // A member already in the set stays once, beside a new set and a replaced key.
        const more = await store.claimAndWrite({ key: 'entry-3', value: 3 }, [
          { kind: 'addToSet', set: 'pending', member: 'e1' },
          { kind: 'addToSet', set: 'pending-2', member: 'e3' },
          { kind: 'set', key: 'tail', value: 'e3' },
        ]);
        expect(more).toBe(true);
        expect((await store.setMembers('pending')).sort()).toEqual(['e1', 'old']);
        expect(await store.setMembers('pending-2')).toEqual(['e3']);
        expect(await store.get('tail')).toBe('e3');
        // A set written this way is the same set for the other set operations.
        await store.removeFromSet('pending', 'old');
        await store.addToSet('pending', 'e1');
        expect(await store.setMembers('pending')).toEqual(['e1']);
        await expect(
          store.claimAndWrite({ key: 'twice', value: 1 }, [{ kind: 'set', key: 'twice', value: 2 }]),
        ).rejects.toThrow(/twice/);
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)(
    'lets exactly one of many concurrent claimAndWrite calls win, and only its writes land',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        // Each racer also adds to a shared set and removes from it, so no change to the set is lost.
        await Promise.all(Array.from({ length: 10 }, (_, i) => store.addToSet('shared', `gone-${i}`)));
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            Promise.all([
              store.claimAndWrite({ key: 'claim', value: i, ttlMs: 60_000 }, [
                { kind: 'set', key: 'winner', value: i },
                { kind: 'addToSet', set: 'winners', member: `racer-${i}` },
              ]),
              store.claimAndWrite({ key: `own-${i}`, value: i }, [
                { kind: 'addToSet', set: 'shared', member: `kept-${i}` },
              ]),
              i < 10 ? store.removeFromSet('shared', `gone-${i}`) : Promise.resolve(),
            ]),
          ),
        );
        const winners = results.map(([won], i) => (won ? i : -1)).filter((i) => i >= 0);
        expect(winners).toHaveLength(1);
        expect(await store.get('claim')).toBe(winners[0]);
        expect(await store.get('winner')).toBe(winners[0]);
        expect(await store.setMembers('winners')).toEqual([`racer-${winners[0]}`]);
        expect((await store.setMembers('shared')).sort()).toEqual(
          Array.from({ length: 30 }, (_, i) => `kept-${i}`).sort(),
        );
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)('runs lock holders one at a time', async ({ tempDir, database }) => {
    const store = await make({ tempDir, database });
    try {
      let inside = 0;
      let maxInside = 0;
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.withLock('l', async () => {
            inside++;
            maxInside = Math.max(maxInside, inside);
            await new Promise((r) => setTimeout(r, 2));
            inside--;
          }),
        ),
      );
      expect(maxInside).toBe(1);
    } finally {
      await clearStore(store);
      await store.close();
    }
  });

  it.runIf(enabled)('keeps append-only lists and sets', async ({ tempDir, database }) => {
    const store = await make({ tempDir, database });
    try {
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.appendToList('log', { i })));
      expect(await store.listLength('log')).toBe(10);
      expect((await store.readList<{ i: number }>('log', -3, -1)).length).toBe(3);
      const all = await store.readList<{ i: number }>('log', 0, -1);
      expect(all.map((item) => item.i).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Out-of-range indexes are clipped, an empty range is empty, as Redis LRANGE does.
      expect(await store.readList('log', -100, 1)).toEqual(all.slice(0, 2));
      expect(await store.readList('log', 8, 100)).toEqual(all.slice(8));
      expect(await store.readList('log', 5, 2)).toEqual([]);
      expect(await store.readList('none', 0, -1)).toEqual([]);
      expect(await store.listLength('none')).toBe(0);
      await store.addToSet('s', 'a');
      await store.addToSet('s', 'b');
      await store.addToSet('s', 'a');
      await store.removeFromSet('s', 'b');
      expect(await store.setMembers('s')).toEqual(['a']);
    } finally {
      await clearStore(store);
      await store.close();
    }
  });

  it.runIf(enabled)(
    'reads several sets in one call, in the order asked, empty where none',
    async ({ tempDir, database }) => {
      const store = await make({ tempDir, database });
      try {
        await store.addToSet('shard:1', 'b');
        await store.addToSet('shard:1', 'a');
        await store.addToSet('shard:10', 'c');
        await store.addToSet(':colon', ':member');
        await store.addToSet('gone', 'x');
        await store.removeFromSet('gone', 'x');
        expect(await store.setMembersMany([])).toEqual([]);
        const read = await store.setMembersMany(['shard:10', 'none', 'shard:1', 'gone', ':colon', 'shard:1']);
        expect(read.map((members) => [...members].sort())).toEqual([
          ['c'],
          [],
          ['a', 'b'],
          [],
          [':member'],
          ['a', 'b'],
        ]);
        // Each set as setMembers reads it, in its order.
        expect(read[2]).toEqual(await store.setMembers('shard:1'));
        // More sets than SQLite reads in one statement.
        await store.addToSet('many:149', 'last');
        const many = await store.setMembersMany(Array.from({ length: 150 }, (_, i) => `many:${i}`));
        expect(many.length).toBe(150);
        expect(many.slice(0, 149).flat()).toEqual([]);
        expect(many[149]).toEqual(['last']);
      } finally {
        await clearStore(store);
        await store.close();
      }
    },
  );

  it.runIf(enabled)('deletes a whole list, which then starts afresh', async ({ tempDir, database }) => {
    const store = await make({ tempDir, database });
    try {
      for (let i = 0; i < 3; i++) await store.appendToList('gone', { i });
      await store.appendToList('kept', 'x');
      await store.deleteList('gone');
      expect(await store.listLength('gone')).toBe(0);
      expect(await store.readList('gone', 0, -1)).toEqual([]);
      expect(await store.readList('kept', 0, -1)).toEqual(['x']);
      await store.appendToList('gone', { i: 9 });
      expect(await store.readList('gone', 0, -1)).toEqual([{ i: 9 }]);
    } finally {
      await clearStore(store);
      await store.close();
    }
  });
});

// Each waits for a lease of its own to run out (a second, so that a busy machine cannot outlast it
// between a test's first calls): on stores of their own, the waits of every kind overlap. Tests that
// run at once take `expect` from their context: the global one follows whichever test started last.
describe.concurrent('once a lease has run out', () => {
  for (const [kind, make, enabled] of kinds) {
    it.runIf(enabled)(
      `keeps a value holding a NUL character or a lone surrogate readable, claimable and expiring (${kind} store)`,
      async ({ tempDir, database, expect }) => {
        const store = await make({ tempDir, database });
        const odd = { name: 'ADA\u0000 SONS', mark: '\ud83d', ok: 'é' };
        try {
          await store.set('odd', odd);
          expect(await store.get('odd')).toEqual(odd);
          await store.set('plain', 1);
          expect(await store.getMany(['odd', 'plain'])).toEqual([odd, 1]);
          // A claim holding such a value is held until it expires, then taken over.
          // A lease long enough that a busy machine cannot outlast it between the two claims.
          expect(await store.setIfAbsent('claim', odd, 1_000)).toBe(true);
          expect(await store.setIfAbsent('claim', 'second', 1_000)).toBe(false);
          await expect.poll(() => store.get('claim'), { timeout: 10_000, interval: 50 }).toBeUndefined();
          // The value's own expiry is reckoned from before it was sent, Redis's from when it arrived:
          // on a busy machine the key outlives what a read says by the trip, so the claim is polled.
          await expect
            .poll(() => store.setIfAbsent('claim', 'third'), { timeout: 10_000, interval: 50 })
            .toBe(true);
          expect(await store.get('claim')).toBe('third');
        } finally {
          await clearStore(store);
          await store.close();
        }
      },
    );

    it.runIf(enabled)(
      `lets a claim be taken again once it has expired (${kind} store)`,
      async ({ tempDir, database, expect }) => {
        const store = await make({ tempDir, database });
        try {
          // A TTL long enough that a loaded machine cannot let it run out between the first two calls.
          expect(await store.setIfAbsent('lease', 'first', 1_000)).toBe(true);
          expect(await store.setIfAbsent('lease', 'second', 1_000)).toBe(false);
          await new Promise((r) => setTimeout(r, 1_100));
          expect(await store.setIfAbsent('lease', 'third')).toBe(true);
          expect(await store.get('lease')).toBe('third');
          expect(await store.setIfAbsent('lease', 'fourth')).toBe(false);
        } finally {
          await clearStore(store);
          await store.close();
        }
      },
    );

    it.runIf(enabled)(
      `takes an expired claim again with claimAndWrite, and expires its writes (${kind} store)`,
      async ({ tempDir, database, expect }) => {
        const store = await make({ tempDir, database });
        try {
          expect(await store.claimAndWrite({ key: 'lease', value: 'first', ttlMs: 1_000 }, [])).toBe(true);
          expect(await store.claimAndWrite({ key: 'lease', value: 'second' }, [])).toBe(false);
          expect(
            await store.claimAndWrite({ key: 'other', value: 1 }, [
              { kind: 'set', key: 'short', value: 'x', ttlMs: 1_000 },
              { kind: 'setIfAbsent', key: 'short-claim', value: 'x', ttlMs: 1_000 },
            ]),
          ).toBe(true);
          await new Promise((r) => setTimeout(r, 1_100));
          expect(await store.get('short')).toBeUndefined();
          expect(
            await store.claimAndWrite({ key: 'lease', value: 'third' }, [
              { kind: 'setIfAbsent', key: 'short-claim', value: 'y' },
            ]),
          ).toBe(true);
          expect(await store.get('lease')).toBe('third');
          expect(await store.get('short-claim')).toBe('y');
        } finally {
          await clearStore(store);
          await store.close();
        }
      },
    );
  }
});

describe('sqlite store', () => {
  it('reports a failing database as an error, never as an absent key', async ({ tempDir: dir }) => {
    const store = await createStore(`sqlite://${join(dir, 'failing.sqlite')}`);
    await store.set('claimed', 'yes');
    await store.close(); // every query now fails
    await expect(store.get('claimed')).rejects.toThrow();
    await expect(store.set('other', 1)).rejects.toThrow();
    await expect(store.setIfAbsent('claimed', 'again')).rejects.toThrow();
  });

  it('never lets two connections to one file both win a claim', async ({ tempDir: dir }) => {
    const file = join(dir, 'two-connections.sqlite');
    const [one, two] = [await createStore(`sqlite://${file}`), await createStore(`sqlite://${file}`)];
    try {
      const keys = Array.from({ length: 200 }, (_, i) => `claim:${i}`);
      const results = await Promise.all(
        keys.flatMap((key) => [one.setIfAbsent(key, 'one'), two.setIfAbsent(key, 'two')]),
      );
      expect(results.filter(Boolean)).toHaveLength(200);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('keeps what it holds across a restart', async ({ tempDir: dir }) => {
    const file = join(dir, 'restart.sqlite');
    const first = await createStore(`sqlite://${file}`);
    await first.set('k', { kept: true });
    await first.appendToList('audit', 'one');
    await first.close();
    const second = await createStore(`sqlite://${file}`);
    expect(await second.get('k')).toEqual({ kept: true });
    expect(await second.readList('audit', 0, -1)).toEqual(['one']);
    await second.close();
  });
});
