// An approved request sent long after its approval (a restart, an outage) has its stale figures read
// again first: a material change goes back to the approvers instead of being sent.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { STALE_APPROVAL_MS } from '../../src/approvals/executor.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { redemptionDraft } from '../support/drafts.js';
import { APPROVER_A, type EngineFixture, REQUESTER, engineTest as test } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const redeemCalls = (fx: EngineFixture) => fx.sandbox.count('POST', '/v1/api/redeemAsset');
const nameChecks = (fx: EngineFixture) => fx.sandbox.count('POST', '/v1/api/account/verify');

/** A redemption approved on the account name the bank gives now, but not sent (the bot stopped). */
async function approvedRedemption(fx: EngineFixture): Promise<ApprovalRequest> {
  const filed = await fileDraft(fx.engine, redemptionDraft(REQUESTER, 'To be resolved'));
  await partsOf(fx.engine).core.approve(filed.id, APPROVER_A); // sent back with the real name
  const approved = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!approved.ok || approved.request.state !== 'approved') throw new Error('not approved');
  return approved.request;
}

test('sends a late approved redemption back to the approvers when the account name changed', async ({
  fx,
}) => {
  const request = await approvedRedemption(fx);
  // What the approvers saw is no longer what the bank says.
  await partsOf(fx.engine).core.repo.save(
    { ...request, display: { ...request.display, accountName: 'Old Owner' } },
    false,
  );
  fx.clock.advance(STALE_APPROVAL_MS + 60_000);
  const checksBefore = nameChecks(fx);
  await fx.engine.tick();
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  expect(after).toMatchObject({ state: 'pending', approvals: [], round: request.round + 1 });
  expect(after?.reason).toContain('account name');
  expect(nameChecks(fx)).toBe(checksBefore + 1);
  expect(redeemCalls(fx)).toBe(0);
});

test('sends a late approved redemption once its figures are read again unchanged', async ({ fx }) => {
  const request = await approvedRedemption(fx);
  fx.clock.advance(STALE_APPROVAL_MS + 60_000);
  const checksBefore = nameChecks(fx);
  await fx.engine.tick();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.find((h) => h.action === 'executing')?.note).toContain('checked again');
  expect(nameChecks(fx)).toBe(checksBefore + 1);
  expect(redeemCalls(fx)).toBe(1);
});

test('reads nothing again for a request sent soon after its approval', async ({ fx }) => {
  const request = await approvedRedemption(fx);
  const checksBefore = nameChecks(fx);
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(nameChecks(fx)).toBe(checksBefore);
  expect(redeemCalls(fx)).toBe(1);
});

test('says once when the late check cannot be made, and tries again a minute later, not every sweep', async ({
  fx,
}) => {
  const request = await approvedRedemption(fx);
  fx.clock.advance(STALE_APPROVAL_MS + 60_000);
  fx.sandbox.failNext('POST', '/v1/api/account/verify', 400, 1, 'Could not resolve account details');
  const checksBefore = nameChecks(fx);
  await fx.engine.tick();
  await fx.engine.tick();
  const waiting = await fx.engine.get(request.id);
  expect(waiting?.state).toBe('approved');
  expect(waiting?.history.filter((h) => h.action === 'execution-delayed')).toHaveLength(1);
  expect(nameChecks(fx)).toBe(checksBefore + 1);
  fx.clock.advance(61_000);
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(nameChecks(fx)).toBe(checksBefore + 2);
  expect(redeemCalls(fx)).toBe(1);
});
