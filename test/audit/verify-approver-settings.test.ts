// The standalone verifier with approval steps that name the settings that judged them (their
// fingerprint, as the policy entries record it): such a step is judged by those settings alone, whatever
// other replicas recorded around it. So a click a replica took under settings that left the approver out
// is a problem even where settings recorded around it named them (which an older version's steps, not
// naming theirs, leave untold or pass); only settings missing from the archive leave it untold. The
// archives are written by the real engine, whose own pool (the fixture's list) lets every approval
// through: only the recorded policy says otherwise.
import { describe, expect } from 'vitest';
import type { PolicySnapshot } from '../../src/approvals/index.js';
import { checkApprovalEvidence } from '../../src/audit/approval-evidence.js';
import {
  approverArchiveTest,
  archivedEntries,
  flagged,
  notAnApprover,
  recordedPolicy,
  registerClicked,
  verify,
  withoutSettingsNamed,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, REQUESTER } from '../support/engine.js';

const ALL = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });
const WITHOUT_A = recordedPolicy({ approvers: { users: [APPROVER_B, REQUESTER] } });

const test = approverArchiveTest(WITHOUT_A)
  /**
   * The fixture's engine starts on settings without A (B's click approves A's passkey); other replicas
   * on the same store start with `others` in turn, recording them; then A signs a ₦5,000 withdrawal on
   * the fixture's engine, still on its settings: sent and archived. The archive's folder and the withdrawal.
   */
  .extend('clickedUnderOldSettings', async ({ fx, restarted, signedAndArchived }) => {
    return async (others: PolicySnapshot[]) => {
      const { engine } = fx;
      await engine.start();
      const deviceA = await registerClicked(engine, APPROVER_A, APPROVER_B);
      for (const policy of others) await (await restarted(policy)).start();
      const archive = await signedAndArchived(APPROVER_A, deviceA);
      const entries = await engine.auditRange(undefined, undefined);
      const step = entries.find((e) => e.requestId === archive.withdrawal && e.action === 'approved');
      const recorded = entries.filter((e) => e.policy?.settings).map((e) => e.policy?.fingerprint);
      // The step names the settings of the fixture's engine, which the policy entries hold.
      expect(step?.policyFingerprint).toBe(recorded[0]);
      return archive;
    };
  });

/**
 * The verifier's answer on the archive of `withdrawal` (signed with `key`), and the report on its entries
 * as an older version wrote them (steps not naming the settings that judged them).
 */
const judged = ({ folder, withdrawal }: { folder: string; withdrawal: string }, key: string) => ({
  withdrawal,
  ...verify(folder, key, { standalone: true }),
  older: checkApprovalEvidence(withoutSettingsNamed(archivedEntries(folder))),
});

describe('the verifier with steps that name the settings that judged them', () => {
  test('fails a click taken under settings without the approver, though settings recorded around it named them', async ({
    clickedUnderOldSettings,
    signer,
  }) => {
    // Recorded in turn: without A (the fixture's), all, without A again; the click is judged by the first.
    const archive = await clickedUnderOldSettings([ALL, WITHOUT_A]);
    const { withdrawal, status, lines, older } = judged(archive, signer.publicKey);
    expect(flagged(lines)).toEqual([notAnApprover(withdrawal)]);
    expect(status).toBe(1);
    // Steps that do not name their settings leave it untold: ALL, recorded in the window, named A.
    expect(older.problems).toEqual([]);
    expect(older.unknown).toEqual([expect.objectContaining({ approval: `${withdrawal} ${APPROVER_A}` })]);
  });

  test('fails it when the settings in force at the step were another replica’s that named the approver', async ({
    clickedUnderOldSettings,
    signer,
  }) => {
    const { withdrawal, status, lines, older } = judged(
      await clickedUnderOldSettings([ALL]),
      signer.publicKey,
    );
    expect(flagged(lines)).toEqual([notAnApprover(withdrawal)]);
    expect(status).toBe(1);
    // Without the step naming them, the settings in force (ALL) pass it.
    expect([...older.problems, ...older.unknown]).toEqual([]);
  });

  test('cannot tell only when the archive no longer holds the settings the step names', async ({
    clickedUnderOldSettings,
  }) => {
    const { folder, withdrawal } = await clickedUnderOldSettings([ALL]);
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
