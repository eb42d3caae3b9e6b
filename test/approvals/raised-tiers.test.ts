// Tiers raised between filing and the last approval (a deploy with a new CNGN_APPROVAL_TIERS): the
// engine approves at the count the executor will require, the more of the stored count and the tiers'
// now, so a request filed under the old tiers waits for the extra approval (and shows that count) and is
// then sent once. One approved under the old tiers and not yet sent (held by a freeze, here) waits the
// same way when it comes to be sent, its approval kept, instead of failing at the send; the same
// shortage under the settings that approved it (a count lowered in the store) still fails there.
import { expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import {
  type ApprovalEngineOptions,
  ApprovalRepository,
  TIERS_RAISED_ACTION,
} from '../../src/approvals/index.js';
import { policySnapshot } from '../../src/approvals/policy-record.js';
import { sentBack, withApproval } from '../../src/approvals/state-machine.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { approvalMessage } from '../../src/slack/approvals/blocks/message.js';
import { threadReply } from '../../src/slack/approvals/blocks/steps.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

/** The bot stopped and restarted with tiers that ask two approvals (and `engine`'s other settings). */
async function restartRaised(fx: EngineFixture, engine: Partial<ApprovalEngineOptions> = {}) {
  await fx.engine.stop();
  const policy = new ApprovalPolicy({
    approvers: [APPROVER_A, APPROVER_B, REQUESTER],
    tiers: parseTiers('0:2'),
  });
  return fx.another({ engine: { policy, now: partsOf(fx.engine).core.now, ...engine } });
}

test('a request filed at one approval, tiers raised to two: still pending after one, sent after two', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  expect(request.requiredApprovals).toBe(1);
  // The bot restarted with tiers that ask two approvals for it.
  const raised = await restartRaised(fx);
  const first = await approveAsSeen(raised.engine, request.id, APPROVER_B);
  expect(first).toMatchObject({ ok: true, request: { state: 'pending' } });
  expect(first.ok && first.request.history.at(-1)).toMatchObject({
    action: 'approval-added',
    note: '1 of 2',
    needed: 2,
  });
  await raised.engine.idle();
  const waiting = await raised.engine.get(request.id);
  expect(waiting).toMatchObject({ state: 'pending', requiredApprovals: 1 });
  // What its message, App Home, Review and lists show: the count it now waits for.
  const shown = (r: ApprovalRequest) => raised.engine.approvalsShown(r);
  expect(waiting && shown(waiting)).toBe(2);
  if (waiting) {
    const message = approvalMessage(waiting, new Date(), {}, undefined, shown);
    expect(JSON.stringify(message.blocks)).toContain('1 of 2');
  }
  // Its audit entry records the count the tiers asked, for the verifier.
  const entry = (await raised.engine.audit(50)).find(
    (e) => e.requestId === request.id && e.action === 'approval-added',
  );
  expect(entry?.figures).toMatchObject({ requiredApprovals: 1, neededApprovals: 2 });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  const second = await approveAsSeen(raised.engine, request.id, APPROVER_A);
  expect(second).toMatchObject({ ok: true, request: { state: 'approved' } });
  await raised.engine.idle();
  expect(await raised.engine.get(request.id)).toMatchObject({ state: 'sent' });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await raised.engine.stop();
});

/** The settings an engine records at its start (so each approval step names them), with these tiers. */
function settings(tiers: string) {
  return policySnapshot({
    environment: 'sandbox',
    approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] },
    tiers: parseTiers(tiers),
    limitWindowMs: 86_400_000,
    ttlMs: 86_400_000,
    reminders: [],
    notify: 'both',
  });
}

/**
 * The bot stopped and restarted with tiers that ask two approvals (and `engine`'s other settings), then
 * the freeze lifted (two approvals under the new tiers too): requests it held come to be sent.
 */
async function restartRaisedAndLift(fx: EngineFixture, engine: Partial<ApprovalEngineOptions> = {}) {
  const raised = await restartRaised(fx, { policySnapshot: settings('0:2'), ...engine });
  await raised.engine.openTrail();
  const lift = await raised.engine.fileUnfreeze(APPROVER_A);
  if (!lift.ok) throw new Error(`unfreeze not filed: ${lift.reason}`);
  expect(await approveAsSeen(raised.engine, lift.request.id, APPROVER_B)).toMatchObject({
    request: { state: 'pending' },
  });
  await approveAsSeen(raised.engine, lift.request.id, REQUESTER);
  await raised.engine.idle();
  expect((await raised.engine.get(lift.request.id))?.state).toBe('completed');
  return raised;
}

test('a withdrawal approved at one approval and held by a freeze, tiers raised to two: waits with its approval kept, then sent once', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1', engine: { policySnapshot: settings('0:1') } });
  await fx.engine.openTrail();
  const [networkId] = await twoNetworks(fx.client);
  await fx.engine.freezeSends(APPROVER_A, 'checking a look-alike address');
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({
    ok: true,
    request: { state: 'approved' },
  });
  await fx.engine.idle();
  const raised = await restartRaisedAndLift(fx);
  // Not failed at the send (no "Needs a person"): back to pending, its approval kept, in the same round.
  const waiting = await raised.engine.get(request.id);
  expect(waiting).toMatchObject({ state: 'pending', round: request.round, requiredApprovals: 1 });
  expect(waiting?.approvals.map((a) => a.user)).toEqual([APPROVER_B]);
  expect(waiting?.outcome).toBeUndefined();
  const said =
    'Waiting for one more approval: the approval tiers were raised since it was approved (1 of 2 needed now)';
  expect(waiting?.history.at(-1)).toMatchObject({ action: TIERS_RAISED_ACTION, note: said, needed: 2 });
  expect(waiting && threadReply(waiting)).toBe(said);
  const entry = (await raised.engine.audit(50)).find(
    (e) => e.requestId === request.id && e.action === TIERS_RAISED_ACTION,
  );
  expect(entry?.note).toBe(said);
  expect(entry?.figures).toMatchObject({ requiredApprovals: 1, neededApprovals: 2 });
  expect(waiting && raised.engine.approvalsShown(waiting)).toBe(2);
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  const second = await approveAsSeen(raised.engine, request.id, APPROVER_A);
  expect(second).toMatchObject({ ok: true, request: { state: 'approved' } });
  await raised.engine.idle();
  expect(await raised.engine.get(request.id)).toMatchObject({ state: 'sent' });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await raised.engine.stop();
});

