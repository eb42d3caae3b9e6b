// Stopping an approved request before it is claimed for sending, in the engine against the real client
// and the embedded sandbox: rejected (or cancelled by its requester) while a freeze holds it, it is
// never sent once the freeze is lifted; only an approver in their own right may reject it, never a
// delegate nor the requester; once claimed it is too late; and a rejection racing the claim never
// both sends and says rejected.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { HELD_ACTION } from '../../src/approvals/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  OUTSIDER,
  REQUESTER,
  engineTest as test,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAYO,
  delegate,
  test as delegationTest,
  withdrawal,
} from './delegation-support.js';

const REASON = 'the address is a look-alike: confirmed fraud';

/** File a withdrawal and approve it (one approval is enough below ₦1,000,000). */
async function approvedWithdrawal(fx: EngineFixture, networkId: string, approver = APPROVER_A) {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
  expect(await approveAsSeen(fx.engine, request.id, approver)).toMatchObject({ ok: true });
  await fx.engine.idle();
  return request.id;
}

/** Lift the freeze: APPROVER_B files the unfreeze, APPROVER_A approves it; what it held goes out. */
async function unfreeze(fx: EngineFixture): Promise<void> {
  const filed = await fx.engine.fileUnfreeze(APPROVER_B);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect(await fx.engine.currentFreeze()).toBeUndefined();
  await fx.engine.idle();
}

