// Figures that can go stale between filing and approval are read again at the final approval: the
// bridge quote (receivable may drop) and the resolved account name (the account may have changed).
// The final approval's re-check runs outside the request's lock, holding off other final clicks;
// then, under the lock again, the approver's place is checked again (they may have left the pool, or
// their delegation ended, meanwhile) and the approval written with the fresh figures, or the request
// goes back to the approvers. A request approved long ago is re-checked before sending the same way.

import type { ApprovalEvidence, ApprovalPolicy } from '../access/index.js';
import { Money } from '../format/money.js';
import { approvalsNeeded } from './approvals-needed.js';
import type { CoreSections } from './core-sections.js';
import { ApprovalErrorCode } from './error-codes.js';
import type { JudgingPolicy } from './judging-policy.js';
import type { CustodyGateway } from './ports.js';
import type { FilingSeal } from './request-seal.js';
import { assertSeen, type SeenRound } from './round.js';
import { sentBack, withApproval } from './state-machine.js';
import type { ActionResult, ApprovalRequest, ClickOptions, EngineLog, Refusal } from './types.js';

type RecheckResult =
  | { material: false; request: ApprovalRequest }
  | { material: true; request: ApprovalRequest; reason: string };

export function needsRecheck(request: ApprovalRequest): boolean {
  return request.kind === 'bridge' || request.kind === 'redeem' || request.kind === 'settlement';
}

const sameName = (a: string | undefined, b: string) =>
  (a ?? '').trim().replace(/\s+/g, ' ').toLowerCase() === b.trim().replace(/\s+/g, ' ').toLowerCase();

/** Read the figures again (an approval is waiting) and say whether they changed materially. */
async function recheckFigures(custody: CustodyGateway, request: ApprovalRequest): Promise<RecheckResult> {
  switch (request.kind) {
    case 'bridge': {
      if (!request.amount) return { material: false, request };
      const quote = await custody.bridgeQuote({
        amount: Money.parseDecimal(request.amount),
        originNetworkId: request.payload.originNetworkId,
        destinationNetworkId: request.payload.destinationNetworkId,
        destinationAddress: request.payload.destinationAddress,
      });
      const fresh = {
        amountReceivable: quote.amountReceivable,
        networkFee: quote.networkFee,
        bridgeFee: quote.bridgeFee,
      };
      const before = request.display.quote?.amountReceivable;
      const updated = { ...request, display: { ...request.display, quote: fresh } };
      if (before && Money.parseDecimal(fresh.amountReceivable).compare(Money.parseDecimal(before)) < 0) {
        return {
          material: true,
          request: updated,
          reason: `the quote changed: ₦${fresh.amountReceivable} would arrive instead of ₦${before}`,
        };
      }
      return { material: false, request: updated };
    }
    case 'redeem': {
      const accountName = await custody.accountName({
        accountNumber: request.payload.accountNumber,
        bankCode: request.payload.bankCode,
      });
      if (sameName(request.display.accountName, accountName)) return { material: false, request };
      return {
        material: true,
        request: { ...request, display: { ...request.display, accountName } },
        reason: `the account name is now "${accountName}" (was "${request.display.accountName ?? ''}")`,
      };
    }
    case 'settlement': {
      const accountName = await custody.accountName({
        accountNumber: request.payload.bankAccountNumber,
        ...(request.display.bankCode ? { bankCode: request.display.bankCode } : {}),
      });
      if (sameName(request.payload.bankAccountName, accountName)) return { material: false, request };
      return {
        material: true,
        request: {
          ...request,
          payload: { ...request.payload, bankAccountName: accountName },
          display: { ...request.display, accountName },
        },
        reason: `the account name is now "${accountName}" (was "${request.payload.bankAccountName}")`,
      };
    }
    default:
      return { material: false, request };
  }
}

/**
 * A final approval's finishing work (after the re-check) failed once its write may have started: the
 * approval may have been recorded, so the approver must check the request before clicking again.
 */
