// Two replicas started with different approval tiers (a deploy under way): a click that one judges final
// holds the request while its figures are re-read; a click on the other, which judges it not final, waits
// like another final click would, and never wipes that hold (the first approver's click would be lost).
import { expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
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

test('a click one replica judges not final waits while another replica re-checks its final click', async ({
  startEngine,
}) => {
  const fx = await startEngine({ tiers: '0:1' });
  const [networkId] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  // Replica one (tiers of one approval) took B's click as final and is re-reading the figures.
  const repo = new ApprovalRepository(fx.store, 'sandbox');
  const held = {
    ...request,
    checking: { user: APPROVER_B, at: partsOf(fx.engine).core.now().toISOString() },
  };
  expect(await repo.saveIf(request, held)).toBe(true);
  // Replica two asks three approvals for it: A's click is not final there.
  const policy = new ApprovalPolicy({
    approvers: [APPROVER_A, APPROVER_B, REQUESTER],
    tiers: parseTiers('0:3'),
  });
  const other = await fx.another({ engine: { policy, now: partsOf(fx.engine).core.now } });
  const clicked = await approveAsSeen(other.engine, request.id, APPROVER_A);
  expect(clicked).toMatchObject({ ok: false, reason: 'checking' });
  expect(await other.engine.get(request.id)).toMatchObject({ checking: { user: APPROVER_B }, approvals: [] });
  await other.engine.stop();
});