describe('an approved request a freeze holds', () => {
  test('is rejected by an approver, audited and dropped from the limits, and the lift sends nothing', async ({
    fx,
    networkId,
  }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const id = await approvedWithdrawal(fx, networkId);
    const held = await fx.engine.get(id);
    expect(held?.state).toBe('approved');
    expect(held?.history.at(-1)?.action).toBe(HELD_ACTION);
    expect((await fx.engine.limitUse()).approved).toBe('1500.50');

    expect(await fx.engine.mayReject(id, APPROVER_B, 0)).toMatchObject({ request: { id } });
    expect(await rejectAsSeen(fx.engine, id, APPROVER_B, REASON)).toMatchObject({
      ok: true,
      request: { state: 'rejected', reason: REASON },
    });
    const rejected = await fx.engine.get(id);
    expect(rejected?.state).toBe('rejected');
    expect(rejected?.history.at(-1)).toMatchObject({
      state: 'rejected',
      action: 'rejected',
      actor: APPROVER_B,
      note: REASON,
    });
    const audited = (await fx.engine.audit(50)).filter((e) => e.requestId === id);
    expect(audited.at(-1)).toMatchObject({
      action: 'rejected',
      state: 'rejected',
      actor: APPROVER_B,
      note: REASON,
    });
    expect((await fx.engine.verifyAudit()).ok).toBe(true);
    expect((await fx.engine.limitUse()).approved).toBe('0.00');

    await unfreeze(fx);
    await fx.engine.tick();
    await fx.engine.idle();
    expect((await fx.engine.get(id))?.state).toBe('rejected');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('is cancelled by its requester, and the lift sends nothing', async ({ fx, networkId }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const id = await approvedWithdrawal(fx, networkId);
    expect(await fx.engine.cancel(id, APPROVER_A)).toMatchObject({ ok: false, reason: 'not-requester' });
    // The bot's own cancel of a request approvers could not see takes only one still waiting.
    expect(await fx.engine.cancel(id, REQUESTER, { onlyWaiting: true })).toMatchObject({
      ok: false,
      reason: 'not-pending',
    });
    expect((await fx.engine.get(id))?.state).toBe('approved');
    expect(await fx.engine.cancel(id, REQUESTER)).toMatchObject({
      ok: true,
      request: { state: 'cancelled' },
    });
    expect((await fx.engine.get(id))?.history.at(-1)).toMatchObject({
      action: 'cancelled',
      actor: REQUESTER,
    });
    await unfreeze(fx);
    expect((await fx.engine.get(id))?.state).toBe('cancelled');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('is refused to its requester and to someone who is no approver, changing nothing', async ({
    fx,
    networkId,
  }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const id = await approvedWithdrawal(fx, networkId);
    const before = await fx.engine.get(id);
    expect(await rejectAsSeen(fx.engine, id, REQUESTER, REASON)).toMatchObject({
      ok: false,
      reason: 'requester',
    });
    expect(await rejectAsSeen(fx.engine, id, OUTSIDER, REASON)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    expect(await fx.engine.mayReject(id, OUTSIDER, 0)).toMatchObject({ refusal: 'not-approver' });
    expect(await fx.engine.get(id)).toEqual(before);
  });
});

describe('an approved request not held by a freeze', () => {
  test('is rejected before its claim; the claim then finds nothing to send', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '2000'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A); // approved; nothing claimed it yet
    expect((await fx.engine.get(request.id))?.state).toBe('approved');
    expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, REASON)).toMatchObject({ ok: true });
    expect(await partsOf(fx.engine).executor.execute(request.id)).toBeUndefined();
    expect(await partsOf(fx.engine).executor.claimExecution(request.id)).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('is too late to reject or cancel once claimed for sending, and is sent', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '2000'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A);
    const claimed = await partsOf(fx.engine).executor.claimExecution(request.id);
    expect(claimed?.state).toBe('executing');
    const late = { ok: false, reason: 'already-sending', request: { state: 'executing' } };
    expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, REASON)).toMatchObject(late);
    expect(await fx.engine.cancel(request.id, REQUESTER)).toMatchObject(late);
    expect(await fx.engine.mayReject(request.id, APPROVER_B, 0)).toMatchObject({
      refusal: 'already-sending',
    });
    expect((await fx.engine.get(request.id))?.state).toBe('executing');
    if (!claimed) throw new Error('not claimed');
    await partsOf(fx.engine).executor.markSending(claimed);
    expect((await fx.engine.get(request.id))?.history.map((h) => h.action)).not.toContain('rejected');
  });

  test('raced by its claim: exactly one wins, never both sent and rejected', async ({ fx, networkId }) => {
    for (let i = 0; i < 8; i++) {
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, `${2000 + i}`));
      await partsOf(fx.engine).core.approve(request.id, APPROVER_A);
      const before = withdrawCalls(fx);
      // The rejection starts a few turns of the event loop later each time, to meet the claim at
      // different points of its way.
      const rejectLater = async () => {
        for (let turn = 0; turn < i; turn++) await new Promise((resolve) => setImmediate(resolve));
        return rejectAsSeen(fx.engine, request.id, APPROVER_B, REASON);
      };
      const [sent, rejection] = await Promise.all([
        partsOf(fx.engine).executor.execute(request.id),
        rejectLater(),
      ]);
      const final = await fx.engine.get(request.id);
      if (rejection.ok) {
        expect(final?.state).toBe('rejected');
        expect(sent).toBeUndefined();
        expect(withdrawCalls(fx)).toBe(before);
      } else {
        expect(rejection).toMatchObject({ reason: 'already-sending' });
        expect(final?.state).toBe('sent');
        expect(withdrawCalls(fx)).toBe(before + 1);
      }
      expect(final?.history.filter((h) => h.state === 'rejected' || h.action === 'executing')).toHaveLength(
        1,
      );
    }
  });
});

delegationTest(
  'refuses a delegate once the request is approved, though the delegate may reject it while it waits',
  async ({ fx, networkId }) => {
    await delegate(fx, CHIDI, BOLA);
    const waiting = await fileDraft(fx.engine, withdrawal(networkId, '1200'));
    expect(await rejectAsSeen(fx.engine, waiting.id, BOLA, REASON)).toMatchObject({
      ok: true,
      request: { state: 'rejected' },
    });

    await fx.engine.freezeSends(ADE, 'checking a look-alike address');
    const held = await fileDraft(fx.engine, withdrawal(networkId, '1300'));
    expect(await approveAsSeen(fx.engine, held.id, DAYO)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(held.id))?.state).toBe('approved');
    expect(await fx.engine.mayReject(held.id, BOLA, 0)).toMatchObject({ refusal: 'delegate-after-approval' });
    expect(await rejectAsSeen(fx.engine, held.id, BOLA, REASON)).toMatchObject({
      ok: false,
      reason: 'delegate-after-approval',
    });
    expect((await fx.engine.get(held.id))?.state).toBe('approved');
    // The approver in whose place the delegate acts may stop it in their own right.
    expect(await rejectAsSeen(fx.engine, held.id, CHIDI, REASON)).toMatchObject({ ok: true });
  },
);
