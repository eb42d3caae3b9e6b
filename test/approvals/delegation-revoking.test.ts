// Revoking a delegation in the engine: it ends at once, needs no second approval, and is audited; a
// redemption whose delegation was revoked during its re-check is not approved; the delegate may give it
// up, and another approver end it while the delegator is away; a delegation lives in the store, so one
// granted on one replica is used and revoked on another.
import { describe, expect } from 'vitest';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import { REQUESTER } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { BOLA, CHIDI, DAYO, delegate, EKENE, policy, test, withdrawal } from './delegation-support.js';

describe('revoking', () => {
  test('ends a delegation at once, needs no second approval, and is audited', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    // Someone who is neither side nor an approver changes nothing.
    expect(await engine.revokeDelegations(EKENE, BOLA)).toEqual([]);
    const revoked = await engine.revokeDelegations(CHIDI, BOLA);
    expect(revoked.map((r) => r.id)).toEqual([id]);
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'delegation-ended',
    });
    expect(await engine.liveDelegations()).toEqual([]);
    const entry = (await engine.audit(50)).find((e) => e.action === 'delegation-revoked');
    expect(entry).toMatchObject({ requestId: id, kind: 'delegation', actor: CHIDI });
  });

  test('refuses a final approval of a redemption whose delegation was revoked during its re-check', async ({
    fx,
    engine,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    fx.sandbox.setAccountName('0123456789', 'ADA OBI');
    const request = await fileDraft(engine, redemptionDraft(REQUESTER));
    const check = fx.sandbox.hold('POST', '/v1/api/account/verify');
    const approving = approveAsSeen(engine, request.id, BOLA); // final: the figures are read again first
    await check.arrived;
    expect((await engine.revokeDelegations(CHIDI, BOLA)).length).toBe(1);
    check.release();
    expect(await approving).toMatchObject({ ok: false, reason: 'delegation-ended' });
    await engine.idle();
    const after = await engine.get(request.id);
    expect(after).toMatchObject({ state: 'pending', approvals: [] });
    expect(after?.checking).toBeUndefined();
    expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(0);
  });

  test('lets the delegate give it up, and another approver end it while the delegator is away', async ({
    fx,
    engine,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    expect(await engine.revokeDelegations(BOLA, CHIDI)).toHaveLength(1);
    await delegate(fx, CHIDI, BOLA);
    expect(await engine.revokeDelegations(DAYO, BOLA)).toHaveLength(1);
    expect(await engine.liveDelegations()).toEqual([]);
  });
});

describe('across replicas and restarts', () => {
  test('a delegation granted on one replica is used and revoked on another (it lives in the store)', async ({
    fx,
    engine,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    const other = (await fx.another({ engine: { policy: policy() } })).engine;
    const request = await fileDraft(other, withdrawal(networkId, '1500'));
    expect(await approveAsSeen(other, request.id, BOLA)).toMatchObject({ ok: true });
    const next = await fileDraft(engine, withdrawal(networkId, '1500'));
    await other.revokeDelegations(CHIDI, BOLA);
    expect(await approveAsSeen(engine, next.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'delegation-ended',
    });
    await other.idle();
    await engine.idle();
  });
});
