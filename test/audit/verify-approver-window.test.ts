// The standalone verifier with approvers named by ID, and the policy changed while a request was open.
// The engine judges each click by the settings its process started with, and only the person clicking
// at their click: a restart with other approvers between an earlier approval and the sending does not
// undo it, and a replica not yet restarted judges by older settings. A step names the settings that
// judged it (verify-approver-settings.test.ts); one that does not (one taken before its settings were
// recorded) counts when the settings in force at its step named the approver, cannot be told when only
// others recorded up to the first after the sending did, and is a problem only when none ever did (verify-approver-never-named.test.ts). The archives are written by the real engine
// (its own pool, the fixture's list, lets the approvals through; only the recorded policy says
// otherwise), restarted as a second engine on the same store.
import { describe, expect } from 'vitest';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import type { PolicySnapshot } from '../../src/approvals/index.js';
import { checkApprovalEvidence } from '../../src/audit/approval-evidence.js';
import {
  approverArchiveTest,
  archivedEntries,
  delegatedToOutsider,
  flagged,
  type RecordedApprovers,
  recordedPolicy,
  registerClicked,
  type SignedAndArchived,
  signAndApprove,
  verify,
  withoutSettingsNamed,
} from '../support/approver-archive.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const ALL = recordedPolicy({ approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] } });
const policyOf = (approvers: RecordedApprovers) => recordedPolicy(approvers);
const WITHOUT_A = policyOf({ approvers: { users: [APPROVER_B, REQUESTER] } });

/** What an archive is made with: the engine fixture, its restarts, a network, the steps that archive. */
interface Making {
  fx: EngineFixture;
  restarted: (policy?: PolicySnapshot) => Promise<ApprovalEngine>;
  networkId: string;
  archived: () => Promise<string>;
  signedAndArchived: SignedAndArchived;
}

const test = approverArchiveTest(ALL).extend(
  'making',
  async ({ fx, restarted, networkId, archived, signedAndArchived }): Promise<Making> => ({
    fx,
    restarted,
    networkId,
    archived,
    signedAndArchived,
  }),
);

/** Started with every approver in the pool; A's passkey approved by B's click, B's by the requester's. */
async function twoPasskeys({ engine }: EngineFixture) {
  await engine.start();
  const deviceA = await registerClicked(engine, APPROVER_A, APPROVER_B);
  const deviceB = await registerClicked(engine, APPROVER_B, REQUESTER);
  return { deviceA, deviceB };
}

/**
 * Restarted with `before` (started), a ₦1,200,000 withdrawal (two approvals) A signs and approves;
 * restarted with `after` (started), B signs and approves it: sent. The archive's folder.
 */
async function changedBetween(
  making: Making,
  { before, after }: { before: PolicySnapshot; after: PolicySnapshot },
): Promise<string> {
  const { fx, restarted, networkId } = making;
  const { deviceA, deviceB } = await twoPasskeys(fx);
  const first = await restarted(before);
  await first.start();
  const request = await fileDraft(first, withdrawalDraft(networkId, '1200000'));
  expect(request.requiredApprovals).toBe(2);
  await signAndApprove(first, request.id, APPROVER_A, deviceA);
  const second = await restarted(after);
  await second.start();
  await signAndApprove(second, request.id, APPROVER_B, deviceB);
  expect((await second.get(request.id))?.state).toBe('sent');
  return making.archived();
}

/**
 * Restarted with `recorded` (started); a ₦5,000 withdrawal A signs and approves on a bot given no
 * settings to record (so its step names none, as one taken before its settings were recorded): sent;
 * then a bot with `clickedUnder` starts, recording them. An engine given settings refuses a click before
 * they are recorded (approval-core.ts), so this archive is what such a click would leave.
 */
async function clickedBeforeRecord(
  making: Making,
  { recorded, clickedUnder }: { recorded: PolicySnapshot; clickedUnder: PolicySnapshot },
): Promise<{ folder: string; withdrawal: string }> {
  const { fx, restarted, networkId } = making;
  const { deviceA } = await twoPasskeys(fx);
  const running = await restarted(recorded);
  await running.start();
  const request = await fileDraft(running, withdrawalDraft(networkId, '5000'));
  const clicker = await restarted(undefined);
  await signAndApprove(clicker, request.id, APPROVER_A, deviceA);
  expect((await clicker.get(request.id))?.state).toBe('sent');
  await (await restarted(clickedUnder)).start();
  return { folder: await making.archived(), withdrawal: request.id };
}

