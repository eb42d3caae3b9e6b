// The questions a surface asks before it shows a button or a modal: could this person approve or
// reject this request now, and what waits for them. Each changes nothing; the engine decides again,
// under the request's lock, when the person acts. Asked here once, in the engine's order (ended,
// then round, then who), so no surface repeats the order or forgets a rule.

import type { ApprovalPolicy, Delegation } from '../access/index.js';
import type { ApprovalCore } from './approval-core.js';
import { closingRefusal, rejectCheck } from './close-by-person.js';
import type { ApprovalRequest, Refusal } from './types.js';

export type ApprovalReadiness =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; refusal: Refusal; request?: ApprovalRequest }
  | { ok: false; stale: ApprovalRequest };

interface QuestionDeps {
  core: Pick<ApprovalCore, 'get' | 'now'>;
  policy: Pick<ApprovalPolicy, 'check' | 'mayReject' | 'delegations'>;
}

/** Ended (not found, not pending, expired): the refusal, else undefined. */
async function openNow(
  deps: QuestionDeps,
  id: string,
): Promise<{ refusal: Refusal; request?: ApprovalRequest } | { request: ApprovalRequest }> {
  const request = await deps.core.get(id);
  if (!request) return { refusal: 'not-found' };
  if (request.state !== 'pending') return { refusal: 'not-pending', request };
  if (deps.core.now().getTime() >= Date.parse(request.expiresAt)) return { refusal: 'expired', request };
  return { request };
}

/** Could `user` approve round `round` of the request now? */
export async function canApprove(
  deps: QuestionDeps,
  id: string,
  user: string,
  round: number,
): Promise<ApprovalReadiness> {
  const open = await openNow(deps, id);
  if ('refusal' in open) return { ok: false, ...open };
  const { request } = open;
  if (request.round !== round) return { ok: false, stale: request };
  const check = await deps.policy.check(request, user);
  if (!check.allowed) return { ok: false, refusal: check.reason, request };
  return { ok: true, request };
}

/** Whether a rejection could be taken: a refusal, the request in another round (`stale`), or allowed. */
export type RejectReadiness = { refusal?: Refusal; request?: ApprovalRequest } | { stale: ApprovalRequest };

/**
 * Could `user` reject round `round` of the request now: waiting for approval (an approver, or a delegate
 * for what their delegation covers), or approved and not yet claimed (an approver in their own right)?
 * The rules are close-by-person.ts's, which decides again under the lock.
 */
export async function mayReject(
  deps: QuestionDeps,
  id: string,
  user: string,
  round: number,
): Promise<RejectReadiness> {
  const request = await deps.core.get(id);
  if (!request) return { refusal: 'not-found' };
  const closed = closingRefusal(request);
  if (closed) return { refusal: closed, request };
  const due = request.state === 'pending' && deps.core.now().getTime() >= Date.parse(request.expiresAt);
  if (due) return { refusal: 'expired', request };
  if (request.round !== round) return { stale: request };
  const check = await rejectCheck(deps.policy, request, user);
  return 'refusal' in check ? { refusal: check.refusal, request } : { request };
}

/**
 * The requests `user` may approve now (pending, not expired, and the policy lets them: never their
 * own, never one they already count on; a delegate's within their delegation). `open` and
 * `delegations` may be passed when already read.
 */
export async function waitingFor(
  deps: QuestionDeps & { openRequests: () => Promise<ApprovalRequest[]> },
  user: string,
  now: Date,
  open?: readonly ApprovalRequest[],
  read?: readonly Delegation[],
): Promise<ApprovalRequest[]> {
  const delegations = read ?? (await deps.policy.delegations()); // read once for the whole list
  const waiting: ApprovalRequest[] = [];
  for (const request of open ?? (await deps.openRequests())) {
    if (request.state !== 'pending' || Date.parse(request.expiresAt) <= now.getTime()) continue;
    if ((await deps.policy.check(request, user, delegations)).allowed) waiting.push(request);
  }
  return waiting;
}
