// The standalone verifier's one sure finding about approvers: an approval by someone no recorded
// settings ever named (by ID, with no group that could hold them) is a problem. The archive is written
// by the real engine, whose own pool (the fixture's list) lets the approval through; the settings it
// records leave the approver out from the start.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import {
  auditedEngineTest,
  flagged,
  recordedPolicy,
  registerClicked,
  signAndApprove,
  signingEngine,
  verify,
} from '../support/approver-archive.js';
import { APPROVER_A, APPROVER_B, REQUESTER, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const WITHOUT_A = recordedPolicy({ approvers: { users: [APPROVER_B, REQUESTER] } });

const test = auditedEngineTest.extend('engineOptions', async ({ auditDir, signer }) => ({
  engine: signingEngine(auditDir, signer, WITHOUT_A),
}));

describe('the verifier with an approver no settings ever named', () => {
  test('fails the approval', async ({ fx, networkId, auditDir, signer }) => {
    const { engine } = fx;
    await engine.start();
    const device = await registerClicked(engine, APPROVER_A, APPROVER_B);
    const request = await fileDraft(engine, withdrawalDraft(networkId, '5000'));
    await signAndApprove(engine, request.id, APPROVER_A, device);
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(await engine.archiveAudit('test')).toMatchObject({ written: true });
    const { status, lines } = verify(join(auditDir, 'archive', 'sandbox'), signer.publicKey);
    expect(flagged(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^PROBLEM sandbox/\\S+: request ${request.id} \\(withdraw, sent at seq \\d+\\): ${APPROVER_A} was not an approver of withdraw requests then$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });
});
