// The standalone verifier with approval steps that name the settings that judged them (their
// fingerprint, as the policy entries record it): such a step is judged by those settings alone, whatever
// other replicas recorded around it. So a click a replica took under settings that left the approver out
// is a problem even where settings recorded around it named them (which an older version's steps, not
// naming theirs, leave untold or pass); only settings missing from the archive leave it untold. The
// archives are written by the real engine, whose own pool (the fixture's list) lets every approval
// through: only the recorded policy says otherwise.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { PolicySnapshot } from '../../src/approvals/index.js';
import { checkApprovalEvidence } from '../../src/audit/approval-evidence.js';
import {
  archivedEntries,
  auditedEngineTest,
  flagged,
  recordedPolicy,
  registerClicked,
  signAndApprove,
  signingEngine,
  verify,
  withoutSettingsNamed,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, type EngineFixture, REQUESTER, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const ALL = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });
const WITHOUT_A = recordedPolicy({ approvers: { users: [APPROVER_B, REQUESTER] } });

const test = auditedEngineTest
  .extend('engineOptions', async ({ auditDir, signer }) => ({
    engine: signingEngine(auditDir, signer, WITHOUT_A),
  }))
  /** Another replica on the same store with `policy`, started (it records them when they differ). */
  .extend('replica', async ({ fx, auditDir, signer, defer }) => async (policy: PolicySnapshot) => {
    const { engine } = await fx.another({ engine: signingEngine(auditDir, signer, policy) });
    defer(() => engine.stop());
    await engine.start();
  });

/** What an archive is made with: the engine fixture, its replicas, a network, the audit folder. */
interface Making {
  fx: EngineFixture;
  replica: (policy: PolicySnapshot) => Promise<void>;
  networkId: string;
  auditDir: string;
}

/**
 * The fixture's engine starts on settings without A (B's click approves A's passkey); replicas record
 * `others` in turn; then A signs a ₦5,000 withdrawal on the fixture's engine, still on its settings:
 * sent and archived. The archive's folder and the withdrawal.
 */
async function clickedUnderOldSettings(
  { fx: { engine }, replica, networkId, auditDir }: Making,
  others: PolicySnapshot[],
) {
  await engine.start();
  const deviceA = await registerClicked(engine, APPROVER_A, APPROVER_B);
  for (const policy of others) await replica(policy);
  const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(engine, request.id, APPROVER_A, deviceA);
  expect((await engine.get(request.id))?.state).toBe('sent');
  expect(await engine.archiveAudit('test')).toMatchObject({ written: true });
  const entries = await engine.auditRange(undefined, undefined);
  const step = entries.find((e) => e.requestId === request.id && e.action === 'approved');
  const recorded = entries.filter((e) => e.policy?.settings).map((e) => e.policy?.fingerprint);
  // The step names the settings of the fixture's engine, which the policy entries hold.
  expect(step?.policyFingerprint).toBe(recorded[0]);
  return { folder: join(auditDir, 'archive', 'sandbox'), withdrawal: request.id };
}

/** The PROBLEM line that A was not an approver of the withdrawal. */
const notAnApprover = (withdrawal: string) =>
  expect.stringMatching(
    new RegExp(
      `^PROBLEM sandbox/\\S+: request ${withdrawal} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A} was not an approver of withdraw requests then$`,
    ),
  );

describe('the verifier with steps that name the settings that judged them', () => {
  test('fails a click taken under settings without the approver, though settings recorded around it named them', async ({
    fx,
    replica,
    networkId,
    auditDir,
    signer,
  }) => {
    // Recorded in turn: without A (the fixture's), all, without A again; the click is judged by the first.
    const { folder, withdrawal } = await clickedUnderOldSettings({ fx, replica, networkId, auditDir }, [
      ALL,
      WITHOUT_A,
    ]);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([notAnApprover(withdrawal)]);
    expect(status).toBe(1);
    // Steps that do not name their settings leave it untold: ALL, recorded in the window, named A.
    const older = checkApprovalEvidence(withoutSettingsNamed(archivedEntries(folder)));
    expect(older.problems).toEqual([]);
    expect(older.unknown).toEqual([expect.objectContaining({ approval: `${withdrawal} ${APPROVER_A}` })]);
  });

  test('fails it when the settings in force at the step were another replica’s that named the approver', async ({
    fx,
    replica,
    networkId,
    auditDir,
    signer,
  }) => {
    const { folder, withdrawal } = await clickedUnderOldSettings({ fx, replica, networkId, auditDir }, [ALL]);
    const { status, lines } = verify(folder, signer.publicKey);
    expect(flagged(lines)).toEqual([notAnApprover(withdrawal)]);
    expect(status).toBe(1);
    // Without the step naming them, the settings in force (ALL) pass it.
    const older = checkApprovalEvidence(withoutSettingsNamed(archivedEntries(folder)));
    expect([...older.problems, ...older.unknown]).toEqual([]);
  });

  test('cannot tell only when the archive no longer holds the settings the step names', async ({
    fx,
    replica,
    networkId,
    auditDir,
  }) => {
    const { folder, withdrawal } = await clickedUnderOldSettings({ fx, replica, networkId, auditDir }, [ALL]);
    const entries = archivedEntries(folder);
    const judgedBy = entries.find((e) => e.entry.requestId === withdrawal && e.entry.action === 'approved')
      ?.entry.policyFingerprint;
    // As if the segment holding those settings were gone (the signing rule stays in force: ALL has it).
    const report = checkApprovalEvidence(entries.filter((e) => e.entry.policy?.fingerprint !== judgedBy));
    expect(report.problems).toEqual([]);
    expect(report.unknown).toEqual([
      expect.objectContaining({
        approval: `${withdrawal} ${APPROVER_A}`,
        text: expect.stringContaining(
          `: cannot tell whether ${APPROVER_A} was an approver then: the archive does not hold the settings that judged their approval step (fingerprint ${judgedBy?.slice(0, 12)}…)`,
        ),
      }),
    ]);
  });
});
