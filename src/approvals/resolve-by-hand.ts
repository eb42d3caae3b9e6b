// A person closes an outcome-unknown request after checking with the service (dashboard, support):
// an approver of its kind other than the requester, with a note, under the request's lock, audited before anyone
// is told. Nothing is sent, now or later. The same for a request the service contradicted itself about
// (conflicts.ts): the check settles it as the person found, and the mark is cleared by that step.

import type { ApprovalPolicy } from '../access/index.js';
import type { ApprovalCore } from './approval-core.js';
import { CONFLICT_RESOLVED, transition } from './state-machine.js';
import type { ActionResult, ApprovalRequest, Refusal } from './types.js';

const hasConflicts = (request: ApprovalRequest) => (request.conflicts?.length ?? 0) > 0;

/**
 * Kinds whose only write is the bot's own store (a delegation's grant, an unfreeze's lift, a passkey
 * written into the book): the sweep settles an unclear outcome from what the store holds (own-writes.ts),
 * so no person's word may say one took effect that the store does not hold (a delegation resolved
 * "completed" but never recorded would be read by id at a send, and be out of reach of every
 * revocation), nor that one failed before the store bars its late write (a passkey resolved "failed"
 * whose write then lands would count).
 */
const SETTLED_FROM_THE_STORE: ReadonlySet<ApprovalRequest['kind']> = new Set([
  'delegation',
  'unfreeze',
  'passkey',
]);

/** Why this person may not close this request by hand, if they may not. */
async function resolveRefusal(
  policy: Pick<ApprovalPolicy, 'isApprover'>,
  request: ApprovalRequest,
  user: string,
): Promise<Refusal | undefined> {
  if (request.state !== 'outcome-unknown' && !hasConflicts(request)) return 'not-unknown';
  if (SETTLED_FROM_THE_STORE.has(request.kind)) return 'settled-by-the-bot';
  if (user === request.requester) return 'requester';
  if (!(await policy.isApprover(user, request.kind))) return 'not-approver';
  return undefined;
}

export async function resolveByHand(
  core: ApprovalCore,
  policy: Pick<ApprovalPolicy, 'isApprover'>,
  id: string,
  user: string,
  to: 'completed' | 'failed',
  note: string,
): Promise<ActionResult> {
  const said = `checked by hand: ${note.trim()}`;
  const result = await core.locked(id, async (request): Promise<ActionResult> => {
    if (!request) return { ok: false, reason: 'not-found' };
    const refused = await resolveRefusal(policy, request, user);
    if (refused) return { ok: false, reason: refused, request };
    const marked = hasConflicts(request);
    const outcome = { ...request.outcome, status: to, ...(to === 'failed' ? { reason: said } : {}) };
    // Settled already: the person's check is its own step (a transition from sent or unknown is not).
    const settled = request.state === 'completed' || request.state === 'failed';
    const stepped = transition({ ...request, outcome }, to, {
      action: marked && settled ? CONFLICT_RESOLVED : to,
      actor: user,
      note: said,
      at: core.now(),
    });
    const { conflicts: _cleared, ...next } = stepped;
    await core.write(request, next as typeof stepped);
    return { ok: true, request: next };
  });
  if (result.ok) await core.notify(result.request);
  return result;
}
