// Delegations live in the shared store (Redis, PostgreSQL): granted on one replica, used on another,
// revoked on a third connection (a restarted bot), and the revocation holds at once everywhere; two
// identical ones asked for at once on two replicas make one request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearStore, type Store } from '../../src/store/index.js';
import { DEST, REQUESTER, startEngineFixture, twoNetworks } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { testPrefix } from '../support/redis.js';
import { sharedStores } from '../support/shared-stores.js';

const ADE = 'U_ADE';
const CHIDI = 'U_CHIDI';
const BOLA = 'U_BOLA';

const shared = await sharedStores();
afterAll(async () => {
  for (const kind of shared) await kind.dispose();
});

for (const { name, up, open } of shared) {
  describe.skipIf(!up)(`delegations on one ${name}`, () => {
    let sandbox: Sandbox;
    const stores: Store[] = [];

    beforeAll(async () => {
      sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    });
    afterAll(async () => {
      if (stores[0]) await clearStore(stores[0]);
      for (const store of stores) await store.close();
      await sandbox.stop();
    });

    it('are granted on one replica, used on another, and revoked after a restart, at once', async () => {
      const prefix = testPrefix('delegation-replicas');
      const replica = async () => {
        const store = await open(prefix);
        stores.push(store);
        const policy = new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1,1000000:2') });
        return startEngineFixture({ sandbox, store, engine: { policy } });
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
      expect(await b.engine.approve(filed.id, ADE)).toMatchObject({ ok: true });
      await b.engine.idle();
      expect((await a.engine.liveDelegations()).map((d) => d.delegate)).toEqual([BOLA]);

      const first = await fileDraft(a.engine, withdrawal('1500'));
      expect(await b.engine.approve(first.id, BOLA)).toMatchObject({
        ok: true,
        request: { approvals: [{ user: BOLA, onBehalfOf: CHIDI }] },
      });
      await b.engine.idle();

      // A restarted bot (a new connection, a new engine) still finds it, and revokes it.
      await b.close();
      const c = await replica();
      const second = await fileDraft(a.engine, withdrawal('1500'));
      expect(await c.engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
      expect(await a.engine.approve(second.id, BOLA)).toMatchObject({
        ok: false,
        reason: 'delegation-ended',
      });
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      await c.close();
      await a.close();
    });

    it('make one request of two identical ones asked for on both replicas at once', async () => {
      const prefix = testPrefix('delegation-replicas-twins');
      const replica = async () => {
        const store = await open(prefix);
        stores.push(store);
        const policy = new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1') });
        return startEngineFixture({ sandbox, store, engine: { policy } });
      };
      const [a, b] = [await replica(), await replica()];
      const until = new Date(Date.now() + 86_400_000);
      const tries = await Promise.allSettled([
        a.engine.fileDelegation(CHIDI, BOLA, until),
        b.engine.fileDelegation(CHIDI, BOLA, until),
      ]);
      expect(tries.map((t) => t.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await b.engine.openRequests()).filter((r) => r.kind === 'delegation')).toHaveLength(1);
      await b.close();
      await a.close();
    });
  });
}
