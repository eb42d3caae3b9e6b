// Two replicas sharing one store (Redis, PostgreSQL): one starting up while the other is mid-call
// leaves the call alone (the caller holds a lease); only a lease that ran out is taken over: as outcome
// unknown, never resent, once the call was marked as sending; sent by the other replica when it never was.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import type { RequestDraft } from '../../src/approvals/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  DEST,
  type EngineFixture,
  REQUESTER,
  replicasTest,
  twoNetworks,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

/** `engines(name, count)`: replicas on one store, each with its own connection (and its own clock). */
const test = replicasTest.extend('engines', async ({ connections, startEngine }) => {
  return async (name: string, count = 2): Promise<EngineFixture[]> => {
    const open: EngineFixture[] = [];
    for (const store of await connections(name, count)) open.push(await startEngine({ store }));
    return open;
  };
});

for (const { name: storeName, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`execution leases across two replicas on one ${storeName}`, () => {
    test.override('storeKind', storeName);

    const withdrawal = (amount: string, networkId: string): RequestDraft => ({
      kind: 'withdraw',
      amount,
      payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    });

    test('leaves a call another live replica is making alone when it starts up', async ({
      sandbox,
      engines,
    }) => {
      const [a, b] = (await engines('approvals-lease-live')) as [EngineFixture, EngineFixture];
      const [networkId] = await twoNetworks(a.client);
      const before = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(a.engine, withdrawal('2100', networkId));
      const held = sandbox.hold('POST', '/v1/api/withdraw');
      await approveAsSeen(a.engine, request.id, APPROVER_A);
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

    test('sends, once, a claim whose replica died before marking it as sending, once its lease ran out', async ({
      sandbox,
      engines,
    }) => {
      const [a, b] = (await engines('approvals-lease-unmarked')) as [EngineFixture, EngineFixture];
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

    test('has exactly one of two live replicas send a claim whose replica died before marking it', async ({
      sandbox,
      engines,
    }) => {
      const [a, b, c] = (await engines('approvals-lease-unmarked-race', 3)) as [
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

    test('takes over, as outcome unknown, a call whose replica died and whose lease ran out', async ({
      sandbox,
      engines,
    }) => {
      const [a, b] = (await engines('approvals-lease-dead')) as [EngineFixture, EngineFixture];
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
