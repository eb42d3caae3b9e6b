// Limits over time, so that splitting a payment does not get it past the approvers. A withdrawal,
// redemption or bridge takes the tier of the largest of: its amount, its requester's total in the
// window and its destination's total in the window (each including it). CNGN_DAILY_LIMIT caps what
// the environment sends in any window. Pure: the window's entries and their requests in, figures out;
// where the entries are kept, and how replicas decide one after the other, is limit-index.ts.
import { Money } from '../format/money.js';
import { walletIdentity } from './destinations.js';
import { InvalidDraftError } from './draft.js';
import { ApprovalErrorCode } from './error-codes.js';
import {
  type ApprovalRequest,
  type LimitFigures,
  MONEY_KINDS,
  type RequestDraft,
  type RequestKind,
  type TierBasis,
} from './types.js';

export const DEFAULT_LIMIT_WINDOW_MS = 24 * 3_600_000;

export interface LimitSettings {
  /** CNGN_LIMIT_WINDOW. */
  windowMs: number;
  /** CNGN_DAILY_LIMIT, canonical decimal ₦; absent: no limit. */
  dailyLimit?: string | undefined;
}

/** The limits as set, and what counts against them now (canonical decimal ₦). */
export interface LimitUse extends LimitSettings {
  /** Approved, being sent, sent or settled in the window. */
  approved: string;
  /** Still waiting for approval. */
  waiting: string;
}

/** A filing the daily limit refuses; the figures say by how much. */
export class LimitExceededError extends InvalidDraftError {
  override name = 'LimitExceededError';
  override readonly code = ApprovalErrorCode.LimitExceeded;

  constructor(readonly figures: LimitFigures) {
    super(
      `amount: ₦${figures.used} already sent, on the way, waiting or unresolved in the window; the daily limit is ₦${figures.limit}; this ₦${figures.amount} would pass it`,
    );
  }
}

/** The kinds that move an amount, and so count towards the limits. */
export function movesAmount(kind: RequestKind): boolean {
  return MONEY_KINDS.has(kind);
}

/** A wallet by its key holder (destinations.ts): an EVM or Tron address is one on every network. */
const walletKey = (networkId: string, address: string) => `wallet:${walletIdentity(networkId, address)}`;

/**
 * Where the money goes, as one key: the wallet's key holder (its address, for EVM and Tron on any
 * network of the family) for a withdrawal or a bridge, bank code and account number for a redemption;
 * undefined for other kinds.
 */
export function destinationOf(request: RequestDraft | ApprovalRequest): string | undefined {
  switch (request.kind) {
    case 'withdraw':
      return walletKey(request.payload.networkId, request.payload.address);
    case 'bridge':
      return walletKey(request.payload.destinationNetworkId, request.payload.destinationAddress);
    case 'redeem':
      return `bank:${request.payload.bankCode}:${request.payload.accountNumber}`;
    default:
      return undefined;
  }
}

/**
 * A key as an index entry holds it, read as keys are made now: entries written per network
 * (`wallet:<network>:<address>`) name the same key holder as `wallet:evm:…` or `wallet:tron:…`.
 */
export function destinationKey(stored: string | undefined): string | undefined {
  if (!stored?.startsWith('wallet:')) return stored;
  const cut = stored.lastIndexOf(':');
  return walletKey(stored.slice('wallet:'.length, cut), stored.slice(cut + 1));
}

/** One request in the window's index: what it adds, by whom, where to. */
export interface WindowEntry {
  id: string;
  /** Canonical decimal ₦. */
  amount: string;
  requester: string;
  destination?: string;
  filedAt: string;
  /**
   * The round whose final approval the daily limit let through: the request counts as approved from
   * then on, even before its own write lands, so a replica deciding meanwhile counts it.
   */
  approvedRound?: number;
  /**
   * The steps of the request as that approval's write read it. The write is conditional on the
   * request being exactly that, so once the request holds other steps (approved and sent back to wait
   * in the same round, an interrupted approval cleared, a notice) it can no longer land, and the mark
   * no longer counts: the request counts by its state.
   */
  approvedSteps?: number;
}

export function windowEntry(request: ApprovalRequest): WindowEntry {
  const destination = destinationOf(request);
  return {
    id: request.id,
    amount: request.amount ?? '0.00',
    requester: request.requester,
    ...(destination ? { destination } : {}),
    filedAt: request.createdAt,
  };
}

/** An entry as it counts now. */
export interface Counted {
  entry: WindowEntry;
  amount: Money;
  /** Approved or further on: what the daily limit counts at a final approval. */
  approved: boolean;
  /** Its request as read; absent while it is being filed. */
  request?: ApprovalRequest;
}

/**
 * Whether a request adds to the totals: not once it ended with nothing sent (rejected, cancelled,
 * expired, failed before the service took its call, or found failed by a person who checked with the
 * service: `/cngn resolve … failed`). A request that failed after the service took it, or whose
 * outcome was unknown, still counts until a person says it failed: money may have moved.
 */
export function stillCounts(request: ApprovalRequest): boolean {
  switch (request.state) {
    case 'rejected':
    case 'cancelled':
    case 'expired':
      return false;
    case 'failed':
      if (failedByAPerson(request)) return false;
      return request.history.some((step) => step.state === 'sent' || step.state === 'outcome-unknown');
    default:
      return true;
  }
}

/** Its latest step is a person's word that it failed (resolve-by-hand.ts: the only failed step with an actor). */
function failedByAPerson(request: ApprovalRequest): boolean {
  const last = request.history.at(-1);
  return last?.state === 'failed' && last.actor !== undefined && request.outcome?.status === 'failed';
}

