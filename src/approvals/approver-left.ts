// An approval counts only while the approver it counts for is still in the pool of the request's kind:
// the approver who gave it in their own right, or the delegator in whose place a delegate gave it (the
// membership the policy asks at the click, as last read from Slack). Someone known to be out of the
// pool (a user group's member removed, say) after approving no longer counts: before the service call,
// a request counting such an approval goes back to its approvers, as for changed figures. A membership
// never known counts: this check never holds a send waiting for Slack. A delegation whose window ended
// after the delegate approved is no reason: the delegate acted within it (a revocation has its own path).
//
// An approval given in someone's place counts at the send only when a delegation from that person to
// the one who gave it was in effect when it was given (its window, the cap) and has not been revoked or
// ended by the bot since: the store's `onBehalfOf` alone is no proof. Otherwise the request goes back
// the same way (DELEGATION_GONE), as when a revocation withdraws such approvals (delegation-requests.ts).
// The approval names the delegation it was given through (`delegationId`), read by that id however long
// ago its window ended; one recorded without it is judged against the delegations still listed.
import { type ApprovalPolicy, capProblem, type Delegation, type RequestKind } from '../access/index.js';
import type { DelegationBook } from './delegation-requests.js';
import { sentBack } from './state-machine.js';
import type { ApprovalRequest, EngineLog } from './types.js';

/** Why a request goes back when an approval in someone's place has no delegation behind it now. */
export const DELEGATION_GONE =
  'an approval given in an approver’s place no longer counts: no delegation from them was in effect when it was given, or it was revoked since; approve again';

/** Why a passkey registration goes back when the person it is for is no longer an approver or delegate. */
export const PASSKEY_OWNER_GONE =
  'the person this passkey is for is no longer an approver or a delegate, so it cannot be approved; reject it, or it expires';

/**
 * How long a send waits for Slack to answer a read of its approvers' user groups before it is judged on
 * their last known members. Slack's client has no timeout of its own and retries for about half an
 * hour, and the tracker sends requests one at a time: an unbounded wait would hold every send, expiry
 * and takeover behind a slow or unreachable Slack. Two seconds lets a healthy Slack answer.
 */
const POOL_READ_BOUND_MS = 2_000;

const KIND_WORDS: Record<RequestKind, string> = {
  withdraw: 'withdrawals',
  redeem: 'redemptions',
  bridge: 'bridges',
  whitelist: 'whitelist additions',
  settlement: 'settlement account changes',
  delegation: 'delegations',
  unfreeze: 'lifting the freeze of sends',
  passkey: 'passkey registrations',
};

/**
 * The first approver the request counts who is known to have left its kind's pool; undefined when none.
 * Judged on what is known without reading Slack (policy.approvalStillCounts): an approver whose place
 * rests on a group never read, or read only as unknown, still counts: the request is sent.
 */
function approverLeft(
  policy: Pick<ApprovalPolicy, 'approvalStillCounts'>,
  request: ApprovalRequest,
): string | undefined {
  for (const approval of request.approvals) {
    if (policy.approvalStillCounts(approval, request.kind) === 'left')
      return approval.onBehalfOf ?? approval.user;
  }
  return undefined;
}

/**
 * What the request says when it goes back because an approver it counted left the pool ("the person it
 * was given for": the delegator, for a delegate's approval). Reasons are shown as plain text (a
 * service's account name may be quoted in one), so who left goes beside it on the step (`leftPool`), which
 * the thread shows as a mention and the audit log keeps as the entry's subject.
 */
function leftReason(kind: RequestKind): string {
  return `one approval no longer counts because the person it was given for is no longer an approver for ${KIND_WORDS[kind]}; approve again`;
}

/**
 * Under the request's lock, before it is claimed: the approved request back with its approvers (a new
 * round, its approvals cleared, the reason saying an approval no longer counts, the step naming who left) when an approver it counts has left the pool; undefined when every approval still counts.
 * Pure, never waiting on Slack: the caller persists.
 */
export function backIfApproverLeft(
  policy: Pick<ApprovalPolicy, 'approvalStillCounts'>,
  request: ApprovalRequest,
  now: Date,
): ApprovalRequest | undefined {
  const person = approverLeft(policy, request);
  if (!person) return undefined;
  const reason = leftReason(request.kind);
  return sentBack(request, request.round, reason, {
    note: `${reason} (checked before sending)`,
    leftPool: person,
    at: now,
  });
}

/**
 * Under the request's lock, before it is claimed: a passkey registration back with its approvers (no
 * passkey written) when the person it is for is known to be no approver now and holds no live
 * delegation; undefined when they still count, or it is not known (judged without reading Slack).
 */
