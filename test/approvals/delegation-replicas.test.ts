// Delegations live in the shared store (Redis, PostgreSQL): granted on one replica, used on another,
// revoked on a third connection (a restarted bot), and the revocation holds at once everywhere; two
// identical ones asked for at once on two replicas make one request.
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { DEST, REQUESTER, replicasTest as test, twoNetworks } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const BOLA = 'U_BOLA';

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`delegations on one ${name}`, () => {
    test.override('storeKind', name);

    test('are granted on one replica, used on another, and revoked after a restart, at once', async ({
      sandbox,
      connections,
      startEngine,
    }) => {
      const stores = await connections('delegation-replicas', 3);
      const replica = async () => {
        const store = stores.shift();
        if (!store) throw new Error('no connection left');
        const policy = new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1,1000000:2') });
        return startEngine({ store, engine: { policy } });
      };
      const a = await replica();
      const b = await replica();
      const [networkId] = await twoNetworks(a.client);
      const withdrawal = (amount: string) =>
        ({
          kind: 'withdraw',
          amount,
          payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
          display: {},
          purpose: 'Supplier payout INV-2231',
          requester: REQUESTER,
        }) as const;

      const filed = await a.engine.fileDelegation(CHIDI, BOLA, new Date(Date.now() + 86_400_000), '5000');
      expect(await approveAsSeen(b.engine, filed.id, ADE)).toMatchObject({ ok: true });
      await b.engine.idle();
      expect((await a.engine.liveDelegations()).map((d) => d.delegate)).toEqual([BOLA]);

      const first = await fileDraft(a.engine, withdrawal('1500'));
      expect(await approveAsSeen(b.engine, first.id, BOLA)).toMatchObject({
        ok: true,
        request: { approvals: [{ user: BOLA, onBehalfOf: CHIDI }] },
      });
      await b.engine.idle();

      // A restarted bot (a new connection, a new engine) still finds it, and revokes it.
      await b.close();
      const c = await replica();
      const second = await fileDraft(a.engine, withdrawal('1500'));
      expect(await c.engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
      expect(await approveAsSeen(a.engine, second.id, BOLA)).toMatchObject({
        ok: false,
        reason: 'delegation-ended',
      });
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    });

    test('make one request of two identical ones asked for on both replicas at once', async ({
      replicas,
      startEngine,
    }) => {
      const stores = await replicas('delegation-replicas-twins');
      const replica = async (store: Store) => {
        const policy = new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1') });
        return startEngine({ store, engine: { policy } });
      };
      const [a, b] = [await replica(stores.a), await replica(stores.b)];
      const until = new Date(Date.now() + 86_400_000);
      const tries = await Promise.allSettled([
        a.engine.fileDelegation(CHIDI, BOLA, until),
        b.engine.fileDelegation(CHIDI, BOLA, until),
      ]);
      expect(tries.map((t) => t.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await b.engine.openRequests()).filter((r) => r.kind === 'delegation')).toHaveLength(1);
    });
  });
}