test('a request sent back to wait by raised tiers no longer counts as approved against the daily limit', async ({
  startEngine,
}) => {
  const DAY = 86_400_000;
  const fx = await startEngine({
    tiers: '0:1',
    engine: { policySnapshot: settings('0:1'), limits: { windowMs: DAY, dailyLimit: '1000000.00' } },
  });
  await fx.engine.openTrail();
  const [networkId] = await twoNetworks(fx.client);
  await fx.engine.freezeSends(APPROVER_A, 'checking a look-alike address');
  const held = await fileDraft(fx.engine, withdrawalDraft(networkId, '700000'));
  expect(await approveAsSeen(fx.engine, held.id, APPROVER_B)).toMatchObject({
    request: { state: 'approved' },
  });
  const other = await fileDraft(fx.engine, withdrawalDraft(networkId, '300000'));
  await fx.engine.idle();
  // Restarted with tiers of two and a lower daily limit: the held one waits again, unapproved.
  const limits = { windowMs: DAY, dailyLimit: '900000.00' };
  const raised = await restartRaisedAndLift(fx, { limits });
  expect(await raised.engine.get(held.id)).toMatchObject({ state: 'pending', round: held.round });
  const counted = await partsOf(raised.engine).core.limits.counted();
  expect(counted.find((c) => c.entry.id === held.id)).toMatchObject({ approved: false });
  // So the other one's final approval has room: only what is approved or further on counts.
  await approveAsSeen(raised.engine, other.id, APPROVER_A);
  expect(await approveAsSeen(raised.engine, other.id, APPROVER_B)).toMatchObject({
    ok: true,
    request: { state: 'approved' },
  });
  await raised.engine.stop();
});

test('approved under the settings the bot runs with yet short of the tiers (a count lowered in the store): still failed at the send', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1,1000:2', engine: { policySnapshot: settings('0:1,1000:2') } });
  await fx.engine.openTrail();
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500'));
  expect(request.requiredApprovals).toBe(2);
  const first = await approveAsSeen(fx.engine, request.id, APPROVER_B);
  if (!first.ok) throw new Error('not approved');
  // Someone with write access to the store lowers the count, and approves it as these settings would.
  const policyFingerprint = first.request.history.at(-1)?.policyFingerprint;
  expect(policyFingerprint).toBeDefined();
  const repo = new ApprovalRepository(fx.store, fx.engine.environment());
  const stored = { ...first.request, approvals: [], requiredApprovals: 1 };
  const forged = withApproval(stored, APPROVER_B, new Date(), { policyFingerprint });
  expect(await repo.saveIf(first.request, forged)).toBe(true);
  await partsOf(fx.engine).executor.execute(request.id);
  await fx.engine.idle();
  expect(await fx.engine.get(request.id)).toMatchObject({
    state: 'failed',
    outcome: { reason: TOO_FEW_APPROVALS, nothingSent: true },
  });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('tiers raised before anyone approved: the count shown is the one the tiers ask now, not the filed one', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  const raised = await restartRaised(fx);
  const waiting = await raised.engine.get(request.id);
  if (!waiting) throw new Error('not stored');
  expect(waiting).toMatchObject({ state: 'pending', requiredApprovals: 1, approvals: [] });
  expect(raised.engine.approvalsShown(waiting)).toBe(2);
  const shown = (r: ApprovalRequest) => raised.engine.approvalsShown(r);
  const message = approvalMessage(waiting, new Date(), {}, undefined, shown);
  expect(JSON.stringify(message.blocks)).toContain('0 of 2');
  await raised.engine.stop();
});

test('a record holding the count an approval once saw (written before it was worked out at each reading): read, shown and sent by the tiers now, and not carried into a next round', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  // As an earlier build stored it: an approval under tiers of two left `neededNow`, the tiers since lowered.
  const repo = new ApprovalRepository(fx.store, fx.engine.environment());
  const old = { ...request, neededNow: 2 } as unknown as ApprovalRequest;
  expect(await repo.saveIf(request, old, false)).toBe(true);
  const stored = await fx.engine.get(request.id);
  if (!stored) throw new Error('not stored');
  expect(fx.engine.approvalsShown(stored)).toBe(1);
  const back = sentBack(stored, stored.round, 'the figures changed', { note: 'sent back', at: new Date() });
  expect(back).not.toHaveProperty('neededNow');
  expect(fx.engine.approvalsShown(back)).toBe(1);
  const approved = await approveAsSeen(fx.engine, request.id, APPROVER_B);
  expect(approved).toMatchObject({ ok: true, request: { state: 'approved' } });
  expect(approved.ok && approved.request).not.toHaveProperty('neededNow');
  await fx.engine.idle();
  expect(await fx.engine.get(request.id)).toMatchObject({ state: 'sent' });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});
