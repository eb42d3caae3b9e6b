// How a request is recognised in the service's transaction list: the same kind, amount and
// destination, created inside a time window, not another request's, and not one that another request
// still in flight or unresolved may have made. One matcher, used by the reconciler (outcome unknown)
// and by the lookup before a late send.
import { Money } from '../format/money.js';
import type { CoreSections } from './core-sections.js';
import type { CustodyGateway, CustodyTransaction, ServiceReadOptions } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import { LOOKED_UP_BEFORE_SENDING } from './state-machine.js';
import { type ApprovalRequest, type ExecutionOutcome, type HistoryEntry, MONEY_KINDS } from './types.js';

/** How far the service's clock and the replicas' clocks may disagree. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** How long after a call the service may list the transaction it made (the reconciler's default). */
export const MATCH_WINDOW_MS = 30 * 60_000;

/** Transactions read back from the newest, and whether they reach back to the time asked for. */
export interface TransactionsBack {
  transactions: CustodyTransaction[];
  /** The pages read cover everything created since `since` (the list ended, or went older). */
  complete: boolean;
  /**
   * Everything created after this time (ms) was read: -Infinity when the list ended, else the oldest
   * time of a transaction read (those without a time left out; +Infinity when none had one).
   */
  coversAfter: number;
}

/** The read holds every transaction created from `from` on: a match found in it is the only one. */
export function coversFrom(read: TransactionsBack, from: number): boolean {
  return read.coversAfter < from;
}

/** How far to read back: page size, and pages at most (the service's request budget is small). */
export interface ReadBack {
  pageSize: number;
  maxPages: number;
}

/** Page size and pages as set (reconcilePageSize, reconcilePages), by default 3 pages of 50. */
export function readBackOf(options: { reconcilePageSize?: number; reconcilePages?: number }): ReadBack {
  return { pageSize: options.reconcilePageSize ?? 50, maxPages: Math.max(1, options.reconcilePages ?? 3) };
}

/** Newest first, page after page while the pages are still inside the window, at most maxPages. */
export async function transactionsSince(
  custody: CustodyGateway,
  since: number,
  { pageSize, maxPages }: ReadBack,
  options?: ServiceReadOptions,
): Promise<TransactionsBack> {
  const all: CustodyTransaction[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const result = await custody.transactions(page, pageSize, options);
    all.push(...result.transactions);
    const last = result.lastPage ?? result.transactions.length < pageSize;
    if (last || result.transactions.length === 0) {
      return { transactions: all, complete: true, coversAfter: Number.NEGATIVE_INFINITY };
    }
    // Newest first: everything after the oldest read is in hand (one of the same time may be next).
    // A transaction without a time says nothing of how far back the pages reach (and never matches).
    const oldest = Math.min(...all.map((tx) => createdAt(tx)).filter(Number.isFinite));
    if (oldest < since) return { transactions: all, complete: true, coversAfter: oldest };
    if (page === maxPages) return { transactions: all, complete: false, coversAfter: oldest };
  }
  return { transactions: all, complete: false, coversAfter: Number.NaN };
}

/**
 * Another request whose call may have made a transaction that no index names yet: executing past
 * its write-ahead mark (a lease without a phase counts as marked), outcome unknown (interrupted
 * too), or sent without a reference.
 */
function mayOwnUnindexed(request: ApprovalRequest): boolean {
  if (!MONEY_KINDS.has(request.kind)) return false;
  switch (request.state) {
    case 'executing':
      return request.execution?.phase !== 'claimed';
    case 'outcome-unknown':
      return true;
    case 'sent':
      return !request.outcome?.reference;
    default:
      return false;
  }
}

/**
 * The environment's requests that may own an unindexed transaction. Each is open (executing, sent or
 * outcome-unknown), so the open set lists them all, however old; the limit index would be smaller
 * but drops what is older than CNGN_LIMIT_WINDOW (as short as a minute). Read it after the
 * transaction list: a request whose call made a listed transaction is past its mark by then, or its
 * reference is indexed (the index is written before the answer).
 */
export async function unsettledRequests(
  repo: Pick<ApprovalRepository, 'openRequests'>,
): Promise<ApprovalRequest[]> {
  return (await repo.openRequests()).filter(mayOwnUnindexed);
}

/** What the list holds for a request: the transactions that can be its, and who else may have made them. */
export interface Matching {
  matches: CustodyTransaction[];
  /** Other requests, in flight or unresolved, whose call may have made one of the matches. */
  rivals: ApprovalRequest[];
}

/**
 * The transactions that can be this request's: its kind, amount and destination, created within
 * [from, to], and not indexed to another request. Each reference once (a page may shift while read).
 * With them, the `unsettled` requests (unsettledRequests, read after the list) that may have made one:
 * same kind, amount and destination, their call begun at most CLOCK_SKEW_MS after it was created and
 * at most `spanMs` before (when the call's time is not known, at any time it may have been: callTimes).
 */
