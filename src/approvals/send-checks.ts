// The approvals checked just before the one service call, in order: every counted approval's
// signature where one is needed (signed-approvals.ts), as many approvals as the tiers ask for
// (approvals-needed.ts), and, where signatures are needed, the request's filing seal (request-seal.ts),
// so that the requester and the count judged above are the ones filed. Undefined: it may be sent.
// Before those, the write-ahead mark itself is refused unless the approvals are the claimed ones
// (approvalsAsClaimed): what was vetted before the claim is what the checks judge.
import type { ApprovalPolicy } from '../access/index.js';
import { canonicalJson } from '../audit/index.js';
import { approvalsShort } from './approvals-needed.js';
import type { SendChecks } from './signed-approvals.js';
import type { ApprovalRequest } from './types.js';

/** The note the request fails with (nothing sent), or undefined when its approvals hold. */
export async function approvalsProblem(
  signed: SendChecks,
  tiers: Pick<ApprovalPolicy, 'requiredFor'>,
  request: ApprovalRequest,
): Promise<string | undefined> {
  return (
    (await signed.problemAtSend(request)) ??
    approvalsShort(request, tiers) ??
    signed.filingSealProblem(request)
  );
}

/** The note a request fails with when its approvals changed between its claim and its write-ahead mark. */
export const APPROVALS_CHANGED =
  'its approvals changed after it was claimed for sending: the request was changed outside the bot';

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
