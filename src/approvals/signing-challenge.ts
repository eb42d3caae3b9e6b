// A signing page's challenge: given only when the approver could approve the request now (the same
// question a review asks first, engine-questions.ts) and its approval must be signed.
import { canApprove } from './engine-questions.js';
import type { ChallengeRefusal, SignedApprovals, SigningChallenge } from './signed-approvals.js';
import type { ApprovalRequest, Refusal } from './types.js';

/** What a signing page is given: the challenge for the request as stored now, or why there is none. */
export type ChallengeResult =
  | ({ ok: true; request: ApprovalRequest } & SigningChallenge)
  | { ok: false; refusal: Refusal | ChallengeRefusal; request?: ApprovalRequest }
  | { ok: false; stale: ApprovalRequest };

/**
 * The challenge for `user` approving round `round` of request `id`: only when they could approve it now
 * (canApprove) and it must be signed. A one-time nonce is issued (10 minutes, single use).
 */
export async function signingChallenge(
  deps: Parameters<typeof canApprove>[0] & { signed: SignedApprovals },
  id: string,
  user: string,
  round: number,
): Promise<ChallengeResult> {
  const ready = await canApprove(deps, id, user, round);
  if (!ready.ok) return ready;
  const made = await deps.signed.challenge(ready.request, user);
  if (typeof made === 'string') return { ok: false, refusal: made, request: ready.request };
  return { ok: true, request: ready.request, ...made };
}