export class MaybeRecordedError extends Error {
  override name = 'MaybeRecordedError';
  readonly code = ApprovalErrorCode.MaybeRecorded;

  constructor(readonly error: unknown) {
    super(`the approval may have been recorded before this failure: ${String(error)}`);
  }
}

/** What finishing a re-checked final approval uses. */
export interface RecheckDeps {
  core: CoreSections & {
    /** Under the lock: expire a due request (persisted), so no click can act on it. */
    expireIfDue(
      request: ApprovalRequest,
      now: Date,
      click?: ClickOptions,
    ): Promise<ApprovalRequest | undefined>;
    /** The settings this process judges clicks by, once recorded (see JudgingPolicy). */
    readonly judging: Pick<JudgingPolicy, 'forStep'>;
  };
  custody: CustodyGateway;
  policy: Pick<ApprovalPolicy, 'check' | 'requiredFor'>;
  /** Fresh figures change the sealed payload: sealed again in the same write (request-seal.ts). */
  seal: Pick<FilingSeal, 'resealed'>;
  now: () => Date;
  log?: EngineLog | undefined;
}

/**
 * The final approver's click, once its hold (`checking`) is saved: read the figures again, then
 * approve with them, or send the request back when they changed materially.
 */
export async function finishRecheckedApproval(
  deps: RecheckDeps,
  request: ApprovalRequest,
  user: string,
  seen: SeenRound = {},
): Promise<ActionResult> {
  let outcome: RecheckResult | undefined;
  let failure: unknown;
  try {
    outcome = await recheckFigures(deps.custody, request);
  } catch (error) {
    failure = error;
  }
  // Every write below marks `writing`: a failure from then on (the write, or telling Slack after it)
  // may come after the approval landed, and the click is answered accordingly.
  let writing = false;
  const click: ClickOptions = {
    onWriting: () => {
      writing = true;
    },
  };
  try {
    return await finishRechecked(deps, request, user, outcome, failure, click, seen);
  } catch (error) {
    throw writing ? new MaybeRecordedError(error) : error;
  }
}

async function finishRechecked(
  deps: RecheckDeps,
  request: ApprovalRequest,
  user: string,
  outcome: RecheckResult | undefined,
  failure: unknown,
  click: ClickOptions,
  seen: SeenRound,
): Promise<ActionResult> {
  const { core } = deps;
  const result: ActionResult = await core.locked(request.id, async (current): Promise<ActionResult> => {
    if (!current) return { ok: false, reason: 'not-found' };
    const ours =
      current.state === 'pending' && current.checking?.user === user && current.round === request.round;
    if (!ours) return { ok: false, reason: 'not-pending', request: current };
    const expired = await core.expireIfDue(current, deps.now(), click);
    if (expired) return { ok: false, reason: 'expired', request: expired };
    const onBehalfOf = current.checking?.onBehalfOf;
    const cleared = { ...current, checking: undefined } as ApprovalRequest;
    const inPlace = async (): Promise<ActionResult> => {
      let place: PlaceNow;
      try {
        place = await placeNow(deps, cleared, user, onBehalfOf, seen);
      } catch (error) {
        // The hold is lifted before the failure is reported, so other approvers are not held off by it.
        // Not as the click's write: nothing of the approval was recorded, and the person is told so.
        // The place's failure is what the person is told of, even when lifting the hold fails too.
        await core
          .write(current, cleared, { audit: false })
          .catch((writeError: unknown) => liftFailed(deps, current, writeError));
        throw error;
      }
      if (!('lost' in place))
        return finishCleared(deps, current, cleared, user, outcome, failure, click, place);
      await core.write(current, cleared, { audit: false, click });
      return { ok: false, reason: place.lost, request: cleared };
    };
    // A delegate's place is checked and the approval written under the delegations lock a revocation
    // takes too.
    return onBehalfOf ? core.underDelegationsLock(inPlace) : inPlace();
  });
  const expiredMeanwhile = !result.ok && result.reason === 'expired' && result.request;
  if (result.ok || expiredMeanwhile) await core.notify(result.request as ApprovalRequest);
  return result;
}

