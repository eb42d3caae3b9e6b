// The request's life as an explicit table: a transition not listed here is a bug, refused loudly.

import type { ApprovalEvidence } from '../access/index.js';
import { ApprovalErrorCode } from './error-codes.js';
import type { ApprovalRequest, RequestState } from './types.js';

const TRANSITIONS: Record<RequestState, readonly RequestState[]> = {
  // pending → pending: an approval added, or sent back to the approvers after a material change.
  pending: ['pending', 'approved', 'rejected', 'cancelled', 'expired'],
  // approved → pending: its figures went stale before it could be sent; approved → failed: it can
  // never be sent (filed for another environment or key); approved → expired: held by a freeze of
  // sends past its expiry. None of them reached the service.
  // approved → sent/completed/failed/outcome-unknown: approved long ago and looked up before sending,
  // it was found done (or maybe done) already, so it is settled, not sent (LOOKED_UP_BEFORE_SENDING).
  // approved → rejected/cancelled: a person stopped it before its claim (close-by-person.ts).
  approved: [
    'executing',
    'pending',
    'failed',
    'expired',
    'sent',
    'completed',
    'outcome-unknown',
    'rejected',
    'cancelled',
  ],
  // Whitelist and settlement take effect at once: executing → completed directly. executing →
  // approved: its claimant stopped before the write-ahead mark (or met a freeze of sends there), so
  // the call was certainly not made.
  executing: ['sent', 'completed', 'failed', 'outcome-unknown', 'approved'],
  sent: ['completed', 'failed'],
  // The reconciler found it (sent/completed/failed); never back to executing.
  'outcome-unknown': ['sent', 'completed', 'failed'],
  completed: [],
  failed: [],
  rejected: [],
  cancelled: [],
  expired: [],
};

/** The step that settles an approved request from the lookup before a late send (late-lookup.ts). */
export const LOOKED_UP_BEFORE_SENDING = 'looked-up-before-sending';

/**
 * The step of a person who checked with the service a request it contradicted itself about
 * (resolve-by-hand.ts): it settles a completed or failed request either way and clears the mark.
 */
export const CONFLICT_RESOLVED = 'conflict-resolved';

const SETTLED: ReadonlySet<RequestState> = new Set(['completed', 'failed']);

/** Only the lookup before a late send takes an approved request to these without a call. */
const SETTLED_WITHOUT_CALL: ReadonlySet<RequestState> = new Set(['sent', 'completed', 'outcome-unknown']);

export class InvalidTransitionError extends Error {
  override name = 'InvalidTransitionError';
  readonly code = ApprovalErrorCode.InvalidTransition;
  constructor(
    readonly from: RequestState,
    readonly to: RequestState,
  ) {
    super(`An approval request cannot go from ${from} to ${to}`);
  }
}

export function canTransition(from: RequestState, to: RequestState): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface TransitionStep {
  action: string;
  actor?: string;
  onBehalfOf?: string;
  note?: string;
  /** Sent back because this approver left the pool (HistoryEntry.leftPool). */
  leftPool?: string;
  at: Date;
  /** An approval step: the fingerprint of the settings that judged it. */
  policyFingerprint?: string;
  /** The approvals the request needed at this step, when more than its stored count (HistoryEntry.needed). */
  needed?: number;
}

/**
 * The request back with its approvers: approvals cleared, the round after `round`, the reason shown,
 * pending again. Pure: the caller persists.
 */
export function sentBack(
  request: ApprovalRequest,
  round: number,
  reason: string,
  step: { actor?: string; note: string; leftPool?: string; at: Date },
): ApprovalRequest {
  const back = {
    ...request,
    approvals: [],
    round: round + 1,
    reason,
    checking: undefined,
  } as ApprovalRequest;
  const { actor, note, leftPool, at } = step;
  return transition(back, 'pending', {
    action: 'sent-back',
    ...(actor ? { actor } : {}),
    note,
    ...(leftPool ? { leftPool } : {}),
    at,
  });
}

/** A new request in state `to` with the step appended to its history. Pure: the caller persists. */
export function transition<R extends ApprovalRequest>(request: R, to: RequestState, step: TransitionStep): R {
  const checkedByHand =
    step.action === CONFLICT_RESOLVED &&
    (request.conflicts?.length ?? 0) > 0 &&
    SETTLED.has(request.state) &&
    SETTLED.has(to);
  if (!checkedByHand && !canTransition(request.state, to))
    throw new InvalidTransitionError(request.state, to);
  // Only a claim that never wrote its write-ahead mark goes back: once marked, the call may be out.
  if (request.state === 'executing' && to === 'approved' && request.execution?.phase !== 'claimed') {
    throw new InvalidTransitionError(request.state, to);
  }
  if (
    request.state === 'approved' &&
    SETTLED_WITHOUT_CALL.has(to) &&
    step.action !== LOOKED_UP_BEFORE_SENDING
  ) {
    throw new InvalidTransitionError(request.state, to);
  }
  const entry = {
    at: step.at.toISOString(),
    state: to,
    action: step.action,
    ...(step.actor ? { actor: step.actor } : {}),
    ...(step.onBehalfOf ? { onBehalfOf: step.onBehalfOf } : {}),
    ...(step.note ? { note: step.note } : {}),
    ...(step.leftPool ? { leftPool: step.leftPool } : {}),
    ...(step.policyFingerprint ? { policyFingerprint: step.policyFingerprint } : {}),
    ...(step.needed ? { needed: step.needed } : {}),
  };
  // A record written when the count shown was kept on the request still holds it: no step carries it on.
  const { neededNow: _kept, ...current } = request as R & { neededNow?: unknown };
  return { ...current, state: to, history: [...request.history, entry] } as R;
}

