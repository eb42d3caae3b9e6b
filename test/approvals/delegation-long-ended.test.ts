// A delegate's approval names the delegation it was given through, and the check before sending reads
// that delegation by its id: an approval given within the window still counts at a send long after the
// window ended (a freeze of sends held it), however long ago that was, while one given through a
// delegation revoked since, naming a delegation that does not stand behind it (another pair's, one
// still waiting for approval, another environment's, none at all), or on a request filed
// after the window ended (whatever date the approval carries), sends the request back. An approval
// recorded without the id is judged by the listed delegations, as before.
import { describe, expect } from 'vitest';
import { DELEGATION_GONE } from '../../src/approvals/approver-left.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine, ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import { type EngineFixture, engineTest, REQUESTER } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAY,
  DAYO,
  delegate,
  EKENE,
  policy,
  withdrawal,
  withdrawCalls,
} from './delegation-support.js';

/** Requests wait 60 days for approval here (CNGN_APPROVAL_TTL), so a held one outlives the windows. */
const test = engineTest.extend('engineOptions', () => ({ engine: { policy: policy() }, ttlMs: 60 * DAY }));

/** Dayo freezes the sends; Bola approves a withdrawal in Chidi's place, and the freeze holds it approved. */
async function heldDelegatedApproval(fx: EngineFixture, networkId: string) {
  expect(await fx.engine.freezeSends(DAYO, 'checking a look-alike address')).toMatchObject({ ok: true });
  const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
  expect(await approveAsSeen(fx.engine, request.id, BOLA)).toMatchObject({
    ok: true,
    request: { state: 'approved', approvals: [{ user: BOLA, onBehalfOf: CHIDI }] },
  });
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('approved');
  return request.id;
}

/** The freeze lifted (filed by Dayo, approved by Ade): the held request is sent, or goes back, now. */
async function liftFreeze(engine: ApprovalEngine) {
  const lift = await engine.fileUnfreeze(DAYO);
  if (!lift.ok) throw new Error(`unfreeze not filed: ${lift.reason}`);
  expect(await approveAsSeen(engine, lift.request.id, ADE)).toMatchObject({ ok: true });
  await engine.idle();
  expect((await engine.get(lift.request.id))?.state).toBe('completed');
}

