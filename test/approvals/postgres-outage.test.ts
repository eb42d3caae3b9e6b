// PostgreSQL going away while requests are approved and sent: nothing is sent on a claim the store
// did not confirm, nothing is recorded from a store error, and once the database is back each
// request is sent exactly once, or found in the service's list rather than sent again.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { clearStore, createStore } from '../../src/store/index.js';
import { APPROVER_A, replicasTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { createTestDatabase, postgresAvailable, relayTo } from '../support/postgres.js';
import { testPrefix } from '../support/redis.js';

const hasPostgres = await postgresAvailable();

/**
 * `database`, one for the file, dropped when it ends; `start(name)`, an engine on it through a relay
 * the test can cut, its store under a prefix of its own, and the network to withdraw on. The relay is
 * restored before the engine stops, and the store cleared after it.
 */
const test = replicasTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('database', { scope: 'file' }, async ({}, { onCleanup }) => {
    const database = await createTestDatabase();
    onCleanup(() => database.drop());
    return database;
  })
  .extend('start', async ({ database, startEngine, defer }) => {
    return async (name: string) => {
      const relay = await relayTo(database.url);
      defer(() => relay.close());
      const store = await createStore(relay.url, { prefix: testPrefix(name) });
      defer(async () => {
        await clearStore(store);
        await store.close();
      });
      // The answer's write is retried for a short while only: the outage outlasts it.
      const fx = await startEngine({
        store,
        engine: { recordRetry: { firstDelayMs: 5, maxDelayMs: 20, forMs: 100 } },
      });
      defer(() => relay.restore());
      const [networkId = ''] = await twoNetworks(fx.client);
      return { relay, fx, networkId };
    };
  });

describe.runIf(hasPostgres)('approvals through a PostgreSQL outage', () => {
  // One sandbox for the describe, as the tests count its calls from where each starts.
  test.override('storeKind', 'PostgreSQL');

  test('sends nothing while the database is away, then sends the approved request once', async ({
    sandbox,
    start,
  }) => {
    const { relay, fx, networkId } = await start('outage-before-claim');
    const before = sandbox.count('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '4100'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A); // approved; not started
    relay.cut();
    await expect(partsOf(fx.engine).executor.execute(request.id)).rejects.toThrow(/PostgreSQL/);
    await expect(fx.engine.tick()).rejects.toThrow(/PostgreSQL/);
    expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(0);
    relay.restore();
    await fx.engine.tick();
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('sent');
    await fx.engine.tick();
    expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
  });

  test('never resends a call whose answer could not be stored; it finds it in the transaction list', async ({
    sandbox,
    start,
  }) => {
    const { relay, fx, networkId } = await start('outage-after-call');
    const before = sandbox.count('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '4200'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A);
    const held = sandbox.hold('POST', '/v1/api/withdraw');
    const running = partsOf(fx.engine)
      .executor.execute(request.id)
      .catch((error: unknown) => error);
    await held.arrived; // the call is at the service
    relay.cut();
    held.release(); // it answers; the answer cannot be stored
    expect(String(await running)).toMatch(/AnswerNotRecordedError.*PostgreSQL/);
    relay.restore();
    // Not recorded as sent or failed from the store error: still executing under its lease.
    expect((await fx.engine.get(request.id))?.state).toBe('executing');
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('executing');
    // Once the lease has run out, the request is looked up, not sent again.
    fx.clock.advance(EXECUTION_LEASE_MS + 1);
    await fx.engine.tick();
    await fx.engine.idle();
    const after = await fx.engine.get(request.id);
    expect(after?.history.map((h) => h.action)).toEqual(
      expect.arrayContaining(['interrupted', 'reconciled']),
    );
    expect(after?.state).toBe('sent');
    expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
  });
});
