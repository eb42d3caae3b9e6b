// What only the PostgreSQL store has to prove beyond the shared store suite: a lost database is an
// error and never an absent key, its schema is set up once however many replicas start together,
// what it holds outlives a restart, and its locks are renewed while held and run out when not.
import KeyvPostgres from '@keyv/postgres';
import Keyv from 'keyv';
import pg from 'pg';
import { describe, expect } from 'vitest';
import {
  clearStore,
  createStore,
  LockTimeoutError,
  type Store,
  StoreUnavailableError,
} from '../../src/store/index.js';
import { PostgresStore } from '../../src/store/postgres.js';
import { createTestDatabase, postgresAvailable, relayTo } from '../support/postgres.js';
import { testPrefix } from '../support/redis.js';
import { databaseTest } from '../support/test-database.js';
import { waitUntil } from '../support/webhook-rig.js';

const hasPostgres = await postgresAvailable();
/** `open(prefix)`, a store on the file's test database under `prefix`. */
const it = databaseTest.extend(
  'open',
  ({ database }) =>
    async (prefix: string) =>
      createStore(await database.url(), { prefix }),
);

describe.runIf(hasPostgres)('postgres store', () => {
  // The busy pool's renewals are watched for three leases (6 s of waiting): tests that neither create
  // databases nor hold locks run meanwhile. Tests that run at once take `expect` from their context:
  // the global one follows whichever test started last.
  describe.concurrent('beside a held lock renewed on a busy pool', () => {
    it('keeps renewing a held lock while every pooled connection is busy', async ({ open, expect }) => {
      const prefix = testPrefix('lock-busy-pool');
      const [a, b] = [await open(prefix), await open(prefix)];
      const busy: pg.PoolClient[] = [];
      try {
        // A's pool, taken whole once A holds the lock (a burst of work on that replica): a renewal
        // queued behind it would wait past the lease, and B would take the lock from a live holder. A
        // lease of 2 s: a machine with every core busy still renews well within it (600 ms did not).
        const pool = (a as unknown as { pool: pg.Pool }).pool;
        let entered!: () => void;
        const holding = new Promise<void>((resolve) => (entered = resolve));
        let secondTried!: () => void;
        const secondDone = new Promise<void>((resolve) => (secondTried = resolve));
        const held = a.withLock(
          'approval:r2',
          async () => {
            entered();
            await secondDone;
            return 'done';
          },
          { ttlMs: 2_000 },
        );
        await holding;
        for (let i = 0; i < (pool.options.max ?? 10); i++) busy.push(await pool.connect());
        const secondTry = b.withLock('approval:r2', async () => 'taken', { ttlMs: 2_000, waitMs: 6_000 });
        await expect(secondTry.finally(secondTried)).rejects.toThrow(LockTimeoutError);
        for (const client of busy.splice(0)) client.release();
        expect(await held).toBe('done');
      } finally {
        for (const client of busy) client.release();
        await clearStore(a);
        await a.close();
        await b.close();
      }
    });

    it('reports a lost database as an error, never as an absent key or a lost claim, and recovers', async ({
      database,
      expect,
    }) => {
      const relay = await relayTo(await database.url());
      const store = await createStore(relay.url, { prefix: testPrefix('lost') });
      try {
        await store.set('claimed', 'yes');
        await store.appendToList('audit', 'one');
        relay.cut();
        await expect(store.get('claimed')).rejects.toThrow(StoreUnavailableError);
        await expect(store.get('claimed')).rejects.toThrow(/PostgreSQL at 127\.0\.0\.1:\d+/);
        await expect(store.setIfAbsent('claimed', 'again')).rejects.toThrow(StoreUnavailableError);
        await expect(store.compareAndSet('claimed', 'yes', 'no')).rejects.toThrow(StoreUnavailableError);
        await expect(store.set('other', 1)).rejects.toThrow(StoreUnavailableError);
        await expect(store.readList('audit', 0, -1)).rejects.toThrow(StoreUnavailableError);
        await expect(store.withLock('l', async () => 'ran', { waitMs: 100 })).rejects.toThrow(
          StoreUnavailableError,
        );
        await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
        relay.restore();
        expect(await store.get('claimed')).toBe('yes');
        expect(await store.setIfAbsent('claimed', 'again')).toBe(false);
        expect(await store.readList('audit', 0, -1)).toEqual(['one']);
      } finally {
        await store.close();
        await relay.close();
      }
    });

    it('keeps what it holds across a restart', async ({ open, expect }) => {
      const prefix = testPrefix('restart');
      const first = await open(prefix);
      await first.set('k', { kept: true });
      await first.appendToList('audit', 'one');
      await first.addToSet('open', 'r1');
      await first.close();
      await expect(first.get('k')).rejects.toThrow(StoreUnavailableError);
      const second = await open(prefix);
      try {
        expect(await second.get('k')).toEqual({ kept: true });
        expect(await second.readList('audit', 0, -1)).toEqual(['one']);
        expect(await second.setMembers('open')).toEqual(['r1']);
        await second.ping();
      } finally {
        await clearStore(second);
        await second.close();
      }
    });

    it('sets its statement timeout after connecting, never as a startup parameter a pooler refuses', async ({
      database,
      expect,
    }) => {
      const relay = await relayTo(await database.url());
      const store = await createStore(relay.url, { prefix: testPrefix('startup') });
      try {
        await store.set('k', 'v');
        expect(relay.startups.length).toBeGreaterThan(0);
        // PgBouncer answers "unsupported startup parameter" to anything but a few it knows.
        for (const packet of relay.startups)
          expect(packet.toString('latin1')).not.toContain('statement_timeout');
      } finally {
        await clearStore(store);
        await store.close();
        await relay.close();
      }
    });

    it('writes values where a plain keyv on the same table reads them', async ({
      database,
      open,
      expect,
    }) => {
      const prefix = testPrefix('plain-keyv');
      const store = await open(prefix);
      const plain = new Keyv({ store: new KeyvPostgres({ uri: await database.url() }), namespace: prefix });
      try {
        await store.set('value', { n: 1 });
        await store.setIfAbsent('claim', { owner: 'a' }, 60_000);
        await store.compareAndSet('state', undefined, { step: 1 });
        expect(await plain.get('value')).toEqual({ n: 1 });
        expect(await plain.get('claim')).toEqual({ owner: 'a' });
        expect(await plain.get('state')).toEqual({ step: 1 });
      } finally {
        await plain.disconnect();
        await clearStore(store);
        await store.close();
      }
    });
  });

  // Each creates a database of its own and starts stores on it: they run at once.
  describe.concurrent('on databases of their own', () => {
    it('sets up its schema once when several replicas start on an empty database together', async ({
      expect,
    }) => {
      const fresh = await createTestDatabase();
      const stores: Store[] = [];
      try {
        const started = await Promise.allSettled(
          Array.from({ length: 4 }, () => createStore(fresh.url, { prefix: 'desk' })),
        );
        for (const result of started) if (result.status === 'fulfilled') stores.push(result.value);
        expect(started.filter((r) => r.status === 'rejected')).toEqual([]);
        const raw = new pg.Client(fresh.url);
        await raw.connect();
        const { rows } = await raw.query('SELECT version FROM schema_version');
        await raw.end();
        expect(rows).toEqual([{ version: 2 }]);
        // And they share one store.
        await stores[0]?.set('seen', 1);
        expect(await stores[3]?.get('seen')).toBe(1);
      } finally {
        for (const store of stores) await store.close();
        await fresh.drop();
      }
    });

    it('refuses to start on a database whose schema is newer than it knows', async ({ expect }) => {
      const fresh = await createTestDatabase();
      try {
        await (await createStore(fresh.url)).close();
        const raw = new pg.Client(fresh.url);
        await raw.connect();
        await raw.query('UPDATE schema_version SET version = 99');
        await raw.end();
        await expect(createStore(fresh.url)).rejects.toThrow(/schema is version 99, newer than/);
      } finally {
        await fresh.drop();
      }
    });

    it('starts on a migrated database as a user that may only read and write its tables', async ({
      database,
      expect,
    }) => {
      const fresh = await createTestDatabase();
      const role = `cngn_desk_test_app_${process.pid}_${Date.now()}`;
      const raw = new pg.Client(fresh.url);
      await raw.connect();
      let store: Store | undefined;
      try {
        await (await createStore(fresh.url)).close();
        await raw.query(`CREATE ROLE ${role} LOGIN`);
        await raw.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
        await raw.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
        const asApp = new URL(fresh.url);
        asApp.username = role;
        store = await createStore(asApp.toString(), { prefix: 'desk' });
        expect(await store.setIfAbsent('claim', 'mine', 60_000)).toBe(true);
        expect(await store.appendToList('audit', 'one')).toBe(1);
        expect(await store.withLock('l', async () => store?.get('claim'))).toBe('mine');
      } finally {
        await store?.close();
        await raw.end();
        await fresh.drop();
        const admin = new pg.Client((await database.url()).replace(/\/[^/]*$/, '/postgres'));
        await admin.connect();
        await admin.query(`DROP ROLE IF EXISTS ${role}`);
        await admin.end();
      }
    });
  });

  it('has the server cancel a write the bot gave up on, so it never lands afterwards', async ({
    database,
  }) => {
    const url = await database.url();
    const prefix = testPrefix('cancelled');
    const store = await PostgresStore.connect(url, prefix, { queryTimeoutMs: 2_000 });
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await store.set('freeze', 'frozen');
      // Another session holds the row: the bot's conditional write waits behind it past its timeout.
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM keyv WHERE key = $1 FOR UPDATE', [`${prefix}:freeze`]);
      await expect(store.compareAndSet('freeze', 'frozen', 'lifted')).rejects.toThrow(StoreUnavailableError);
      // The server has ended the statement itself, before the row is let go: no session still waits on
      // the holder's lock (asked of this session's own waiters, not of every database's UPDATEs, which
      // other files' bots run at the same time).
      const waiting = async () => {
        const { rows } = await holder.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pg_backend_pid() = ANY(pg_blocking_pids(pid))`,
        );
        return rows.length > 0;
      };
      await waitUntil(async () => !(await waiting()));
      await holder.query('ROLLBACK');
      expect(await store.get('freeze')).toBe('frozen');
    } finally {
      await holder.end();
      await clearStore(store);
      await store.close();
    }
  });

  it('keeps a lock past its TTL while the holder runs', async ({ open }) => {
    const prefix = testPrefix('lock-renewed');
    const [a, b] = [await open(prefix), await open(prefix)];
    try {
      let entered!: () => void;
      const holding = new Promise<void>((resolve) => (entered = resolve));
      let secondTried!: () => void;
      const secondDone = new Promise<void>((resolve) => (secondTried = resolve));
      // A holds until B has waited three TTLs and given up, renewing all along.
      const held = a.withLock(
        'approval:r1',
        async () => {
          entered();
          await secondDone;
          return 'done';
        },
        { ttlMs: 300 },
      );
      await holding;
      const secondTry = b.withLock('approval:r1', async () => 'taken', { ttlMs: 300, waitMs: 900 });
      await expect(secondTry.finally(secondTried)).rejects.toThrow(LockTimeoutError);
      expect(await held).toBe('done');
      expect(await b.withLock('approval:r1', async () => 'taken after release')).toBe('taken after release');
    } finally {
      await clearStore(a);
      await a.close();
      await b.close();
    }
  });

  it('lets a crowd of 200 waiters over two replicas through one lock, one at a time', async ({ open }) => {
    const prefix = testPrefix('lock-crowd');
    const [a, b] = [await open(prefix), await open(prefix)];
    try {
      let inside = 0;
      let most = 0;
      let done = 0;
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          (i % 2 ? a : b).withLock('approval:busy', async () => {
            inside += 1;
            most = Math.max(most, inside);
            await Promise.resolve();
            inside -= 1;
            done += 1;
          }),
        ),
      );
      expect(done).toBe(200);
      expect(most).toBe(1);
    } finally {
      await clearStore(a);
      await a.close();
      await b.close();
    }
  });

  it("lets another replica take a lock once its dead holder's lease has run out", async ({ open }) => {
    const prefix = testPrefix('lock-dead');
    const [a, b] = [await open(prefix), await open(prefix)];
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    let wake!: () => void;
    const stuck = a.withLock(
      'approval:r2',
      () => {
        entered();
        return new Promise<void>((resolve) => (wake = resolve));
      },
      { ttlMs: 300 },
    );
    try {
      await holding;
      await a.close(); // A's connections are gone: it can no longer renew (nor release)
      expect(await b.withLock('approval:r2', async () => 'taken', { waitMs: 5_000 })).toBe('taken');
    } finally {
      wake();
      await stuck;
      await clearStore(b);
      await b.close();
    }
  });
});
