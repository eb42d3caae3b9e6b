import { describe, expect } from 'vitest';
import { verify } from '../support/approver-archive.js';
import { rewriteSegment } from '../support/audit-archive.js';
import { APPROVER_A, OUTSIDER } from '../support/engine.js';
import {
  approvedAgain,
  filedBy,
  onRequest,
  problems,
  registeredAfterApproving,
  sentBackArchive,
  test,
  verifiesCleanly,
} from './signed-archives.js';

describe('the verifier’s check of passkey-signed approvals', () => {
  test('passes a request two approvers signed, and fails it once the first one’s passkey was registered after their approval (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = twoApprovals;
    let result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([]);
    expect(result.lines).toContain(
      'sandbox: 3 passkey signatures checked on 2 requests sent with signed approvals',
    );
    expect(result.status).toBe(0);
    // Registered (marked executing) after A's approval but before B's sent the request: the approval's own time counts.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A));
    result = verify(folder, signer.publicKey);
    expect(problems(result.lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq ${sentSeq}\\): ${APPROVER_A}'s signature is by passkey \\S+, registered only after the approval$`,
        ),
      ),
    ]);
    expect(result.status).toBe(1);
  });

  test('passes an approval signed with a passkey whose registration was marked executing before it and completed after (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, signer } = twoApprovals;
    // The book holds the passkey from the registration's `executing` step; a crash before its
    // `completed` step leaves A's approval, signed with it, in between.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A, ['completed']));
    verifiesCleanly(folder, signer.publicKey);
  });

  test('judges an approver with two approval steps in one round by the first (a store edit)', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = twoApprovals;
    // A's passkey registered after A's approval, and A's step written again after the registration.
    rewriteSegment(folder, signer, registeredAfterApproving(withdrawal, APPROVER_A));
    rewriteSegment(folder, signer, approvedAgain(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringMatching(
        new RegExp(
          `request ${withdrawal} \\(withdraw, sent at seq ${sentSeq + 1}\\): ${APPROVER_A}'s signature is by passkey \\S+, registered only after the approval$`,
        ),
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes a request sent back and approved again with a passkey registered in between', async ({
    fx,
    auditDir,
    signer,
  }) => {
    const { folder } = await sentBackArchive(fx, auditDir);
    const lines = verifiesCleanly(folder, signer.publicKey);
    expect(lines).toContain('sandbox: 4 passkey signatures checked on 3 requests sent with signed approvals');
  });

  test('passes a request signed by a delegate in an approver’s place', async ({ delegated }) => {
    const { folder, signer } = delegated;
    verifiesCleanly(folder, signer.publicKey);
  });

  test('fails an approver’s own signed approval beside their delegate’s (a store edit)', async ({
    delegated,
  }) => {
    const { folder, withdrawal, sentSeq, ownEvidence, signer } = delegated;
    // A's own assertion verifies on its own: only the delegation makes it the same person twice.
    rewriteSegment(
      folder,
      signer,
      onRequest(withdrawal, (entry) => {
        const figures = entry.figures;
        if (!figures?.signatures) return entry;
        const approvals = [...figures.approvals, APPROVER_A];
        return {
          ...entry,
          figures: { ...figures, approvals, signatures: [...figures.signatures, ownEvidence] },
        };
      }),
    );
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${APPROVER_A} is counted more than once among its approvals (${OUTSIDER} approved in ${APPROVER_A}'s place)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('fails an approval by the requester’s delegate in the requester’s place (a store edit)', async ({
    delegated,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = delegated;
    // As if A had filed the withdrawal A's delegate then approved in A's place.
    rewriteSegment(folder, signer, filedBy(withdrawal, APPROVER_A));
    const { status, lines } = verify(folder, signer.publicKey);
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): ${OUTSIDER} approved in the place of ${APPROVER_A}, who filed it`,
      ),
    ]);
    expect(status).toBe(1);
  });
});
