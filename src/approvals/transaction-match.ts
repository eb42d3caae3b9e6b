// How a request is recognised in the service's transaction list: the same kind, amount and
// destination, created inside a time window, and not another request's. One matcher, used by the
// reconciler (outcome unknown) and by the lookup before a late send.
import { Money } from '../format/money.js';
import type { CustodyGateway, CustodyTransaction, ServiceReadOptions } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

/** How far the service's clock and the replicas' clocks may disagree. */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** Transactions read back from the newest, and whether they reach back to the time asked for. */
export interface TransactionsBack {
  transactions: CustodyTransaction[];
  /** The pages read cover everything created since `since` (the list ended, or went older). */
  complete: boolean;
  /**
   * Everything created after this time (ms) was read: -Infinity when the list ended, else the oldest
   * transaction read (NaN when one had no time: then nothing older than the list's end is covered).
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
    const oldest = Math.min(...all.map((tx) => createdAt(tx)));
    if (oldest < since) return { transactions: all, complete: true, coversAfter: oldest };
    if (page === maxPages) return { transactions: all, complete: false, coversAfter: oldest };
  }
  return { transactions: all, complete: false, coversAfter: Number.NaN };
}

/**
 * The transactions that can be this request's: its kind, amount and destination, created within
 * [from, to], and not indexed to another request. Each reference once (a page may shift while read).
 */
export async function matchingTransactions(
  repo: Pick<ApprovalRepository, 'findIdByReference'>,
  request: ApprovalRequest,
  txs: CustodyTransaction[],
  window: { from: number; to: number },
): Promise<CustodyTransaction[]> {
  const found = new Map<string, CustodyTransaction>();
  for (const tx of txs) {
    const created = createdAt(tx);
    if (!(created >= window.from && created <= window.to)) continue;
    if (tx.kind !== request.kind) continue;
    if (!sameDestination(request, tx) || !sameAmount(request, tx)) continue;
    const owner = await repo.findIdByReference(tx.reference);
    if (owner && owner !== request.id) continue;
    found.set(tx.reference, tx);
  }
  return [...found.values()];
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
