// Approval tiers raised after a request was filed: the engine records on each approval step (and on the
// step of an approved request that waits again) how many approvals the tiers then asked for, and the
// verifier judges the send by what the round's latest such step recorded, not only by the count it was
// filed with.
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { verify } from '../support/approver-archive.js';
import { rewriteSegment } from '../support/audit-archive.js';
import { onRequest, problems, test, verifiesCleanly } from './signed-archives.js';

const APPROVAL_STEPS = new Set(['approval-added', 'approved']);

/** The request's entries as an engine writes them when the tiers ask `needed` of a request filed at `filed`. */
function raisedSince(id: string, filed: number, needed: number) {
  return onRequest(id, (entry: AuditEntry) => {
    if (!entry.figures) return entry;
    const figures = { ...entry.figures, requiredApprovals: filed };
    if (APPROVAL_STEPS.has(entry.action))
      return { ...entry, figures: { ...figures, neededApprovals: needed } };
    return { ...entry, figures };
  });
}

/**
 * The entries of a request filed at `filed` whose first approval step recorded the tiers asking `first`,
 * and whose last (the tiers lowered again, or another replica's) judged it at its filed count.
 */
function raisedThenLowered(id: string, filed: number, first: number) {
  let approvalSteps = 0;
  return onRequest(id, (entry: AuditEntry) => {
    if (!entry.figures) return entry;
    const figures = { ...entry.figures, requiredApprovals: filed };
    if (APPROVAL_STEPS.has(entry.action) && approvalSteps++ === 0)
      return { ...entry, figures: { ...figures, neededApprovals: first } };
    return { ...entry, figures };
  });
}

describe('the verifier with approval tiers raised since filing', () => {
  test('fails a request sent with one approver though its approval step recorded that the tiers asked two', async ({
    signed,
  }) => {
    const { folder, withdrawal, sentSeq, signer } = signed;
    // Filed at one approval; the step that approved it says the tiers asked two; sent on one.
    rewriteSegment(folder, signer, raisedSince(withdrawal, 1, 2));
    const { status, lines } = verify(folder, signer.publicKey, { standalone: true });
    expect(problems(lines)).toEqual([
      expect.stringContaining(
        `request ${withdrawal} (withdraw, sent at seq ${sentSeq}): sent with 1 distinct approver, though it needed 2 as the approval tiers raised since filing asked (filed with 1)`,
      ),
    ]);
    expect(status).toBe(1);
  });

  test('passes a request filed at one approval and sent with the two the raised tiers asked', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, signer } = twoApprovals;
    rewriteSegment(folder, signer, raisedSince(withdrawal, 1, 2));
    verifiesCleanly(folder, signer.publicKey, { standalone: true });
  });

  test('passes a request whose later approval was judged at its filed count, the tiers lowered again', async ({
    twoApprovals,
  }) => {
    const { folder, withdrawal, signer } = twoApprovals;
    // Filed at two; the first approval saw tiers asking three; the second, two again: sent with two.
    rewriteSegment(folder, signer, raisedThenLowered(withdrawal, 2, 3));
    verifiesCleanly(folder, signer.publicKey);
    verifiesCleanly(folder, signer.publicKey, { standalone: true });
  });
});