/** Lifting the hold failed after the place could not be read: logged (the hold lapses by itself). */
function liftFailed(deps: RecheckDeps, request: ApprovalRequest, error: unknown): void {
  deps.log?.warn("final approval's hold not lifted after its approver's place could not be read", {
    requestId: request.id,
    error: error instanceof Error ? error.message : String(error),
  });
}

/**
 * The approver's place now: in whose place and through which delegation they still approve as they
 * clicked, or why they no longer may (`lost`).
 */
type PlaceNow = { lost: Refusal } | { onBehalfOf?: string | undefined; delegationId?: string | undefined };

/**
 * The approver's place, checked again once the figures are read: they may have left the pool, or the
 * delegation they approve through been revoked, during the re-check. A delegate's place names the
 * delegation found now, which the approval records.
 */
async function placeNow(
  deps: RecheckDeps,
  cleared: ApprovalRequest,
  user: string,
  onBehalfOf: string | undefined,
  seen: SeenRound,
): Promise<PlaceNow> {
  assertSeen(cleared, seen);
  // Under the request's lock, yet seldom a Slack call: the click asked the same groups moments ago,
  // before the re-check (up to about 35 s), and they are kept 2 minutes. Only an entry that ran out
  // during the re-check is read from Slack again, as a click reads it, so a removal meanwhile is seen
  // and a membership not known refuses, as at the click.
  const again = await deps.policy.check(cleared, user);
  if (!again.allowed) return { lost: again.reason };
  if (again.onBehalfOf !== onBehalfOf) return { lost: onBehalfOf ? 'delegation-ended' : 'not-approver' };
  return { onBehalfOf, delegationId: again.delegationId };
}

/** The rechecked approval's write, once its approver's place is settled (under both locks if a delegate's). */
async function finishCleared(
  deps: RecheckDeps,
  current: ApprovalRequest,
  cleared: ApprovalRequest,
  user: string,
  outcome: RecheckResult | undefined,
  failure: unknown,
  click: ClickOptions,
  place: { onBehalfOf?: string | undefined; delegationId?: string | undefined },
): Promise<ActionResult> {
  const { core } = deps;
  if (!outcome) {
    await core.write(current, cleared, { audit: false, click });
    return { ok: false, reason: 'recheck-failed', request: cleared, error: failure };
  }
  const now = deps.now();
  if (outcome.material) {
    const fresh = deps.seal.resealed(current, outcome.request);
    const back = sentBack(fresh, current.round, outcome.reason, {
      actor: user,
      note: outcome.reason,
      at: now,
    });
    await core.write(current, back, { click });
    return { ok: true, request: back };
  }
  const fresh = deps.seal.resealed(current, {
    ...cleared,
    display: outcome.request.display,
    payload: outcome.request.payload,
  } as ApprovalRequest);
  const next = withApproval(fresh, user, now, {
    needed: approvalsNeeded(fresh, deps.policy) ?? fresh.requiredApprovals,
    onBehalfOf: place.onBehalfOf,
    delegationId: place.delegationId,
    evidence: current.checking?.evidence,
    policyFingerprint: core.judging.forStep(),
  });
  const over = await core.writeApproval(current, next, { click });
  if (!over) return { ok: true, request: next };
  // Past the daily limit: not approved, and the hold is lifted so it can be approved once there is room.
  await core.write(current, cleared, { audit: false, click });
  return { ok: false, reason: 'over-daily-limit', request: cleared, limit: over };
}

/** How soon a failed check of stale figures is tried again. */
const RECHECK_RETRY_MS = 60_000;

/** What the re-check before sending uses. */
type StaleDeps = { core: CoreSections; custody: CustodyGateway; now: () => Date } & Pick<RecheckDeps, 'seal'>;

