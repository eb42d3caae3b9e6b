// The stores several replicas can share (Redis, PostgreSQL), for replica tests that run on each one
// that answers: two stores opened with one prefix behave like two replicas. everyStore adds the
// in-process ones (memory, SQLite), for what must hold whatever the store.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { clearStore, createStore, type Store } from '../../src/store/index.js';
import { inMemoryDir, test } from './fixtures.js';
import { postgresAvailable, testDatabaseOnce } from './postgres.js';
import { REDIS_URL, redisAvailable, testPrefix } from './redis.js';

export interface SharedStore {
  name: 'Redis' | 'PostgreSQL';
  /** False when none answers (tests skip, with the notice already printed). */
  up: boolean;
  open(prefix: string): Promise<Store>;
  /** Remove what was made for this test file (call in afterAll). */
  dispose(): Promise<void>;
}

export async function sharedStores(): Promise<SharedStore[]> {
  const [redisUp, postgresUp] = await Promise.all([redisAvailable(), postgresAvailable()]);
  const database = testDatabaseOnce();
  return [
    {
      name: 'Redis',
      up: redisUp,
      open: (prefix) => createStore(REDIS_URL, { prefix }),
      dispose: async () => {},
    },
    {
      name: 'PostgreSQL',
      up: postgresUp,
      open: async (prefix) => createStore(await database.url(), { prefix }),
      dispose: database.drop,
    },
  ];
}

export interface StoreKindUnderTest {
  name: 'memory' | 'SQLite' | 'Redis' | 'PostgreSQL';
  up: boolean;
  /**
   * Two replicas' handles on one store: their own connections on Redis and PostgreSQL, the one store
   * of the process on memory and SQLite (held by one process at a time). `close` closes both and
   * removes what the test wrote.
   */
  replicas(prefix: string): Promise<{ a: Store; b: Store; close(): Promise<void> }>;
  /** One replica's handle on a store, for a test that needs no second: `close` as for replicas. */
  replica(prefix: string): Promise<{ store: Store; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

/**
 * Every store kind, for tests of what must hold on each: the in-process ones and the shared ones. The
 * SQLite files are in memory where the system has one (inMemoryDir): these tests are about what the
 * replicas write and read back, not what survives a power cut, and a sync per commit on a shared disk
 * was most of a SQLite test's time.
 */
async function everyStore(): Promise<StoreKindUnderTest[]> {
  const dir = inMemoryDir();
  const local = (name: 'memory' | 'SQLite', url: (prefix: string) => string): StoreKindUnderTest => ({
    name,
    up: true,
    replicas: async (prefix) => {
      const store = await createStore(url(prefix), { prefix });
      return { a: store, b: store, close: () => store.close() };
    },
    replica: async (prefix) => {
      const store = await createStore(url(prefix), { prefix });
      return { store, close: () => store.close() };
    },
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  });
  const shared = (await sharedStores()).map(
    (kind): StoreKindUnderTest => ({
      name: kind.name,
      up: kind.up,
      replicas: async (prefix) => {
        const a = await kind.open(prefix);
        const b = await kind.open(prefix);
        return {
          a,
          b,
          close: async () => {
            await clearStore(a);
            await a.close();
            await b.close();
          },
        };
      },
      replica: async (prefix) => {
        const store = await kind.open(prefix);
        return {
          store,
          close: async () => {
            await clearStore(store);
            await store.close();
          },
        };
      },
      dispose: kind.dispose,
    }),
  );
  return [
    local('memory', () => 'memory://'),
    local('SQLite', (prefix) => `sqlite://${join(dir, `${prefix.replace(/[^a-z0-9]+/gi, '-')}.sqlite`)}`),
    ...shared,
  ];
}

export type StoreKindName = StoreKindUnderTest['name'];

/** Each store kind and whether it answers here, for `describe.skipIf` while a file is collected. */
export const STORE_KINDS: ReadonlyArray<{ name: StoreKindName; up: boolean; shared: boolean }> =
  await (async () => {
    const [redisUp, postgresUp] = await Promise.all([redisAvailable(), postgresAvailable()]);
    return [
      { name: 'memory', up: true, shared: false },
      { name: 'SQLite', up: true, shared: false },
      { name: 'Redis', up: redisUp, shared: true },
      { name: 'PostgreSQL', up: postgresUp, shared: true },
    ];
  })();

/** Two replicas' handles on one store (see StoreKindUnderTest.replicas). */
export interface Replicas {
  a: Store;
  b: Store;
}

/** The four stores, opened once per file and disposed after it (the `storeKinds` fixture). */
export async function fileStoreKinds(
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  {}: object,
  { onCleanup }: { onCleanup: (cleanup: () => Promise<void>) => void },
): Promise<StoreKindUnderTest[]> {
  const kinds = await everyStore();
  onCleanup(async () => {
    for (const kind of kinds) await kind.dispose();
  });
  return kinds;
}

/** What the replica fixtures need: the file's store kinds, the test's kind, and the test's `defer`. */
interface ReplicaNeeds {
  storeKinds: StoreKindUnderTest[];
  storeKind: StoreKindName;
  defer: (cleanup: () => unknown) => void;
}

/**
 * A fixture whose value is the opener of the test's `storeKind`: `(name)` opens `handles` with `open`
 * under a prefix of the test's own, cleared and closed after the test.
 */
function openerOf<Handles>(
  open: (kind: StoreKindUnderTest, prefix: string) => Promise<{ handles: Handles; close(): Promise<void> }>,
) {
  // vitest reads what a fixture needs from its first parameter's pattern.
  return async ({
    storeKinds,
    storeKind,
    defer,
  }: ReplicaNeeds): Promise<(name: string) => Promise<Handles>> => {
    const kind = storeKinds.find((k) => k.name === storeKind);
    if (!kind?.up) throw new Error(`no ${storeKind} store here`);
    return async (name: string): Promise<Handles> => {
      const { handles, close } = await open(kind, testPrefix(name));
      defer(close);
      return handles;
    };
  };
}

/** `replicas(name)`: two replicas on the test's `storeKind`, cleared and closed after the test. */
export const replicasOn = openerOf<Replicas>(async (kind, prefix) => {
  const { a, b, close } = await kind.replicas(prefix);
  return { handles: { a, b }, close };
});

/** `oneReplica(name)`: one replica's handle on the test's `storeKind`, cleared and closed after the test. */
export const oneReplicaOn = openerOf<Store>(async (kind, prefix) => {
  const { store, close } = await kind.replica(prefix);
  return { handles: store, close };
});

/**
 * `test` plus the four stores. A describe per kind of STORE_KINDS sets `storeKind` with
 * `test.override('storeKind', kind.name)`; `replicas(name)` opens two replicas on it under a prefix of
 * their own, `oneReplica(name)` one, cleared and closed after the test.
 */
export const storesTest = test
  .extend('storeKinds', { scope: 'file' }, fileStoreKinds)
  .extend('storeKind', 'memory' as StoreKindName)
  .extend('replicas', replicasOn)
  .extend('oneReplica', oneReplicaOn);
