// Approve (in the channel, a DM or App Home) records nothing: it opens the review modal with every
// figure in full, and only the modal's submission approves (views/review.ts). The modal opens within
// Slack's 3 s trigger because only the store is read before it (never the service). A click that
// cannot approve (stale copy, request ended, the requester, a non-approver) opens nothing and is
// answered privately.
import type { ApprovalEngine, Refusal } from '../../../approvals/index.js';
import type { ApprovalRequest } from '../../../approvals/types.js';

export type ReviewCheck =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; refusal: Refusal; request?: ApprovalRequest }
  | { ok: false; stale: ApprovalRequest };

/**
 * Could this person approve round `round` of the request now? Store reads and the policy's own check
 * (the one App Home and Review all ask), in the engine's order: ended, then round, then who. Changes
 * nothing; the engine decides again under the lock when the modal is submitted.
 */
export async function reviewCheck(
  engine: ApprovalEngine,
  id: string,
  round: number,
  user: string,
): Promise<ReviewCheck> {
  const request = await engine.get(id);
  if (!request) return { ok: false, refusal: 'not-found' };
  if (request.state !== 'pending') return { ok: false, refusal: 'not-pending', request };
  if (engine.core.now().getTime() >= Date.parse(request.expiresAt)) {
    return { ok: false, refusal: 'expired', request };
  }
  if (request.round !== round) return { ok: false, stale: request };
  const check = await engine.core.options.policy.check(request, user);
  if (!check.allowed) return { ok: false, refusal: check.reason, request };
  return { ok: true, request };
}

/** Expire a request past its time under its lock, as the engine's sweep does, and tell the listeners. */
export async function expireNow(engine: ApprovalEngine, id: string): Promise<ApprovalRequest | undefined> {
  const { core } = engine;
  const expired = await core.locked(id, async (request) =>
    request ? core.expireIfDue(request, core.now()) : undefined,
  );
  if (expired) await core.notify(expired);
  return expired ?? (await engine.get(id));
}
