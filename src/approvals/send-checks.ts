// The approvals checked just before the one service call, in order: every counted approval's
// signature where one is needed (signed-approvals.ts), as many approvals as the tiers ask for
// (approvals-needed.ts), and, where the bot holds the audit signing key or signatures are needed, the
// request's filing seal (request-seal.ts), so that what is sent, the requester and the count judged
// above are the ones filed; last, for the tracker settling the bot's own write, where the bot holds the
// audit signing key, that the signed audit chain does not record the request as closed
// (closed-on-chain.ts): approvals and seal a closed request keeps. The executor reads the chain itself
// right after this check (ClosedOnChain.failureAtTheCall). Undefined: it may be sent.
// Before those, the write-ahead mark itself is refused unless the approvals are the claimed ones
// (approvalsAsClaimed): what was vetted before the claim is what the checks judge.
import type { ApprovalPolicy } from '../access/index.js';
import { canonicalJson } from '../audit/index.js';
import { approvalsShort, TOO_FEW_APPROVALS } from './approvals-needed.js';
import { closedOnChainNote, NOT_SHOWN_OPEN } from './closed-on-chain.js';
import { FILING_SEAL_BROKEN, FILING_SEAL_MISSING } from './request-seal.js';
import type { CallFailure } from './service-call.js';
import { EVIDENCE_FAILED, FIRST_PASSKEYS_CLOSED, type SendChecks } from './signed-approvals.js';
import type { ApprovalRequest } from './types.js';

/** The note the request fails with (nothing sent), or undefined when its approvals hold. */
async function approvalsProblem(
  signed: SendChecks,
  tiers: Pick<ApprovalPolicy, 'requiredFor'>,
  request: ApprovalRequest,
  chain: 'settle' | undefined,
): Promise<string | undefined> {
  const problem = await signed.problemAtSend(request);
  if (problem) return problem;
  const short = approvalsShort(request, tiers);
  if (short) signed.failedAtSend(request.id); // counted as the signature checks count theirs
  const held = short ?? signed.filingSealProblem(request);
  if (held || !chain) return held;
  return signed.closedOnChain.problem(request, chain);
}

/** The approvals' last check (approvalsProblem) as one function: the executor and the tracker share it. */
export type ApprovalsCheck = (request: ApprovalRequest) => Promise<string | undefined>;

/**
 * The one check both the executor (before its write or call) and the tracker (settling an own write,
 * `chain` 'settle': the signed chain read too) run.
 */
export function approvalsCheck(
  signed: SendChecks,
  tiers: Pick<ApprovalPolicy, 'requiredFor'>,
  chain?: 'settle',
): ApprovalsCheck {
  return (request) => approvalsProblem(signed, tiers, request, chain);
}

/** The note a request fails with when its approvals changed between its claim and its write-ahead mark. */
export const APPROVALS_CHANGED =
  'its approvals changed after it was claimed for sending: the request was changed outside the bot';

/** What a request whose approvals changed between its claim and its mark fails with (counted). */
export function changedAfterClaim(signed: SendChecks, claimed: ApprovalRequest): CallFailure {
  signed.failedAtSend(claimed.id);
  return { to: 'failed', note: APPROVALS_CHANGED };
}

/**
 * Whether the request as stored at the write-ahead mark has exactly the approvals and the count of
 * approvals needed of the request as claimed. Nothing in the bot changes them while it is executing;
 * a store writer who did (an approval added in an approver's place, say) would have them judged at the
 * mark without the checks made before the claim (approver-left.ts).
 */
export function approvalsAsClaimed(current: ApprovalRequest, claimed: ApprovalRequest): boolean {
  const counted = (r: ApprovalRequest) =>
    canonicalJson({ approvals: r.approvals ?? null, requiredApprovals: r.requiredApprovals ?? null });
  return counted(current) === counted(claimed);
}

/**
 * The notes a request fails with just before the call, nothing sent, when it was changed outside the
 * bot or an approval no longer counts: each needs a person (the alerts channel hears of it).
 */
export const NEEDS_A_PERSON_NOTES: ReadonlySet<string> = new Set([
  EVIDENCE_FAILED,
  TOO_FEW_APPROVALS,
  FIRST_PASSKEYS_CLOSED,
  FILING_SEAL_BROKEN,
  FILING_SEAL_MISSING,
  APPROVALS_CHANGED,
  NOT_SHOWN_OPEN,
]);

/** A note of NEEDS_A_PERSON_NOTES, or one saying the request was closed on the signed audit chain. */
export function needsAPerson(note: string): boolean {
  return NEEDS_A_PERSON_NOTES.has(note) || closedOnChainNote(note);
}