/**
 * When an entry counts from. A request not sent yet (waiting, approved, or not written yet) may go out
 * at any moment, so it counts as now; one that went to the service, from when its call began. One the
 * late lookup left of unknown outcome has no call of ours: it may have gone out at any time up to
 * then, so it counts from the lookup's step (not from its filing, which may be a window ago).
 */
function countedAt(entry: WindowEntry, request: ApprovalRequest | undefined, now: Date): number {
  if (!request) return now.getTime();
  if (request.state === 'pending' || request.state === 'approved') return now.getTime();
  if (request.outcome?.sentAt) return Date.parse(request.outcome.sentAt);
  const unknownSince = request.history.findLast((step) => step.state === 'outcome-unknown');
  return Date.parse(unknownSince?.at ?? entry.filedAt);
}

/**
 * The entries that count in the window ending `now`, given their requests as read (in the same order).
 * An entry with no request is a filing whose request is not written yet, or one that stopped before
 * writing it: it counts as waiting for approval until a window has passed since it was filed.
 */
export function countWindow(
  entries: readonly WindowEntry[],
  requests: ReadonlyArray<ApprovalRequest | undefined>,
  now: Date,
  windowMs: number,
): Counted[] {
  const counted: Counted[] = [];
  for (const [i, entry] of entries.entries()) {
    const request = requests[i];
    if (request && !stillCounts(request)) continue;
    if (!inWindow(entry, request, now, windowMs)) continue;
    const approved = request ? request.state !== 'pending' || approvalMayLand(entry, request) : false;
    counted.push({
      entry,
      amount: Money.parseDecimal(entry.amount),
      approved,
      ...(request ? { request } : {}),
    });
  }
  return counted;
}

/**
 * The entries the index keeps (in the same order): those that count, and, while inside the window,
 * those a person resolved failed. Such a request counts again if the service later reports it
 * completed (a conflict after the person's word), so its entry must still be there to count it; the
 * others that stopped counting ended with nothing sent and never count again.
 */
export function keptEntries(
  entries: readonly WindowEntry[],
  requests: ReadonlyArray<ApprovalRequest | undefined>,
  now: Date,
  windowMs: number,
): WindowEntry[] {
  return entries.filter((entry, i) => {
    const request = requests[i];
    if (request && !stillCounts(request) && !failedByAPerson(request)) return false;
    return inWindow(entry, request, now, windowMs);
  });
}

/** Whether an entry is inside the window ending `now`; with no request, from its filing. */
function inWindow(
  entry: WindowEntry,
  request: ApprovalRequest | undefined,
  now: Date,
  windowMs: number,
): boolean {
  const since = request ? countedAt(entry, request, now) : Date.parse(entry.filedAt);
  return now.getTime() - since < windowMs;
}

/** A pending request whose final approval the daily limit let through, and whose write may still land. */
function approvalMayLand(entry: WindowEntry, request: ApprovalRequest): boolean {
  if (entry.approvedRound !== request.round) return false;
  // A mark without its steps (written before they were kept) holds for its round, as it did then.
  return entry.approvedSteps === undefined || entry.approvedSteps === request.history.length;
}

const sum = (counted: readonly Counted[]) => counted.reduce((total, c) => total.plus(c.amount), Money.zero());

/** What a filing is: its amount, who files it, where it goes. */
export interface Filing {
  amount: Money;
  requester: string;
  destination: string | undefined;
}

/**
 * The amount a filing's tier is read from, and which total chose it when it was not the amount
 * itself: the total needing the most approvals wins; on a tie the amount, then the requester's.
 */
export function tierFor(
  counted: readonly Counted[],
  filing: Filing,
  windowMs: number,
  approvalsFor: (amount: Money) => number,
): { amount: Money; basis?: TierBasis } {
  const byRequester = filing.amount.plus(sum(counted.filter((c) => c.entry.requester === filing.requester)));
  const byDestination = filing.destination
    ? filing.amount.plus(
        sum(
          counted.filter((c) => destinationKey(c.entry.destination) === destinationKey(filing.destination)),
        ),
      )
    : filing.amount;
  let chosen: { amount: Money; basis?: TierBasis } = { amount: filing.amount };
  let most = approvalsFor(filing.amount);
  for (const [by, total] of [
    ['requester', byRequester],
    ['destination', byDestination],
  ] as const) {
    const needed = approvalsFor(total);
    if (needed > most) {
      most = needed;
      chosen = { amount: total, basis: { by, total: total.toString(), windowMs } };
    }
  }
  return chosen;
}

/**
 * The figures when `amount` would take the window past the daily limit, else undefined. At filing
 * everything that counts is used (sent or on the way, waiting for approval too); at a final approval
 * only what is approved or further on, and never the request being approved (`self`).
 */
export function overDailyLimit(
  counted: readonly Counted[],
  amount: Money,
  settings: LimitSettings,
  stage: LimitFigures['stage'],
  self?: string,
): LimitFigures | undefined {
  if (!settings.dailyLimit) return undefined;
  const limit = Money.parseDecimal(settings.dailyLimit);
  const used = sum(counted.filter((c) => c.entry.id !== self && (stage === 'filing' || c.approved)));
  if (used.plus(amount).compare(limit) <= 0) return undefined;
  return {
    used: used.toString(),
    limit: limit.toString(),
    amount: amount.toString(),
    windowMs: settings.windowMs,
    stage,
  };
}

/** What counts against the limits now. */
export function limitUse(counted: readonly Counted[], settings: LimitSettings): LimitUse {
  return {
    ...settings,
    approved: sum(counted.filter((c) => c.approved)).toString(),
    waiting: sum(counted.filter((c) => !c.approved)).toString(),
  };
}