/**
 * A delegates to the outsider (B signs), whose passkey B signs; a ₦5,000 withdrawal the outsider signs
 * in A's place, sent. Archived: the folder and the withdrawal.
 */
async function delegatedArchive({ fx, signedAndArchived }: Making) {
  const { deviceB } = await twoPasskeys(fx);
  const device = await delegatedToOutsider(fx.engine, deviceB);
  return signedAndArchived(OUTSIDER, device);
}

/** The line for A's approval of `request`, not under the settings in force then but under others. */
const notInForce = (request: string) =>
  expect.stringMatching(
    new RegExp(
      `^CANNOT TELL sandbox/\\S+: request ${request} .*: cannot tell whether ${APPROVER_A} was an approver then: not under the settings in force when approving, but under others recorded up to the first after the sending`,
    ),
  );

const clean = ({ status, lines }: { status: number; lines: string[] }) => {
  expect(flagged(lines)).toEqual([]);
  expect(lines.at(-1)).toBe('No problems: every signature, hash and link checks out.');
  expect(status).toBe(0);
};

describe('the verifier with the approvers changed while a request was open', () => {
  test('passes an approval made before a restart took its approver out of the pool, the request sent after', async ({
    making,
    signer,
  }) => {
    const folder = await changedBetween(making, { before: ALL, after: WITHOUT_A });
    clean(verify(folder, signer.publicKey, { standalone: true }));
  });

  test('passes it when the pool changed was the kind’s own', async ({ making, signer }) => {
    const withdrawers = (users: string[]) =>
      policyOf({
        approvers: { users: [APPROVER_A, APPROVER_B, REQUESTER] },
        byKind: { withdraw: { everyone: false, users, groups: [] } },
      });
    const folder = await changedBetween(making, {
      before: withdrawers([APPROVER_A, APPROVER_B]),
      after: withdrawers([APPROVER_B]),
    });
    clean(verify(folder, signer.publicKey, { standalone: true }));
  });

  test('cannot tell, and does not fail, a click a restarted bot took before it recorded the settings that let it', async ({
    making,
    signer,
  }) => {
    // Settings recorded after the click may have judged it (the restart gap), or someone may have been
    // made an approver after approving: the chain cannot tell which.
    const { folder, withdrawal } = await clickedBeforeRecord(making, {
      recorded: WITHOUT_A,
      clickedUnder: ALL,
    });
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([
      notInForce(withdrawal),
      expect.stringMatching(/^NOT CHECKED: 1 approval /),
    ]);
    expect(status).toBe(0);
  });

  test('says it cannot tell whose place an approval took when its step is no longer in the archive', async ({
    making,
  }) => {
    const { folder, withdrawal } = await delegatedArchive(making);
    // As if retention had cut the segment holding the outsider's approval step, not the sending.
    const entries = archivedEntries(folder).filter(
      ({ entry }) => !(entry.requestId === withdrawal && entry.action === 'approved'),
    );
    const report = checkApprovalEvidence(entries);
    expect(report.problems).toEqual([]);
    expect(report.unknown).toEqual([
      expect.objectContaining({
        approval: `${withdrawal} ${OUTSIDER}`,
        text: expect.stringMatching(
          `: cannot tell whether ${OUTSIDER}'s approval was by an approver: the archive holds no approval step of theirs to say when they approved or whose place they may have taken$`,
        ),
      }),
    ]);
  });

  test('settles by the settings its step names a click a replica still on settings replaced since took', async ({
    making: { fx, restarted, signedAndArchived },
    signer,
  }) => {
    const { deviceA } = await twoPasskeys(fx);
    // Two more replicas start with new settings and record them; the first, still on the old ones
    // that named A, takes A's click.
    await (await restarted(WITHOUT_A)).start();
    await (await restarted(policyOf({ approvers: { users: [APPROVER_B] } }))).start();
    const { folder, withdrawal } = await signedAndArchived(APPROVER_A, deviceA);
    clean(verify(folder, signer.publicKey, { standalone: true }));
    // Written by an older version, whose steps did not name their settings: it cannot be told.
    const report = checkApprovalEvidence(withoutSettingsNamed(archivedEntries(folder)));
    expect(report.problems).toEqual([]);
    expect(report.unknown).toEqual([
      expect.objectContaining({
        approval: `${withdrawal} ${APPROVER_A}`,
        text: expect.stringContaining(
          `: cannot tell whether ${APPROVER_A} was an approver then: not under the settings in force when approving, but under others recorded up to the first after the sending`,
        ),
      }),
    ]);
  });
});
