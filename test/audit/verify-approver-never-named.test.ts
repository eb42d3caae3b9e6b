// The standalone verifier's one sure finding about approvers: an approval by someone no recorded
// settings ever named (by ID, with no group that could hold them) is a problem. The archive is written
// by the real engine, whose own pool (the fixture's list) lets the approval through; the settings it
// records leave the approver out from the start.
import { describe, expect } from 'vitest';
import {
  approverArchiveTest,
  flagged,
  notAnApprover,
  recordedPolicy,
  registerClicked,
  verify,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, REQUESTER } from '../support/engine.js';

const test = approverArchiveTest(recordedPolicy({ approvers: { users: [APPROVER_B, REQUESTER] } }));

describe('the verifier with an approver no settings ever named', () => {
  test('fails the approval', async ({ fx, signedAndArchived, signer }) => {
    const { engine } = fx;
    await engine.start();
    const device = await registerClicked(engine, APPROVER_A, APPROVER_B);
    const { folder, withdrawal } = await signedAndArchived(APPROVER_A, device);
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(flagged(lines)).toEqual([notAnApprover(withdrawal)]);
    expect(status).toBe(1);
  });
});