/** Figures read again just before sending, for the round they were read in. */
export interface FreshFigures {
  round: number;
  display: ApprovalRequest['display'];
  payload: ApprovalRequest['payload'];
}

/**
 * Before sending an approved request whose figures went stale (approved a while ago: a restart, an
 * outage), read them again: unchanged → send with them; changed → back to the approvers; unreadable
 * → say so, and try again shortly ('not-now' either way).
 */
export async function recheckBeforeSending(
  deps: StaleDeps,
  request: ApprovalRequest,
  now: Date,
): Promise<FreshFigures | 'not-now'> {
  const { core } = deps;
  // A check that failed is not repeated on every sweep: the reads share the service's budget.
  if (request.nextCheckAt && Date.parse(request.nextCheckAt) > now.getTime()) return 'not-now';
  let checked: RecheckResult;
  try {
    checked = await recheckFigures(deps.custody, request);
  } catch {
    await core.locked(request.id, async (current) => {
      if (current?.state !== 'approved' || current.round !== request.round) return;
      const nextCheckAt = new Date(deps.now().getTime() + RECHECK_RETRY_MS).toISOString();
      await core.write(current, { ...current, nextCheckAt }, { audit: false });
    });
    await core.notice(
      request.id,
      'execution-delayed',
      'Not sent yet: it was approved a while ago, so its figures are checked again first, and the service could not be asked just now; nothing was sent. The bot tries again shortly.',
      { when: (r) => r.state === 'approved' && r.round === request.round },
    );
    return 'not-now';
  }
  if (checked.material) {
    await sendBackStale(deps, request, checked.request, checked.reason);
    return 'not-now';
  }
  return { round: request.round, display: checked.request.display, payload: checked.request.payload };
}

/**
 * An approved request whose figures changed while it waited to be sent goes back to the approvers
 * with the fresh figures, its approvals cleared. Nothing was sent.
 */
async function sendBackStale(
  { core, now, seal }: Omit<StaleDeps, 'custody'>,
  approved: ApprovalRequest,
  fresh: ApprovalRequest,
  reason: string,
): Promise<void> {
  const back = await core.locked(approved.id, async (current) => {
    if (current?.state !== 'approved' || current.round !== approved.round) return undefined;
    const refreshed = seal.resealed(current, {
      ...current,
      display: fresh.display,
      payload: fresh.payload,
    } as ApprovalRequest);
    const next = sentBack(refreshed, current.round, reason, {
      note: `${reason} (checked again before sending it late)`,
      at: now(),
    });
    await core.write(current, next);
    return next;
  });
  if (back) await core.notify(back);
}

/** How long an approver's re-check of stale figures holds off other final approvals. */
export const CHECK_HOLD_MS = 60_000;

/** Is another approver's final click re-checking the figures now (its hold not yet lapsed)? */
export function checkHeld(request: ApprovalRequest, now: Date): boolean {
  return request.checking !== undefined && now.getTime() - Date.parse(request.checking.at) < CHECK_HOLD_MS;
}

/** A final click on stale figures: hold off other final clicks while they are read again. */
export async function markChecking(
  core: Pick<CoreSections, 'write'>,
  request: ApprovalRequest,
  by: { user: string; now: Date; onBehalfOf: string | undefined; click: ClickOptions },
  evidence?: ApprovalEvidence,
): Promise<ActionResult | { ok: 'recheck'; request: ApprovalRequest }> {
  const { user, now, onBehalfOf, click } = by;
  if (checkHeld(request, now)) return { ok: false, reason: 'checking', request };
  const checking = { user, at: now.toISOString(), ...(onBehalfOf ? { onBehalfOf } : {}) };
  const marked = { ...request, checking: { ...checking, ...(evidence ? { evidence } : {}) } };
  await core.write(request, marked, { audit: false, click });
  return { ok: 'recheck', request: marked };
}
