// Two bot replicas sharing one store (Redis, PostgreSQL), 50 approve clicks spread over both: exactly
// one service call.
import { describe, expect } from 'vitest';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  REQUESTER,
  engineTest as test,
  twoNetworks,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`two replicas on one ${name}`, () => {
    test.override('storeKind', name);

    test('makes exactly one service call for 50 concurrent approve clicks across two replicas', async ({
      sandbox,
      replicas,
      startEngine,
    }) => {
      const { a: storeA, b: storeB } = await replicas('approvals-race');
      const a = await startEngine({ store: storeA });
      const b = await startEngine({ store: storeB });
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
        approveAsSeen((i % 2 ? a : b).engine, request.id, i % 3 ? APPROVER_A : APPROVER_B),
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
    });
  });
}
