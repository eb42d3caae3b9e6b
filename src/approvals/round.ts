// An approval counts only for the round of the request the approver saw and, when they were shown
// figures (a review), only for those figures (their digest). The engine checks this under the
// request's lock, so a change that lands between the click and the lock cannot turn the click into
// an approval of figures nobody showed them; every caller (Slack, a web page) gets it by passing what
// it showed.
import { ApprovalErrorCode } from './error-codes.js';
import { figuresDigest } from './figures.js';
import type { ApprovalRequest } from './types.js';

/** What the approver was shown: the round, and the digest of the figures (figuresDigest) when shown. */
export interface SeenRound {
  round?: number | undefined;
  figuresDigest?: string | undefined;
}

/** The approval was of an earlier (or another) round, or other figures; nothing was changed. */
export class StaleRoundError extends Error {
  override name = 'StaleRoundError';
  readonly code = ApprovalErrorCode.StaleRound;

  constructor(readonly request: ApprovalRequest) {
    super(`${request.id} is in round ${request.round}, not the one clicked`);
  }
}

/** Throw StaleRoundError when the request is no longer what the approver saw. */
export function assertSeen(request: ApprovalRequest, seen: SeenRound): void {
  const otherRound = seen.round !== undefined && seen.round !== request.round;
  const otherFigures = seen.figuresDigest !== undefined && seen.figuresDigest !== figuresDigest(request);
  if (otherRound || otherFigures) throw new StaleRoundError(request);
}
