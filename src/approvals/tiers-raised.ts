// Tiers raised after a request was approved (a restart with a new CNGN_APPROVAL_TIERS while a freeze of
// sends held it, or just after its last approval): a change of settings, not tampering. Before the
// claim, under the request's lock, it goes back to pending with its approvals kept (same round, so their
// signatures still verify) and waits for the approvals the tiers now ask for; nothing is sent.
// Only a request whose last approval was judged under other recorded settings than this process's is
// this case: the same shortage under the settings that approved it (a count lowered in the store), a
// stored count missing or not a whole number, fewer approvals than its own count, no settings recorded,
// or what the claim cannot see, is still failed at the send (approvalsShort) and needs a person.
import type { ApprovalPolicy } from '../access/index.js';
import { approvalsNeeded, approversCounted } from './approvals-needed.js';
import { backIfApprovalGone } from './approver-left.js';
import type { DelegationBook } from './delegation-requests.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest } from './types.js';

/** The step of an approved request that waits again because the tiers were raised since it was approved. */
export const TIERS_RAISED_ACTION = 'tiers-raised';

/** What the checks before the claim read: the pools and tiers, the delegations, the settings now. */
export interface ClaimChecks {
  policy: Pick<ApprovalPolicy, 'approvalStillCounts' | 'passkeyOwnerStillCounts' | 'requiredFor'>;
  book: Pick<DelegationBook, 'all' | 'byId'>;
  /** The fingerprint of the settings this process judges by (undefined: none recorded). */
  settingsNow: () => string | undefined;
}

/** Its last approval was judged under recorded settings other than the ones this process judges by. */
function approvedUnderOtherSettings(request: ApprovalRequest, settingsNow: string | undefined): boolean {
  const approved = request.history.findLast((step) => step.action === 'approved');
  const then = approved?.policyFingerprint;
  return settingsNow !== undefined && then !== undefined && then !== settingsNow;
}

/**
 * Under the request's lock, before it is claimed: the approved request back to pending with its
 * approvals kept and its step recording the count the tiers ask for now (`needed`), when it was approved under other
 * settings and counts enough for its stored count but fewer than that; undefined otherwise. Pure.
 */
function waitingForRaisedTiers(
  tiers: Pick<ApprovalPolicy, 'requiredFor'>,
  request: ApprovalRequest,
  now: Date,
  settingsNow: string | undefined,
): ApprovalRequest | undefined {
  const needed = approvalsNeeded(request, tiers);
  if (needed === undefined || !approvedUnderOtherSettings(request, settingsNow)) return undefined;
  const counted = approversCounted(request);
  if (counted < request.requiredApprovals || counted >= needed) return undefined;
  const more = needed - counted;
  const wait = more === 1 ? 'one more approval' : `${more} more approvals`;
  const note = `Waiting for ${wait}: the approval tiers were raised since it was approved (${counted} of ${needed} needed now)`;
  return transition({ ...request, checking: undefined } as ApprovalRequest, 'pending', {
    action: TIERS_RAISED_ACTION,
    note,
    at: now,
    needed,
  });
}

/**
 * Under the request's lock, before it is claimed: backIfApprovalGone (an approval that no longer counts
 * sends it back, approvals cleared), else waitingForRaisedTiers. Undefined: it may be claimed.
 */
export async function backBeforeClaim(
  checks: ClaimChecks,
  request: ApprovalRequest,
  now: Date,
): Promise<ApprovalRequest | undefined> {
  const { policy, book, settingsNow } = checks;
  const back = await backIfApprovalGone(policy, book, request, now);
  return back ?? waitingForRaisedTiers(policy, request, now, settingsNow());
}