/** How an approval was given: in whose place, its passkey assertion, why unsigned, and under which settings. */
export interface ApprovalGiven {
  /** A delegate gave it, in this approver's place. */
  onBehalfOf?: string | undefined;
  /** With `onBehalfOf`: the delegation it was given through (its granting request's id). */
  delegationId?: string | undefined;
  evidence?: ApprovalEvidence | undefined;
  /** The engine counted a click by the first-passkeys rule. */
  unsigned?: 'first passkeys' | undefined;
  /** The fingerprint of the settings that judged the click, on the record before it (policy-record.ts). */
  policyFingerprint?: string | undefined;
  /** How many approvals it needs now (approvalsNeeded); absent: its stored count. */
  needed?: number | undefined;
}

/**
 * The approval added (approved once it is the last needed); `onBehalfOf` when a delegate gave it, and
 * `unsigned` when the engine counted a click by the first-passkeys rule: its step's note says so
 * ("1 of 1 · unsigned: first passkeys"), on the request's history and in its audit entry. The step
 * carries the fingerprint of the settings that judged it and, when more than its stored count (tiers raised
 * since filing), the count it was judged at (the audit chain keeps it for the verifier). Pure.
 */
export function withApproval(
  request: ApprovalRequest,
  user: string,
  now: Date,
  given: ApprovalGiven = {},
): ApprovalRequest {
  const { onBehalfOf, delegationId, evidence, unsigned, policyFingerprint } = given;
  const approval = {
    user,
    at: now.toISOString(),
    ...(onBehalfOf ? { onBehalfOf } : {}),
    ...(onBehalfOf && delegationId ? { delegationId } : {}),
    ...(evidence ? { evidence } : {}),
  };
  const approvals = [...request.approvals, approval];
  const needed = given.needed ?? request.requiredApprovals;
  const done = approvals.length >= needed;
  const note = `${approvals.length} of ${needed}${unsigned ? ` · unsigned: ${unsigned}` : ''}`;
  return transition(
    { ...request, approvals, checking: undefined } as ApprovalRequest,
    done ? 'approved' : 'pending',
    {
      action: done ? 'approved' : 'approval-added',
      actor: user,
      ...(onBehalfOf ? { onBehalfOf } : {}),
      note,
      at: now,
      ...(policyFingerprint ? { policyFingerprint } : {}),
      ...(needed > request.requiredApprovals ? { needed } : {}),
    },
  );
}

/** The step of an approved request that a freeze of sends holds back (see freeze.ts). */
export const HELD_ACTION = 'held-frozen';

/** A notice on an approved request an earlier claim of which may have been sent: a person checks (hand-back.ts). */
export const SENDING_UNCLEAR_ACTION = 'sending-unclear';

/**
 * History steps that record something people must hear without changing the state (sending
 * delayed, a lookup that needs a person, a bridge callback). Their note is the whole sentence to show.
 */
const NOTICE_ACTIONS: ReadonlySet<string> = new Set([
  'execution-delayed',
  'ambiguous-match',
  'needs-manual-check',
  'bridge-callback',
  'conflicting-reports',
  'stopped-but-found',
  'stop-not-checked',
  HELD_ACTION,
  SENDING_UNCLEAR_ACTION,
]);

/** The request with a notice appended to its history; the state does not change. Pure. */
export function withNotice<R extends ApprovalRequest>(request: R, action: string, note: string, at: Date): R {
  if (!NOTICE_ACTIONS.has(action)) throw new Error(`${action} is not a notice`);
  const entry = { at: at.toISOString(), state: request.state, action, note };
  return { ...request, history: [...request.history, entry] };
}

/** The sentence to show for the newest step when it is a notice; undefined otherwise. */
export function noticeText(request: ApprovalRequest): string | undefined {
  const step = request.history.at(-1);
  return step && NOTICE_ACTIONS.has(step.action) ? step.note : undefined;
}

/** Whether this notice was already given in the current round (notices are said once). */
export function hasNotice(request: ApprovalRequest, action: string): boolean {
  for (let i = request.history.length - 1; i >= 0; i--) {
    const step = request.history[i];
    if (step?.action === 'sent-back') return false;
    if (step?.action === action) return true;
  }
  return false;
}
