// Limits over time across replicas, on every store: filings sent at once to two replicas of one store
// are decided one after the other, so none slips under the daily limit or under the higher tier,
// and two final approvals at once cannot both fit in the room that is left.
import { describe, expect } from 'vitest';
import { LimitExceededError } from '../../src/approvals/limits.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, engineTest as test, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const WINDOW = 24 * 3_600_000;
const AT_ONCE = 8;

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`limits on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('two replicas filing at once at the daily limit file only what fits', async ({
      replicas,
      startEngine,
      defer,
    }) => {
      const { a, b } = await replicas('limits-filing');
      const limits = { windowMs: WINDOW, dailyLimit: '1000000.00' };
      const fx = await startEngine({ store: a, tiers: '0:1', engine: { limits } });
      const other = await fx.another({ store: b, engine: { limits } });
      defer(() => other.engine.stop());
      const [networkId] = await twoNetworks(fx.client);
      const results = await Promise.allSettled(
        Array.from({ length: AT_ONCE }, (_, i) =>
          fileDraft((i % 2 ? fx : other).engine, withdrawalDraft(networkId, '300000')),
        ),
      );
      const filed = results.filter((r) => r.status === 'fulfilled');
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      expect(filed).toHaveLength(3);
      expect(refused.every((error) => error instanceof LimitExceededError)).toBe(true);
      expect(refused[0]).toMatchObject({ figures: { used: '900000.00', amount: '300000.00' } });
      const open = await fx.engine.openRequests();
      expect(open).toHaveLength(3);
    });

    test('many filings at once by one requester leave only the first under the higher tier', async ({
      replicas,
      startEngine,
      defer,
    }) => {
      const { a, b } = await replicas('limits-tier');
      const fx = await startEngine({ store: a, tiers: '0:1,1000000:2' });
      const other = await fx.another({ store: b });
      defer(() => other.engine.stop());
      const [networkId] = await twoNetworks(fx.client);
      const filed = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, i) =>
          fileDraft((i % 2 ? fx : other).engine, withdrawalDraft(networkId, '600000')),
        ),
      );
      expect(filed.filter((r) => r.requiredApprovals === 1)).toHaveLength(1);
      expect(filed.filter((r) => r.tierBasis?.by === 'requester')).toHaveLength(AT_ONCE - 1);
    });

    test('two final approvals at once on two replicas cannot both fit under the daily limit', async ({
      replicas,
      startEngine,
      sandbox,
    }) => {
      const { a, b } = await replicas('limits-approval');
      const fx = await startEngine({ store: a, tiers: '0:1' });
      const [networkId] = await twoNetworks(fx.client);
      // Filed before the limit was set; then two replicas with it approve one each, at once.
      const first = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
      const second = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
      const limits = { windowMs: WINDOW, dailyLimit: '1000000.00' };
      const one = await fx.another({ store: a, engine: { limits } });
      const two = await fx.another({ store: b, engine: { limits } });
      const results = await Promise.all([
        approveAsSeen(one.engine, first.id, APPROVER_A),
        approveAsSeen(two.engine, second.id, APPROVER_A),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toMatchObject([
        { reason: 'over-daily-limit', limit: { used: '600000.00', amount: '600000.00' } },
      ]);
      await one.engine.idle();
      await two.engine.idle();
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      await one.engine.stop();
      await two.engine.stop();
    });
  });
}
