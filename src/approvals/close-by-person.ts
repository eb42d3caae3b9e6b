// A person closes a request that has not gone out: an approver (or, while it waits for approval, a
// delegate in their place) rejects it, or its requester cancels it. An approved request not yet
// claimed for sending can be stopped the same way (docs/decisions/stop-an-approved-request.md): the
// executor's claim and this step are both compare-and-set writes over the same stored version, so
// exactly one of them wins. Like every step of the core (approval-core.ts), decided under the
// request's lock, a request past its time expired first, and persisted before any listener hears of it.

import type { ApprovalPolicy } from '../access/index.js';
import { type ClickLocking, clickLocked, type ReadRules, refusedFromRead } from './click-lock.js';
import type { CoreSections } from './core-sections.js';
import { assertSeen } from './round.js';
import { transition } from './state-machine.js';
import { StopLookup } from './stop-lookup.js';
import type { ActionResult, ApprovalRequest, ClickOptions, Refusal, RequestState } from './types.js';

/** Claimed for its one service call, or past it: too late for a person to stop. */
const GOING_OUT: ReadonlySet<RequestState> = new Set(['executing', 'sent', 'outcome-unknown']);

/**
 * Why no person may close the request in its state now, if none may: waiting for approval, or approved
 * and not yet claimed for sending, it can be closed.
 */
export function closingRefusal(request: ApprovalRequest): Refusal | undefined {
  if (request.state === 'pending' || request.state === 'approved') return undefined;
  return GOING_OUT.has(request.state) ? 'already-sending' : 'not-pending';
}

/**
 * May `user` reject the request (in the state it is in)? The policy's rule for a request waiting for
 * approval; once approved, only an approver in their own right: a delegate stands in for approving what
 * waits, not for stopping what an approver's pool already decided.
 */
export async function rejectCheck(
  policy: Pick<ApprovalPolicy, 'mayReject'>,
  request: ApprovalRequest,
  user: string,
): Promise<{ refusal: Refusal } | { onBehalfOf?: string | undefined }> {
  const check = await policy.mayReject(request, user);
  if (!check.allowed) return { refusal: check.reason };
  if (check.onBehalfOf && request.state === 'approved') return { refusal: 'delegate-after-approval' };
  return { onBehalfOf: check.onBehalfOf };
}

/**
 * What closing a request reaches the core for, beyond its sections: a read without the lock, the clock,
 * expiry, the delegate's lock.
 */
export interface ClosingCore extends CoreSections, ClickLocking {
  readonly now: () => Date;
  expireIfDue(
    request: ApprovalRequest,
    now: Date,
    click?: ClickOptions,
  ): Promise<ApprovalRequest | undefined>;
  asDelegateMaybe<T>(request: ApprovalRequest, user: string, fn: () => Promise<T>): Promise<T>;
  /** Queue the request for the lookup after a stop of it while approved (stop-lookup.ts). */
  queueStopLookup(id: string): Promise<void>;
}

/**
 * A rejection; with `round` (the one the rejecter saw), refused by throwing StaleRoundError under the
 * request's lock when the request is in another round. The engine's reject always passes it.
 */
export async function rejectRequest(
  core: ClosingCore,
  policy: ApprovalPolicy,
  id: string,
  user: string,
  reason: string,
  options: ClickOptions & { round?: number | undefined },
): Promise<ActionResult> {
  const { round, ...click } = options;
  let onBehalfOf: string | undefined;
  return closeByPerson(core, id, {
    user,
    refuse: async (request) => {
      assertSeen(request, { round });
      const check = await rejectCheck(policy, request, user);
      if ('refusal' in check) return check.refusal;
      onBehalfOf = check.onBehalfOf;
      return undefined;
    },
    to: 'rejected',
    click,
    note: reason.trim(),
    behalf: () => onBehalfOf,
  });
}

/** What a cancellation takes beyond a click's: `onlyWaiting`, refused ('not-pending') once approved. */
export type CancelOptions = ClickOptions & { onlyWaiting?: boolean | undefined };

