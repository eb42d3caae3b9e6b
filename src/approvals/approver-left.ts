// An approval counts only while the approver it counts for is still in the pool of the request's kind:
// the approver who gave it in their own right, or the delegator in whose place a delegate gave it (the
// same membership the policy asks at the click). Someone taken out of the pool (a user group's member
// removed, say) after approving no longer counts: before the service call, a request counting such an
// approval goes back to its approvers, as for changed figures. A delegation whose window ended after
// the delegate approved is no reason: the delegate acted within it (a revocation has its own path).
import type { ApprovalPolicy, RequestKind } from '../access/index.js';
import { sentBack } from './state-machine.js';
import type { ApprovalRequest } from './types.js';

const KIND_WORDS: Record<RequestKind, string> = {
  withdraw: 'withdrawals',
  redeem: 'redemptions',
  bridge: 'bridges',
  whitelist: 'whitelist additions',
  settlement: 'settlement account changes',
  delegation: 'delegations',
  unfreeze: 'lifting the freeze of sends',
  passkey: 'passkey registrations',
};

/** The first approver the request counts who is no longer in its kind's pool; undefined when none. */
export async function approverLeft(
  policy: Pick<ApprovalPolicy, 'isApprover'>,
  request: ApprovalRequest,
): Promise<string | undefined> {
  for (const approval of request.approvals) {
    const counted = approval.onBehalfOf ?? approval.user;
    if (!(await policy.isApprover(counted, request.kind))) return counted;
  }
  return undefined;
}

/**
 * What the request says when it goes back because an approver it counted left the pool. Reasons are
 * shown as plain text (a service's account name may be quoted in one), so who left is named only in
 * the step's note, for the audit trail; the thread already shows who approved.
 */
function leftReason(kind: RequestKind): string {
  return `an approval no longer counts: its approver is no longer an approver for ${KIND_WORDS[kind]}; approve again`;
}

/**
 * Under the request's lock, before it is claimed: the approved request back with its approvers (a new
 * round, its approvals cleared, the reason naming who left) when an approver it counts has left the
 * pool; undefined when every approval still counts. Pure but for reading the pools: the caller persists.
 */
export async function backIfApproverLeft(
  policy: Pick<ApprovalPolicy, 'isApprover'>,
  request: ApprovalRequest,
  now: Date,
): Promise<ApprovalRequest | undefined> {
  const person = await approverLeft(policy, request);
  if (!person) return undefined;
  const reason = leftReason(request.kind);
  return sentBack(request, request.round, reason, {
    note: `${reason} (<@${person}> left the pool; checked before sending)`,
    at: now,
  });
}
