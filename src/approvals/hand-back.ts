// A claim handed back: an executing request whose holder certainly sent nothing (its request was never
// marked sending) goes back to approved, and its claim is ended so the next generation can be claimed.
// The store has no transaction over the request and the claim, so the request's write is the step:
// it names the claim it hands back, and a claim that names it ends that claim if the end did not land.
// A claim marked sending that no hand-back names may have been sent: a person is asked, once.
import type { CoreSections } from './core-sections.js';
import { type ApprovalRepository, handedBackGeneration } from './repository.js';
import { SENDING_UNCLEAR_ACTION } from './state-machine.js';
import type { ApprovalRequest, EngineLog } from './types.js';

/** The request, approved again, naming the claim it hands back (the part of the step that must not be lost). */
export function handingBack(request: ApprovalRequest, generation: number): ApprovalRequest {
  return { ...request, handedBack: { round: request.round, generation } };
}

/**
 * After the hand-back was written: end its claim. A failure leaves nothing to do now (the next claim
 * of the round ends it, as the request names it), so it is logged, not thrown.
 */
export async function endHandedBackClaim(
  repo: ApprovalRepository,
  request: ApprovalRequest,
  now: Date,
  log: EngineLog | undefined,
): Promise<void> {
  const generation = handedBackGeneration(request);
  if (generation === undefined) return;
  try {
    await repo.endClaim(request.id, request.round, generation, now);
  } catch (error) {
    log?.warn('handed-back claim not ended; the next claim ends it', {
      requestId: request.id,
      error: String(error),
    });
  }
}

/**
 * Approved, and not claimed because a claim of its round is marked sending, its lease run out, and no
 * hand-back names it: that call may have gone out (a stale copy of the request written back, a store
 * restored), so it is never sent again; a person is asked, once a round. So too, at once, when the
 * hand-back it carries names a claim marked calling: no takeover or freeze hands back a request marked
 * sending, so that record was not written by the bot, and the call it names may have gone out.
 */
export async function askIfSendingUnclear(
  core: CoreSections,
  repo: ApprovalRepository,
  id: string,
  now: Date,
  log?: EngineLog,
): Promise<void> {
  const request = await repo.get(id);
  if (request?.state !== 'approved') return;
  const named = handedBackGeneration(request);
  const forged = await repo.handedBackClaimCalling(request);
  const blocking = forged ? named : await repo.lapsedSendingClaim(id, request.round, now, named);
  if (blocking === undefined) return;
  const asked = await core.notice(
    id,
    SENDING_UNCLEAR_ACTION,
    'Approved, but an earlier claim of it was marked as sending and never recorded an answer, so its call may have gone out: the bot will not send it. A person must check with the service (dashboard or support) whether it went out; if it did not, an approver can reject it (or its requester cancel it) and file it again.',
    { when: (current) => current.state === 'approved' && current.round === request.round },
  );
  if (asked && forged) {
    log?.error?.(
      'NOT SENT: the request says it was handed back from a claim already calling the service; no hand-back names such a claim, so its call may have gone out',
      { requestId: id, round: request.round, generation: blocking },
    );
  }
}