/** Someone with write access to the store rewrites the request's approvals as `change` says. */
async function rewriteApprovals(
  store: Store,
  id: string,
  change: (approvals: ApprovalRequest['approvals']) => ApprovalRequest['approvals'],
): Promise<void> {
  const repo = new ApprovalRepository(store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  expect(await repo.saveIf(stored, { ...stored, approvals: change(stored.approvals) })).toBe(true);
}

async function expectSentBack(fx: EngineFixture, id: string) {
  expect(await fx.engine.get(id)).toMatchObject({
    state: 'pending',
    round: 1,
    approvals: [],
    reason: DELEGATION_GONE,
  });
  expect(withdrawCalls(fx)).toBe(0);
}

describe('an approval given through a delegation that has since ended', () => {
  test('is sent however long ago its window ended, its delegation read by id', async ({ fx, networkId }) => {
    const id = await delegate(fx, CHIDI, BOLA, { days: 1 });
    const request = await heldDelegatedApproval(fx, networkId);
    fx.clock.advance(30 * DAY);
    // Long ended, it is no longer listed; the approval names it, so it is read directly.
    expect(await partsOf(fx.engine).core.delegations.all()).toEqual([]);
    await liftFreeze(fx.engine);
    expect(await fx.engine.get(request)).toMatchObject({
      state: 'sent',
      round: 0,
      approvals: [{ user: BOLA, onBehalfOf: CHIDI, delegationId: id }],
    });
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('goes back when its delegation was revoked after the approval, however long ago', async ({
    fx,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA, { days: 1 });
    const request = await heldDelegatedApproval(fx, networkId);
    expect(await fx.engine.revokeDelegations(CHIDI, BOLA)).toHaveLength(1);
    fx.clock.advance(30 * DAY);
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });

  test('goes back when the delegation it names is not one from its delegator to its giver', async ({
    fx,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    const other = await delegate(fx, DAYO, EKENE);
    const request = await heldDelegatedApproval(fx, networkId);
    expect((await fx.engine.get(request))?.approvals).toEqual([
      expect.objectContaining({ user: BOLA, onBehalfOf: CHIDI, delegationId: id }),
    ]);
    // A store writer points the approval at another live delegation: it does not stand behind it.
    await rewriteApprovals(fx.store, request, (approvals) =>
      approvals.map((a) => ({ ...a, delegationId: other })),
    );
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });

  test('goes back when the request was filed after the window ended, whatever date the approval carries', async ({
    fx,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA, { days: 1 });
    const took = (await fx.engine.get(id))?.history.at(-1)?.at ?? '';
    fx.clock.advance(2 * DAY);
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
    // A store writer records Bola's approval in Chidi's place, dated within the window that had ended.
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(request.id);
    if (!stored) throw new Error('not stored');
    const backdated = withApproval(stored, BOLA, new Date(Date.parse(took) + 60_000), {
      onBehalfOf: CHIDI,
      delegationId: id,
    });
    expect(backdated.state).toBe('approved');
    expect(await repo.saveIf(stored, backdated)).toBe(true);
    await partsOf(fx.engine).executor.execute(request.id);
    await fx.engine.idle();
    await expectSentBack(fx, request.id);
  });

  test('goes back when the delegation it names is not there at all', async ({ fx, networkId }) => {
    await delegate(fx, CHIDI, BOLA);
    const request = await heldDelegatedApproval(fx, networkId);
    await rewriteApprovals(fx.store, request, (approvals) =>
      approvals.map((a) => ({ ...a, delegationId: 'AR-NONE' })),
    );
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });
});

describe('a delegation named that was never granted here', () => {
  test('goes back when it names a delegation request still waiting for approval', async ({
    fx,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA);
    const request = await heldDelegatedApproval(fx, networkId);
    // Chidi asks for another delegation to Bola; nobody approves it. The approval is pointed at it.
    const waiting = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + DAY));
    expect((await fx.engine.get(waiting.id))?.state).toBe('pending');
    await rewriteApprovals(fx.store, request, (approvals) =>
      approvals.map((a) => ({ ...a, delegationId: waiting.id })),
    );
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });

  test('goes back when it names a delegation granted in another environment', async ({ fx, networkId }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    const request = await heldDelegatedApproval(fx, networkId);
    // A store writer moves the granted delegation to another environment: it is not this one's.
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const granted = await repo.get(id);
    if (!granted) throw new Error('not stored');
    expect(await repo.saveIf(granted, { ...granted, environment: 'live' })).toBe(true);
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });
});

describe('the delegation an approval names', () => {
  test('is the one the click was judged through, also when the figures were read again first', async ({
    fx,
  }) => {
    await delegate(fx, DAYO, EKENE);
    const id = await delegate(fx, CHIDI, BOLA);
    fx.sandbox.setAccountName('0123456789', 'ADA OBI');
    const request = await fileDraft(fx.engine, redemptionDraft(REQUESTER));
    // Final: its figures are read again before it is approved, and the place is judged again then.
    expect(await approveAsSeen(fx.engine, request.id, BOLA)).toMatchObject({
      ok: true,
      request: { state: 'approved', approvals: [{ user: BOLA, onBehalfOf: CHIDI, delegationId: id }] },
    });
    await fx.engine.idle();
    expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
  });
});

describe('an approval recorded without the id of its delegation', () => {
  test('is judged by the delegations listed: sent while its delegation is listed', async ({
    fx,
    networkId,
  }) => {
    await delegate(fx, CHIDI, BOLA, { days: 1 });
    const request = await heldDelegatedApproval(fx, networkId);
    await rewriteApprovals(fx.store, request, (approvals) =>
      approvals.map(({ delegationId: _id, ...a }) => a),
    );
    fx.clock.advance(6 * DAY); // ended 5 days ago: still listed
    await liftFreeze(fx.engine);
    expect(await fx.engine.get(request)).toMatchObject({ state: 'sent', round: 0 });
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('goes back once its delegation ended more than 7 days before the send', async ({ fx, networkId }) => {
    await delegate(fx, CHIDI, BOLA, { days: 1 });
    const request = await heldDelegatedApproval(fx, networkId);
    await rewriteApprovals(fx.store, request, (approvals) =>
      approvals.map(({ delegationId: _id, ...a }) => a),
    );
    fx.clock.advance(9 * DAY);
    await liftFreeze(fx.engine);
    await expectSentBack(fx, request);
  });
});
