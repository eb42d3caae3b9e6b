// The standalone verifier with approvers given as a Slack user group whose members the bot listed as it
// first read them after a start (`members of S…` with `policy.members`): a listing places each member
// in the group from there, even where the archive no longer holds the join recorded before it. The
// archive is written by the real engine, whose own pool (the fixture's list) lets the approvals
// through: only the recorded policy says otherwise.
import { describe, expect } from 'vitest';
import { checkApprovalEvidence } from '../../src/audit/approval-evidence.js';
import {
  approverArchiveTest,
  archivedEntries,
  flagged,
  recordedPolicy,
  registerClicked,
  verify,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, REQUESTER } from '../support/engine.js';

const GROUP = 'S0TREASURY';

const test = approverArchiveTest(recordedPolicy({ approvers: { users: [], group: GROUP } }));

describe('the verifier with a user group’s members listed as first read', () => {
  test('passes approvals by the members a listing names, even without the joins before it', async ({
    fx,
    signedAndArchived,
    signer,
  }) => {
    const { engine } = fx;
    await engine.start();
    // A join seen by one process, then the members another first read after its start.
    await engine.recordMembershipChange(GROUP, [APPROVER_A], []);
    const listing = await engine.recordGroupMembers(GROUP, [APPROVER_A, APPROVER_B, REQUESTER]);
    expect(listing?.policy).toMatchObject({
      members: [APPROVER_A, APPROVER_B, REQUESTER],
      added: [APPROVER_B, REQUESTER],
    });
    const deviceA = await registerClicked(engine, APPROVER_A, APPROVER_B);
    const { folder } = await signedAndArchived(APPROVER_A, deviceA);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([]);
    expect(status).toBe(0);
    // As if the segment holding A's join were gone: the listing alone places A in the group.
    const entries = archivedEntries(folder).filter(
      ({ entry }) => !(entry.policy?.group === GROUP && entry.policy.members === undefined),
    );
    const report = checkApprovalEvidence(entries);
    expect([...report.problems, ...report.unknown]).toEqual([]);
  });
});
