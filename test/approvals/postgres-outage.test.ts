// PostgreSQL going away while requests are approved and sent: nothing is sent on a claim the store
// did not confirm, nothing is recorded from a store error, and once the database is back each
// request is sent exactly once, or found in the service's list rather than sent again.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearStore, createStore, type Store } from '../../src/store/index.js';
import {
  APPROVER_A,
  type EngineFixture,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { postgresAvailable, type Relay, relayTo, testDatabaseOnce } from '../support/postgres.js';
import { testPrefix } from '../support/redis.js';

const hasPostgres = await postgresAvailable();
const database = testDatabaseOnce();
afterAll(() => database.drop());

describe.runIf(hasPostgres)('approvals through a PostgreSQL outage', () => {
  let sandbox: Sandbox;
  let relay: Relay;
  let store: Store;
  let fx: EngineFixture;
  let networkId: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  });
  afterAll(async () => {
    await sandbox.stop();
  });
  afterEach(async () => {
    relay.restore();
    await fx.close();
    await clearStore(store);
    await store.close();
    await relay.close();
  });

  async function start(name: string): Promise<void> {
    relay = await relayTo(await database.url());
    store = await createStore(relay.url, { prefix: testPrefix(name) });
    // The answer's write is retried for a short while only: the outage outlasts it.
    fx = await startEngineFixture({
      sandbox,
      store,
      engine: { recordRetry: { firstDelayMs: 5, maxDelayMs: 20, forMs: 100 } },
    });
    [networkId = ''] = await twoNetworks(fx.client);
  }

  const withdrawal = (amount: string) => withdrawalDraft(networkId, amount);

  it('sends nothing while the database is away, then sends the approved request once', async () => {
    await start('outage-before-claim');
    const before = sandbox.count('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawal('4100'));
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

  it('never resends a call whose answer could not be stored; it finds it in the transaction list', async () => {
    await start('outage-after-call');
    const before = sandbox.count('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawal('4200'));
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