async function backIfPasskeyOwnerGone(
  policy: Pick<ApprovalPolicy, 'passkeyOwnerStillCounts'>,
  request: ApprovalRequest,
  now: Date,
): Promise<ApprovalRequest | undefined> {
  if (request.kind !== 'passkey') return undefined;
  const owner = request.payload.user;
  if ((await policy.passkeyOwnerStillCounts(owner)) !== 'left') return undefined;
  const note = `${PASSKEY_OWNER_GONE} (checked before writing it)`;
  return sentBack(request, request.round, PASSKEY_OWNER_GONE, { note, leftPool: owner, at: now });
}

/**
 * Is a delegation covering `approval` behind it: not revoked, not ended when the approval was given nor
 * when the request was filed, and within its cap? A revocation at any time counts against it: one
 * before the approval means it was not in effect then, one after withdraws what was given through it
 * (as the bot's ending does at once). Its start is not compared: an approval is stamped when the click
 * arrives, before the policy check (which may wait on Slack) finds the delegation, so one that
 * completed in that wait counts; and a store writer who could add such an approval could stamp it as
 * late as they liked anyway. The approval's date is the store's word too, but the filing time is under
 * the filing seal where approvals are signed: no approval through a delegation can have been given
 * within its window on a request filed after the window ended, whatever date it carries.
 */
function delegated(
  request: ApprovalRequest,
  approval: ApprovalRequest['approvals'][number],
  delegations: readonly Delegation[],
): boolean {
  const at = Date.parse(approval.at);
  return delegations.some(
    (d) =>
      d.delegator === approval.onBehalfOf &&
      d.delegate === approval.user &&
      !d.revoked &&
      at < Date.parse(d.until) &&
      Date.parse(request.createdAt) < Date.parse(d.until) &&
      !capProblem(d, request),
  );
}

/**
 * Does a delegation stand behind every approval in someone's place? The one an approval names is read by
 * its id, however long ago it ended (the list lets ended ones go after a while); for one recorded without
 * it, any delegation still listed may.
 */
async function allDelegated(
  book: Pick<DelegationBook, 'all' | 'byId'>,
  request: ApprovalRequest,
  placed: ReadonlyArray<ApprovalRequest['approvals'][number]>,
): Promise<boolean> {
  const listed = placed.some((a) => a.delegationId === undefined) ? await book.all() : [];
  for (const approval of placed) {
    const named = approval.delegationId === undefined ? undefined : await book.byId(approval.delegationId);
    const behind = approval.delegationId === undefined ? listed : named ? [named] : [];
    if (!delegated(request, approval, behind)) return false;
  }
  return true;
}

/**
 * Under the request's lock, before it is claimed: backIfApproverLeft, else the request back with its
 * approvers when an approval in someone's place has no delegation behind it (delegations read from the
 * store, only when the request counts such an approval). Undefined when every approval still counts.
 */
export async function backIfApprovalGone(
  policy: Pick<ApprovalPolicy, 'approvalStillCounts' | 'passkeyOwnerStillCounts'>,
  book: Pick<DelegationBook, 'all' | 'byId'>,
  request: ApprovalRequest,
  now: Date,
): Promise<ApprovalRequest | undefined> {
  const left =
    backIfApproverLeft(policy, request, now) ?? (await backIfPasskeyOwnerGone(policy, request, now));
  if (left) return left;
  const placed = request.approvals.filter((a) => a.onBehalfOf !== undefined);
  if (placed.length === 0) return undefined;
  if (await allDelegated(book, request, placed)) return undefined;
  const note = `${DELEGATION_GONE} (checked before sending)`;
  return sentBack(request, request.round, DELEGATION_GONE, { note, at: now });
}

/** What reading the pools before the claim uses. */
export interface PoolReading {
  policy: Pick<ApprovalPolicy, 'approvalStillCounts' | 'readPoolGroups'>;
  log: EngineLog | undefined;
  /** The longest wait for Slack (default POOL_READ_BOUND_MS; a test shortens it). */
  boundMs?: number | undefined;
}

/**
 * Before the claim's lock, for a request the executor has just read (no read of its own): read again
 * the user groups an approved request's approvers may count through (from the cache while fresh), so
 * the claim judges on what Slack just said. Waits at most `boundMs`; a read still under way then
 * finishes in the background (a later one shares it). Never fails the send: a read that fails leaves
 * the last known members to judge by, logged.
 */
export async function readPoolsBriefly(
  deps: PoolReading,
  request: ApprovalRequest | undefined,
): Promise<void> {
  if (request?.state !== 'approved') return;
  const reading = deps.policy.readPoolGroups(request.kind).catch((error: unknown) =>
    deps.log?.warn('approver groups not read before sending; judged on their last known members', {
      requestId: request.id,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  let bound: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    bound = setTimeout(resolve, deps.boundMs ?? POOL_READ_BOUND_MS);
    bound.unref();
  });
  try {
    await Promise.race([reading, waited]);
  } finally {
    clearTimeout(bound);
  }
}
