// The execution lease on a request: who is making its call and until when, and what a lapsed one
// means. Pure: the executor writes leases, the tracker takes over lapsed ones.
import type { ApprovalRequest } from './types.js';

/**
 * How long a claim holds before it counts as orphaned. Claiming and recording the claim on the request
 * happen in one hold of the request's lock, so a live holder never needs anywhere near this long; one
 * that stalls past it may be overtaken, and then its conditional write fails and it sends nothing.
 */
export const CLAIM_LEASE_MS = 60_000;

/**
 * How long an executing request stays its caller's without renewal. The caller renews it while the
 * call is in flight; after it runs out, another process may call the outcome unknown (never resend).
 */
export const EXECUTION_LEASE_MS = 120_000;

/** No live process is making this request's call (its lease ran out, or it never had one). */
export function leaseExpired(request: ApprovalRequest, now: Date): boolean {
  return !request.execution || Date.parse(request.execution.leaseUntil) <= now.getTime();
}

/**
 * Executing, but its claimant never wrote the write-ahead mark: the call was certainly not made. A
 * lease without a phase was written before the mark existed, and its call may have gone out.
 */
export function certainlyUnsent(request: ApprovalRequest): boolean {
  return request.state === 'executing' && request.execution?.phase === 'claimed';
}

/**
 * Outcome-unknown because this claim was interrupted (its lease ran out after its mark): the same round,
 * and no other claim has moved it to executing since this one did.
 */
export function interruptedClaim(current: ApprovalRequest, claimed: ApprovalRequest): boolean {
  if (current.state !== 'outcome-unknown' || current.round !== claimed.round) return false;
  const ours = claimed.history.length - 1;
  const entry = current.history[ours];
  const claimEntry = claimed.history[ours];
  if (!entry || !claimEntry || entry.action !== 'executing' || entry.at !== claimEntry.at) return false;
  return !current.history.slice(ours + 1).some((h) => h.action === 'executing' || h.action === 'released');
}

/** The write-ahead mark written (marked), or the request handed back to a freeze of sends (frozen). */
export type Marking = { marked: ApprovalRequest } | { frozen: ApprovalRequest };
