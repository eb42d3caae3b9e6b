// An approval counts only for the round of the request the approver saw, and, from a review, only for
// the figures it showed (their digest). The check runs inside the engine's policy check, under the
// request's lock, so a change that lands between the click and the lock cannot turn the click into an
// approval of figures nobody showed them.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Delegation } from '../../../approvals/delegations.js';
import { ApprovalPolicy, figuresDigest } from '../../../approvals/index.js';
import type { ApprovalCheck } from '../../../approvals/policy.js';
import type { ApprovalRequest } from '../../../approvals/types.js';
import { SlackErrorCode } from '../../runtime/error-codes.js';

const clickedRound = new AsyncLocalStorage<{ id: string; round: number; figures?: string }>();

/** The click was on a message showing an earlier (or another) round, or other figures; nothing was changed. */
export class StaleRoundError extends Error {
  override name = 'StaleRoundError';
  readonly code = SlackErrorCode.StaleRound;

  constructor(readonly request: ApprovalRequest) {
    super(`${request.id} is in round ${request.round}, not the one clicked`);
  }
}

/**
 * Run an engine call on behalf of a click on the message of this round; with `figures`, a review that
 * showed figures of that digest (figuresDigest).
 */
export function asClickedInRound<T>(
  id: string,
  round: number,
  fn: () => Promise<T>,
  figures?: string,
): Promise<T> {
  return clickedRound.run({ id, round, ...(figures ? { figures } : {}) }, fn);
}

/** The configured policy, refusing (by throwing StaleRoundError) an approval of a round not clicked. */
export class RoundBoundPolicy extends ApprovalPolicy {
  override async check(
    request: ApprovalRequest,
    user: string,
    delegations?: readonly Delegation[],
  ): Promise<ApprovalCheck> {
    const clicked = clickedRound.getStore();
    if (clicked && clicked.id === request.id) {
      const changed = clicked.figures !== undefined && clicked.figures !== figuresDigest(request);
      if (clicked.round !== request.round || changed) throw new StaleRoundError(request);
    }
    return super.check(request, user, delegations);
  }
}