/**
 * The requester withdraws their own request, waiting for approval or approved and not yet claimed
 * (only the first with `onlyWaiting`: the bot's own cancel of a request approvers could not see).
 */
export async function cancelRequest(
  core: ClosingCore,
  id: string,
  user: string,
  options: CancelOptions,
): Promise<ActionResult> {
  const { onlyWaiting, ...click } = options;
  // The requester never changes: a read without the lock tells it as surely as the locked section.
  const notRequester = (request: ApprovalRequest): Refusal | undefined =>
    user === request.requester ? undefined : 'not-requester';
  return closeByPerson(core, id, {
    user,
    refuse: async (request) => {
      const refusal = notRequester(request);
      if (refusal) return refusal;
      return onlyWaiting && request.state !== 'pending' ? 'not-pending' : undefined;
    },
    fixed: notRequester,
    to: 'cancelled',
    click,
  });
}

/** A person's closing as the section decides it: who, the refusals of its kind, and what it records. */
interface Closing {
  user: string;
  refuse: (request: ApprovalRequest) => Promise<Refusal | undefined>;
  /** Those of `refuse` a read without the lock can tell (on what never changes). */
  fixed?: ReadRules['fixed'];
  to: 'rejected' | 'cancelled';
  click: ClickOptions;
  note?: string | undefined;
  /** In whose place, once the refusals found none (a delegate's rejection). */
  behalf?: () => string | undefined;
}

type ClosingStep = ActionResult & { changed?: boolean };

async function closeByPerson(core: ClosingCore, id: string, closing: Closing): Promise<ActionResult> {
  const { click } = closing;
  const result = await clickLocked(
    core,
    id,
    click,
    (request) => closeLocked(core, request, closing),
    // Its wait for the lock ended: what a read makes certain is said (nothing is written).
    (request): ClosingStep | undefined =>
      refusedFromRead(request, { moved: closingRefusal, fixed: closing.fixed }),
  );
  click.onRecorded?.();
  const { changed, ...answer } = result;
  if (changed && answer.request) await core.notify(answer.request);
  return answer as ActionResult;
}

/** Under the request's lock: close it if it may be closed, by this person, now. */
async function closeLocked(
  core: ClosingCore,
  request: ApprovalRequest | undefined,
  closing: Closing,
): Promise<ClosingStep> {
  if (!request) return { ok: false, reason: 'not-found' };
  // Closed or going out: said so even past the click's write deadline, as nothing is written. Only a
  // click that would write is turned away by its deadline.
  const closed = closingRefusal(request);
  if (closed) return { ok: false, reason: closed, request };
  const { click, to, user, note } = closing;
  const now = core.now();
  click.signal?.throwIfAborted();
  const expired = await core.expireIfDue(request, now, click);
  if (expired) return { ok: false, reason: 'expired', request: expired, changed: true };
  const decide = async (): Promise<ClosingStep> => {
    const refusal = await closing.refuse(request);
    if (refusal) return { ok: false, reason: refusal, request };
    click.signal?.throwIfAborted();
    const base = {
      ...request,
      checking: undefined,
      ...(note ? { reason: note } : {}),
    } as ApprovalRequest;
    const onBehalfOf = closing.behalf?.();
    const next = transition(base, to, {
      action: to,
      actor: user,
      ...(onBehalfOf ? { onBehalfOf } : {}),
      ...(note ? { note } : {}),
      at: now,
    });
    // Queued before the stop is written, under the request's lock: a stop is never persisted, let
    // alone told, without its lookup. A queue write that fails fails the click with nothing recorded.
    if (StopLookup.stoppedWhileApproved(next)) {
      await core.queueStopLookup(request.id);
      // A click starts no write past its deadline, the queue's wait included.
      click.signal?.throwIfAborted();
    }
    await core.write(request, next, { click });
    return { ok: true, request: next, changed: true };
  };
  // A rejection may be a delegate's, in someone's place: it too holds off a revocation.
  return to === 'rejected' ? core.asDelegateMaybe(request, user, decide) : decide();
}
