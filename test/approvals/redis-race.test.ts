// Two bot replicas sharing one store (Redis, PostgreSQL), 50 approve clicks spread over both: exactly
// one service call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearStore, type Store } from '../../src/store/index.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
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

for (const { name, up, open } of shared) {
  describe.skipIf(!up)(`two replicas on one ${name}`, () => {
    let sandbox: Sandbox;
    let storeA: Store;
    let storeB: Store;

    beforeAll(async () => {
      sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
      const prefix = testPrefix('approvals-race');
      storeA = await open(prefix);
      storeB = await open(prefix);
    });
    afterAll(async () => {
      await clearStore(storeA);
      await storeA.close();
      await storeB.close();
      await sandbox.stop();
    });

    it('makes exactly one service call for 50 concurrent approve clicks across two replicas', async () => {
      const a = await startEngineFixture({ sandbox, store: storeA });
      const b = await startEngineFixture({ sandbox, store: storeB });
      const [networkId] = await twoNetworks(a.client);
      const request = await fileDraft(a.engine, {
        kind: 'withdraw',
        amount: '1500.50',
        payload: { amount: '1500.50', address: DEST, networkId, shouldSaveAddress: false },
        display: {},
        purpose: 'Supplier payout INV-2231',
        requester: REQUESTER,
      });
      const clicks = Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? a : b).engine.approve(request.id, i % 3 ? APPROVER_A : APPROVER_B),
      );
      const results = await Promise.all(clicks);
      await Promise.all([a.engine.idle(), b.engine.idle()]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      expect((await b.engine.get(request.id))?.state).toBe('sent');
      // Both replicas sweep at once: still one call, and one audit trail.
      await Promise.all([a.engine.tick(), b.engine.tick()]);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      const actions = (await a.engine.audit(20)).map((e) => e.action);
      expect(actions.filter((x) => x === 'executing')).toHaveLength(1);
      await a.close();
      await b.close();
    });
  });
}