export async function matchingTransactions(
  repo: Pick<ApprovalRepository, 'findIdByReference'>,
  request: ApprovalRequest,
  txs: CustodyTransaction[],
  window: { from: number; to: number },
  unsettled: readonly ApprovalRequest[],
  spanMs = MATCH_WINDOW_MS,
): Promise<Matching> {
  const found = new Map<string, CustodyTransaction>();
  for (const tx of txs) {
    const created = createdAt(tx);
    if (!(created >= window.from && created <= window.to)) continue;
    if (!couldBe(request, tx)) continue;
    const owner = await repo.findIdByReference(tx.reference);
    if (owner && owner !== request.id) continue;
    found.set(tx.reference, tx);
  }
  const matches = [...found.values()];
  const rivals = unsettled.filter(
    (other) =>
      other.id !== request.id && matches.some((tx) => couldBe(other, tx) && calledAround(other, tx, spanMs)),
  );
  return { matches, rivals };
}

const couldBe = (request: ApprovalRequest, tx: CustodyTransaction) =>
  tx.kind === request.kind && sameDestination(request, tx) && sameAmount(request, tx);

function calledAround(request: ApprovalRequest, tx: CustodyTransaction, spanMs: number): boolean {
  const { from, to } = callTimes(request);
  const created = createdAt(tx);
  return !(created < from - CLOCK_SKEW_MS || created > to + spanMs);
}

/**
 * When a request's call may have been made: at its recorded send time; else (a late lookup parked it,
 * or its record was restored from before the call) not before its last approval, and not after it
 * became outcome unknown, when it did (a call after that is the bot's own, and records its time).
 */
function callTimes(request: ApprovalRequest): { from: number; to: number } {
  const sent = Date.parse(request.outcome?.sentAt ?? '');
  if (Number.isFinite(sent)) return { from: sent, to: sent };
  const approved = Date.parse(request.approvals.at(-1)?.at ?? request.createdAt);
  const from = Number.isFinite(approved) ? approved : Number.NEGATIVE_INFINITY;
  if (request.state !== 'outcome-unknown') return { from, to: Number.POSITIVE_INFINITY };
  const at = Date.parse(becameUnknown(request)?.at ?? '');
  return { from, to: Number.isFinite(at) ? at : Number.POSITIVE_INFINITY };
}

/**
 * Made outcome unknown by the lookup before a late send (late-lookup.ts): the bot has no record of a
 * call for it, so no transaction in the list is known to be its (after a store restore one may still
 * be), and a person was asked.
 */
export function leftToAPersonByTheLookup(request: ApprovalRequest): boolean {
  return request.state === 'outcome-unknown' && becameUnknown(request)?.action === LOOKED_UP_BEFORE_SENDING;
}

/**
 * Ask a person to check one the lookup left to them (once a round): it never sends it, whatever the
 * person finds. The lookup asks right after leaving it; the reconciler asks again in case it stopped
 * in between.
 */
export function askAPersonToCheck(core: CoreSections, id: string): Promise<ApprovalRequest | undefined> {
  return core.notice(
    id,
    'needs-manual-check',
    `A person must check with the service (dashboard or support) whether it went out; the bot will not send it. An approver then records the answer: \`/cngn resolve ${id} completed|failed <what you saw>\`.`,
    { when: (r) => r.state === 'outcome-unknown' },
  );
}

/** The step that last made the request outcome unknown. */
function becameUnknown(request: ApprovalRequest): HistoryEntry | undefined {
  const steps = request.history;
  return steps.findLast((step, i) => step.state === 'outcome-unknown' && steps[i - 1]?.state !== step.state);
}

export function outcomeFromTransaction(tx: CustodyTransaction): ExecutionOutcome {
  return {
    status: tx.status,
    ...(tx.explorerLink ? { explorerLink: tx.explorerLink } : {}),
    ...(tx.hash !== undefined ? { hash: tx.hash } : {}),
  };
}

const createdAt = (tx: CustodyTransaction) => (tx.createdAt ? Date.parse(tx.createdAt) : Number.NaN);

function sameAmount(request: ApprovalRequest, tx: CustodyTransaction): boolean {
  if (!request.amount) return false;
  try {
    return Money.parseDecimal(request.amount).equals(Money.fromService(tx.amount));
  } catch {
    return false;
  }
}

function sameDestination(request: ApprovalRequest, tx: CustodyTransaction): boolean {
  const { address, accountNumber: account } = tx.destination;
  const same = (a: string | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();
  switch (request.kind) {
    case 'withdraw':
      return same(address, request.payload.address);
    case 'bridge':
      return same(address, request.payload.destinationAddress);
    case 'redeem':
      return same(account, request.payload.accountNumber);
    default:
      return false;
  }
}
