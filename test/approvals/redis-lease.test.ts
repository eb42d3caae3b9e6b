// Two replicas sharing one store (Redis, PostgreSQL): one starting up while the other is mid-call
// leaves the call alone (the caller holds a lease); only a lease that ran out is taken over: as outcome
// unknown, never resent, once the call was marked as sending; sent by the other replica when it never was.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import type { RequestDraft } from '../../src/approvals/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearStore, type Store } from '../../src/store/index.js';
import {
  APPROVER_A,
  DEST,
  type EngineFixture,
  REQUESTER,
  startEngineFixture,
  twoNetworks,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { testPrefix } from '../support/redis.js';
import { sharedStores } from '../support/shared-stores.js';

const shared = await sharedStores();
afterAll(async () => {
  for (const kind of shared) await kind.dispose();
});

for (const { name: storeName, up, open: openStore } of shared) {
  describe.skipIf(!up)(`execution leases across two replicas on one ${storeName}`, () => {
    let sandbox: Sandbox;
    const stores: Store[] = [];
    const open: EngineFixture[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    });
    afterEach(async () => {
      for (const fx of open.splice(0)) await fx.close();
      if (stores[0]) await clearStore(stores[0]);
      for (const store of stores.splice(0)) await store.close();
    });
    afterAll(async () => {
      await sandbox.stop();
    });

    /** Replicas on one store, each with its own connection (and its own clock). */
    async function replicas(name: string, count = 2): Promise<EngineFixture[]> {
      const prefix = testPrefix(name);
      for (let i = 0; i < count; i++) stores.push(await openStore(prefix));
      for (const store of stores) open.push(await startEngineFixture({ sandbox, store }));
      return open;
    }
    const withdrawal = (amount: string, networkId: string): RequestDraft => ({
      kind: 'withdraw',
      amount,
      payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    });

    it('leaves a call another live replica is making alone when it starts up', async () => {
      const [a, b] = (await replicas('approvals-lease-live')) as [EngineFixture, EngineFixture];
      const [networkId] = await twoNetworks(a.client);
      const before = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(a.engine, withdrawal('2100', networkId));
      const held = sandbox.hold('POST', '/v1/api/withdraw');
      await a.engine.approve(request.id, APPROVER_A);
      await held.arrived; // A is mid-call
      await b.engine.start();
      await b.engine.idle();
      expect((await b.engine.get(request.id))?.state).toBe('executing');
      held.release();
      await a.engine.idle();
      const after = await b.engine.get(request.id);
      expect(after?.state).toBe('sent');
      expect(after?.history.map((h) => h.action)).not.toContain('interrupted');
      expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
    });

    it('sends, once, a claim whose replica died before marking it as sending, once its lease ran out', async () => {
      const [a, b] = (await replicas('approvals-lease-unmarked')) as [EngineFixture, EngineFixture];
      const [networkId] = await twoNetworks(a.client);
      const before = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(a.engine, withdrawal('2150', networkId));
      await partsOf(a.engine).core.approve(request.id, APPROVER_A);
      await partsOf(a.engine).executor.claimExecution(request.id); // then A dies before its write-ahead mark
      await b.engine.start();
      await b.engine.idle();
      expect((await b.engine.get(request.id))?.state).toBe('executing');
      b.clock.advance(EXECUTION_LEASE_MS + 1);
      await b.engine.tick();
      await b.engine.idle();
      const after = await b.engine.get(request.id);
      expect(after?.state).toBe('sent');
      expect(after?.history.map((h) => h.action)).toContain('released');
      expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
    });

    it('has exactly one of two live replicas send a claim whose replica died before marking it', async () => {
      const [a, b, c] = (await replicas('approvals-lease-unmarked-race', 3)) as [
        EngineFixture,
        EngineFixture,
        EngineFixture,
      ];
      const [networkId] = await twoNetworks(a.client);
      const before = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(a.engine, withdrawal('2160', networkId));
      await partsOf(a.engine).core.approve(request.id, APPROVER_A);
      await partsOf(a.engine).executor.claimExecution(request.id); // then A dies before its write-ahead mark
      b.clock.advance(EXECUTION_LEASE_MS + 1);
      c.clock.advance(EXECUTION_LEASE_MS + 1);
      await Promise.all([b.engine.tick(), c.engine.tick()]);
      await Promise.all([b.engine.idle(), c.engine.idle()]);
      const after = await b.engine.get(request.id);
      expect(after?.state).toBe('sent');
      expect(after?.history.filter((h) => h.action === 'released')).toHaveLength(1);
      expect(after?.history.filter((h) => h.action === 'executing')).toHaveLength(2);
      expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
    });

    it('takes over, as outcome unknown, a call whose replica died and whose lease ran out', async () => {
      const [a, b] = (await replicas('approvals-lease-dead')) as [EngineFixture, EngineFixture];
      const [networkId] = await twoNetworks(a.client);
      const before = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(a.engine, withdrawal('2200', networkId));
      await partsOf(a.engine).core.approve(request.id, APPROVER_A);
      const claimed = await partsOf(a.engine).executor.claimExecution(request.id);
      if (!claimed) throw new Error('not claimed');
      await partsOf(a.engine).executor.markSending(claimed); // then A dies without a word, the call maybe out
      await b.engine.start();
      await b.engine.idle();
      expect((await b.engine.get(request.id))?.state).toBe('executing');
      b.clock.advance(EXECUTION_LEASE_MS + 1);
      await b.engine.tick();
      const after = await b.engine.get(request.id);
      expect(after?.state).toBe('outcome-unknown');
      expect(after?.history.map((h) => h.action)).toContain('interrupted');
      expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(0);
    });
  });
}
