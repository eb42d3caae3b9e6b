// A delegation as granted, and when it is in effect: what the policy (policy.ts) reads to let a
// delegate approve in an approver's place. The request that grants it, the store's index of those
// requests and their revocation are the approvals room's (approvals/delegation-requests.ts).

/**
 * The longest a delegation may run from its filing: long enough for a holiday, short enough to be
 * looked at again.
 */
export const LONGEST_DELEGATION_MS = 90 * 86_400_000;

/** A delegation as granted: who may approve in whose place, until when, up to which amount. */
export interface Delegation {
  /** The id of the request that granted it. */
  id: string;
  delegator: string;
  delegate: string;
  /** When it took effect (its request completed). */
  from: string;
  until: string;
  /** Canonical decimal ₦ cap per request; absent: no cap. */
  max?: string;
  /** The approvers who approved it. */
  approvedBy: string[];
  /** `by` empty: ended by the bot itself (its delegate or delegator may no longer act), `note` says why. */
  revoked?: { at: string; by: string; note?: string };
}

/** Whether a delegation is in effect at `now`. */
export function isLive(delegation: Delegation, now: Date): boolean {
  return !delegation.revoked && now.getTime() < Date.parse(delegation.until);
}
