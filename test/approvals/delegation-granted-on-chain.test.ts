// A delegation is in effect, where the bot holds the audit signing key, only when the signed audit chain
// holds its request's completion: a store writer (write access to the store, not the key) who marks a
// delegation request that was never granted (still waiting, rejected, expired) completed, with approvals,
// a completed step and a place in the delegation index, grants nothing. A real grant counts on one bot
// and across replicas; a chain that does not verify vouches for no grant.
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { auditHeadKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { DEST, type EngineFixture, REQUESTER, replicasTest, twoNetworks } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';
import { liftFreeze } from '../support/unfreeze.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAY,
  DAYO,
  delegate,
  delegateApproves,
  test as delegationTest,
  auditKeyTest as test,
  withdrawCalls,
} from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** What a store writer makes of a delegation request never granted: completed, approved by Ade. */
const forgedCompletion = (stored: ApprovalRequest): ApprovalRequest => {
  const at = new Date(Date.parse(stored.createdAt) + 1000).toISOString();
  return {
    ...stored,
    state: 'completed',
    approvals: [{ user: ADE, at }],
    outcome: { status: 'completed' },
    history: [
      ...stored.history,
      { at, state: 'approved', action: 'approved', actor: ADE, note: '1 of 1' },
      { at, state: 'executing', action: 'claimed' },
      { at, state: 'completed', action: 'completed' },
    ],
  } as ApprovalRequest;
};

/** Chidi's delegation to Bola filed, then left as `how` says: waiting, rejected by Ade, or expired. */
async function neverGranted(fx: EngineFixture, how: 'pending' | 'rejected' | 'expired'): Promise<string> {
  const filed = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
  if (how === 'rejected') {
    expect(await rejectAsSeen(fx.engine, filed.id, ADE, 'not now')).toMatchObject({ ok: true });
  } else if (how === 'expired') {
    fx.clock.advance(2 * DAY);
    expect((await fx.engine.expireIfDue(filed.id))?.state).toBe('expired');
  }
  expect((await fx.engine.get(filed.id))?.state).toBe(how);
  return filed.id;
}

describe('with the audit signing key', () => {
  for (const how of ['pending', 'rejected', 'expired'] as const) {
    test(`a delegation request ${how === 'pending' ? 'still waiting' : how} and marked completed in the store grants nothing: the delegate’s approval is refused`, async ({
      fx,
      engine,
      networkId,
    }) => {
      const id = await neverGranted(fx, how);
      await rewrite(fx.store, id, forgedCompletion, { audited: false });
      await fx.store.addToSet('delegations:sandbox', id);
      expect((await engine.get(id))?.state).toBe('completed');

      expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false, reason: 'not-approver' });
      expect(await engine.liveDelegations()).toEqual([]);
      await engine.idle();
      expect(withdrawCalls(fx)).toBe(0);
    });
  }

  test('a real grant counts, and so does one granted after the chain’s head was read (the chain read on from there)', async ({
    fx,
    engine,
    networkId,
  }) => {
    const first = await delegate(fx, CHIDI, BOLA, { days: 1 });
    expect((await engine.liveDelegations()).map((d) => d.id)).toEqual([first]);
    const second = await delegate(fx, CHIDI, BOLA, { days: 2 });
    expect((await engine.liveDelegations()).map((d) => d.id)).toEqual([first, second]);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('a signed head that does not verify vouches for no grant, until the bot records it and a new grant comes after', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    const head = await fx.store.get<{ signature?: { value: string } }>(auditHeadKey('sandbox'));
    if (!head?.signature) throw new Error('the head is not signed');
    const flipped = head.signature.value.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    await fx.store.set(auditHeadKey('sandbox'), {
      ...head,
      signature: { ...head.signature, value: flipped },
    });
    expect(await engine.liveDelegations()).toEqual([]);
    fx.clock.advance(1000);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false });

    fx.clock.advance(1000);
    await delegate(fx, CHIDI, BOLA);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await engine.idle();
    // What came before the recorded head hides the chain's freezes too: sends are held until an
    // approved unfreeze lifts them.
    expect(withdrawCalls(fx)).toBe(0);
    await liftFreeze(engine, ADE, DAYO);
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('without the audit signing key', () => {
  delegationTest(
    'delegations are read from the store alone: a completion written there counts',
    async ({ fx, engine, networkId }) => {
      const id = await neverGranted(fx, 'rejected');
      await rewrite(fx.store, id, forgedCompletion, { audited: false });
      await fx.store.addToSet('delegations:sandbox', id);
      expect((await engine.liveDelegations()).map((d) => d.id)).toEqual([id]);
      expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    },
  );
});

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`with the audit signing key, on one ${name}`, () => {
    replicasTest.override('storeKind', name);
    const signer = newSigner();

    replicasTest(
      'a delegation granted on one replica is used on the other; one marked completed in the store is not',
      async ({ sandbox, replicas, startEngine }) => {
        const { a: storeA, b: storeB } = await replicas('delegation-granted-on-chain');
        const replica = (store: typeof storeA) =>
          startEngine({
            store,
            engine: {
              policy: new ApprovalPolicy({ approvers: [ADE, CHIDI], tiers: parseTiers('0:1') }),
              auditSeal: { signer, marks: new HeadMarks() },
            },
          });
        const a = await replica(storeA);
        const b = await replica(storeB);
        const [networkId] = await twoNetworks(a.client);
        const until = new Date(Date.now() + DAY);

        const refused = await a.engine.fileDelegation(CHIDI, BOLA, until, '5000');
        expect(await rejectAsSeen(b.engine, refused.id, ADE, 'not now')).toMatchObject({ ok: true });
        await rewrite(storeA, refused.id, forgedCompletion, { audited: false });
        await storeA.addToSet('delegations:sandbox', refused.id);
        expect(await b.engine.liveDelegations()).toEqual([]);

        const granted = await a.engine.fileDelegation(CHIDI, BOLA, until, '5000');
        expect(await approveAsSeen(b.engine, granted.id, ADE)).toMatchObject({ ok: true });
        await b.engine.idle();
        expect((await a.engine.liveDelegations()).map((d) => d.id)).toEqual([granted.id]);
        const request = await fileDraft(a.engine, {
          kind: 'withdraw',
          amount: '1500',
          payload: { amount: '1500', address: DEST, networkId, shouldSaveAddress: false },
          display: {},
          purpose: 'Supplier payout INV-2231',
          requester: REQUESTER,
        });
        expect(await approveAsSeen(b.engine, request.id, BOLA)).toMatchObject({
          ok: true,
          request: { approvals: [{ user: BOLA, onBehalfOf: CHIDI, delegationId: granted.id }] },
        });
        await b.engine.idle();
        expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      },
    );
  });
}
