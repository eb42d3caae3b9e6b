// An engine given settings to record takes no approval before they are on the record (openTrail): its
// step could not name the settings that judged it. Once recorded, each approval step names them.
import { expect } from 'vitest';
import { ApprovalErrorCode, PolicyNotOpened } from '../../src/approvals/index.js';
import { AuditLog } from '../../src/audit/log.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { recordedPolicy } from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, engineTest as test, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('refuses an approval before the settings it was given are recorded, then names them', async ({
  fx,
  networkId,
  defer,
}) => {
  const policySnapshot = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B] } });
  const { engine } = await fx.another({ engine: { policySnapshot } });
  defer(() => engine.stop());
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  await expect(approveAsSeen(engine, request.id, APPROVER_A)).rejects.toThrow(PolicyNotOpened);
  await expect(approveAsSeen(engine, request.id, APPROVER_A)).rejects.toMatchObject({
    code: ApprovalErrorCode.PolicyNotOpened,
    message: expect.stringMatching(/settings this bot runs with are not on the audit record yet/),
  });
  expect((await engine.get(request.id))?.approvals).toEqual([]);
  await engine.openTrail();
  expect((await approveAsSeen(engine, request.id, APPROVER_A)).ok).toBe(true);
  await engine.idle();
  const entries = await new AuditLog(fx.store).entries('sandbox');
  const recorded = entries.find((e) => e.kind === 'policy')?.policy?.fingerprint;
  const step = entries.find((e) => e.requestId === request.id && e.action === 'approved');
  expect(recorded).toBeDefined();
  expect(step?.policyFingerprint).toBe(recorded);
});
