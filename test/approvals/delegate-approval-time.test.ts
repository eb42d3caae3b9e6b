// A delegate's approval is stamped when the click arrives, before the policy check (which may wait on
// Slack) finds the delegation in effect: a delegation that completed in that wait still stands behind
// the approval at the send, which is not sent back.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  OUTSIDER,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('an approval stamped just before its delegation completed is sent', async ({ startEngine }) => {
  const fx = await startEngine({ tiers: '0:2' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({ ok: true });
  const delegation = await fx.engine.fileDelegation(APPROVER_A, OUTSIDER, new Date(Date.now() + 86_400_000));
  for (const user of [APPROVER_B, REQUESTER]) {
    expect(await approveAsSeen(fx.engine, delegation.id, user)).toMatchObject({ ok: true });
  }
  await fx.engine.idle();
  const completed = await fx.engine.get(delegation.id);
  expect(completed?.state).toBe('completed');
  // The outsider's click arrived while the delegation was being approved: stamped before it completed.
  const clicked = new Date(Date.parse(delegation.createdAt));
  expect(clicked.getTime()).toBeLessThan(Date.parse(completed?.history.at(-1)?.at ?? ''));
  const repo = new ApprovalRepository(fx.store, 'sandbox');
  const stored = await repo.get(request.id);
  if (!stored) throw new Error('not stored');
  const approved = withApproval(stored, OUTSIDER, clicked, { onBehalfOf: APPROVER_A });
  expect(approved.state).toBe('approved');
  expect(await repo.saveIf(stored, approved)).toBe(true);
  await partsOf(fx.engine).executor.execute(request.id);
  await fx.engine.idle();
  expect(await fx.engine.get(request.id)).toMatchObject({ state: 'sent' });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});
