// Tiers raised between filing and the last approval (a deploy with a new CNGN_APPROVAL_TIERS): the
// engine approves at the count the executor will require, the more of the stored count and the tiers'
// now, so a request filed under the old tiers waits for the extra approval (and shows that count) and is
// then sent once.
import { expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { approvalsShown } from '../../src/approvals/index.js';
import { approvalMessage } from '../../src/slack/approvals/blocks/message.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('a request filed at one approval, tiers raised to two: still pending after one, sent after two', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  expect(request.requiredApprovals).toBe(1);
  await fx.engine.stop();
  // The bot restarted with tiers that ask two approvals for it.
  const policy = new ApprovalPolicy({
    approvers: [APPROVER_A, APPROVER_B, REQUESTER],
    tiers: parseTiers('0:2'),
  });
  const raised = await fx.another({ engine: { policy, now: partsOf(fx.engine).core.now } });
  const first = await approveAsSeen(raised.engine, request.id, APPROVER_B);
  expect(first).toMatchObject({ ok: true, request: { state: 'pending' } });
  expect(first.ok && first.request.history.at(-1)).toMatchObject({
    action: 'approval-added',
    note: '1 of 2',
  });
  await raised.engine.idle();
  const waiting = await raised.engine.get(request.id);
  expect(waiting).toMatchObject({ state: 'pending', requiredApprovals: 1, neededNow: 2 });
  // What its message, App Home, Review and lists show: the count it now waits for.
  expect(waiting && approvalsShown(waiting)).toBe(2);
  if (waiting) expect(JSON.stringify(approvalMessage(waiting, new Date()).blocks)).toContain('1 of 2');
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  const second = await approveAsSeen(raised.engine, request.id, APPROVER_A);
  expect(second).toMatchObject({ ok: true, request: { state: 'approved' } });
  await raised.engine.idle();
  expect(await raised.engine.get(request.id)).toMatchObject({ state: 'sent' });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await raised.engine.stop();
});
