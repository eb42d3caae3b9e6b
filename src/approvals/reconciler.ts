// Outcome-unknown requests: the call may or may not have been acted on. Look for them in the
// transaction list (same kind, amount and destination, created around the call, and exactly one such
// transaction), or for a whitelist addition on the whitelist. When that stays inconclusive, or cannot
// be done at all (settlement), a person is asked to check. Reads only, at background priority;
// nothing here ever sends a request again.
import type { Transaction } from '../cngn/schemas.js';
import { classifyStatus } from '../cngn/schemas.js';
import { Money } from '../format/money.js';
import type { ApprovalCore } from './engine.js';
import type { Executor } from './executor.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

export interface ReconcilerOptions {
  /** How far after the call a matching transaction may have been created (default 30 min). */
  matchWindowMs?: number;
  /** Transactions per page read (default 50). */
  reconcilePageSize?: number;
  /** Pages read back at most in one pass, while they are still inside the window (default 3). */
  reconcilePages?: number;
  /** Inconclusive checks after which a person is asked to check (default 6: about an hour). */
  escalateAfterChecks?: number;
}

/** What the tracker does for the reconciler: settle a request, or look again later. */
export interface TrackingSteps {
  finish(
    id: string,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined>;
  reschedule(request: ApprovalRequest): Promise<void>;
}

// The trx_type each kind shows in the transaction list, in both vocabularies the sources use.
const TRX_TYPES: Partial<Record<ApprovalRequest['kind'], readonly string[]>> = {
  withdraw: ['withdraw', 'withdrawal'],
  redeem: ['fiat_redeem', 'redeem', 'enaira_redeem'],
  bridge: ['swap', 'bridge'],
};

const CLOCK_SKEW_MS = 5 * 60_000;

export class Reconciler {
  private readonly matchWindowMs: number;
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly escalateAfter: number;

  constructor(
    private readonly core: ApprovalCore,
    private readonly executor: Executor,
    private readonly steps: TrackingSteps,
    options: ReconcilerOptions = {},
  ) {
    this.matchWindowMs = options.matchWindowMs ?? 30 * 60_000;
    this.pageSize = options.reconcilePageSize ?? 50;
    this.maxPages = Math.max(1, options.reconcilePages ?? 3);
    this.escalateAfter = Math.max(1, options.escalateAfterChecks ?? 6);
  }

  /** Look for outcome-unknown withdrawals, redemptions and bridges in the transaction list. */
  async reconcile(requests: ApprovalRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const since = Math.min(...requests.map((r) => sentAt(r) - CLOCK_SKEW_MS));
    const txs = await this.recentTransactions(since);
    for (const request of requests) {
      const candidates = await this.candidates(request, txs);
      const [match] = candidates;
      if (match && candidates.length === 1) {
        await this.settle(request, match);
        continue;
      }
      if (candidates.length > 1) {
        const refs = candidates.map((tx) => tx.trx_ref).join(', ');
        await this.core.notice(
          request.id,
          'ambiguous-match',
          `${candidates.length} transactions match its kind, amount, destination and time (${refs}), so the bot cannot tell which one is this request's. It stays outcome unknown and is never resent: a person must check which one it is.`,
          { when: (r) => r.state === 'outcome-unknown' },
        );
      }
      await this.inconclusive(request);
    }
  }

  /** A whitelist addition with an unclear answer: is the address on the list now? */
  async reconcileWhitelist(request: ApprovalRequest): Promise<void> {
    if (request.kind !== 'whitelist') return;
    const { networkId, address } = request.payload;
    const list = await this.core.options.api.getWhitelisted({ priority: 'background' });
    const listed = list.some(
      (w) => w.networkId === networkId && w.publicKey.toLowerCase() === address.toLowerCase(),
    );
    if (listed) {
      await this.steps.finish(request.id, 'completed', 'found on the whitelist', { status: 'completed' });
    } else {
      await this.inconclusive(request);
    }
  }

  /** A settlement update with an unclear answer: nothing can read it back, so a person checks. Once. */
  async settlementNeedsAPerson(request: ApprovalRequest): Promise<void> {
    await this.core.notice(
      request.id,
      'needs-manual-check',
      `The service gives no way to read the settlement account back, so the bot cannot tell whether this change was made. A person must check the settlement account on the service dashboard; the bot will not send it again. An approver then records the answer: \`/cngn resolve ${request.id} completed|failed <what you saw>\`.`,
      { when: (r) => r.state === 'outcome-unknown' },
    );
  }

  /** Not settled by this check: after enough of them, ask a person (once); look again later anyway. */
  private async inconclusive(request: ApprovalRequest): Promise<void> {
    const checks = (request.checks ?? 0) + 1;
    if (checks >= this.escalateAfter) {
      await this.core.notice(
        request.id,
        'needs-manual-check',
        `Still not confirmed after ${checks} checks. A person must check with the service (dashboard or support) whether it went through; the bot will never send it again. It keeps looking, less often. An approver can record the answer: \`/cngn resolve ${request.id} completed|failed <what you saw>\`.`,
        { when: (r) => r.state === 'outcome-unknown' },
      );
    }
    await this.steps.reschedule(request);
  }

  /** Newest first, page after page while the pages are still inside the window (and budget allows). */
  private async recentTransactions(since: number): Promise<Transaction[]> {
    const all: Transaction[] = [];
    for (let page = 1; page <= this.maxPages; page++) {
      const result = await this.core.options.api.getTransactions({
        page,
        limit: this.pageSize,
        priority: 'background',
      });
      all.push(...result.data);
      const last = result.pagination ? result.pagination.isLastPage : result.data.length < this.pageSize;
      const oldest = Math.min(...result.data.map((tx) => createdAt(tx)));
      if (last || result.data.length === 0 || oldest < since) break;
    }
    return all;
  }

  /** Same kind, amount and destination, created around the call, and not another request's. */
  private async candidates(request: ApprovalRequest, txs: Transaction[]): Promise<Transaction[]> {
    const from = sentAt(request) - CLOCK_SKEW_MS;
    const to = sentAt(request) + this.matchWindowMs;
    const types = TRX_TYPES[request.kind] ?? [];
    const found = new Map<string, Transaction>(); // a page may shift while it is read: once each
    for (const tx of txs) {
      const created = createdAt(tx);
      if (!(created >= from && created <= to)) continue;
      if (!types.includes((tx.trx_type ?? '').toLowerCase())) continue;
      if (!sameDestination(request, tx) || !sameAmount(request, tx)) continue;
      const owner = await this.core.repo.findIdByReference(tx.trx_ref);
      if (owner && owner !== request.id) continue;
      found.set(tx.trx_ref, tx);
    }
    return [...found.values()];
  }

  private async settle(request: ApprovalRequest, match: Transaction): Promise<void> {
    const status = classifyStatus(match.status);
    const outcome = {
      ...outcomeFromTransaction(match),
      reference: match.trx_ref,
      ...(match.id ? { transactionId: match.id } : {}),
    };
    const found = await this.core.locked(request.id, async (current) => {
      if (current?.state !== 'outcome-unknown') return undefined;
      const to = status === 'succeeded' ? 'completed' : status === 'failed' ? 'failed' : 'sent';
      const next = transition({ ...current, outcome: { ...current.outcome, ...outcome } }, to, {
        action: 'reconciled',
        note: `found in the transaction list as ${match.trx_ref}`,
        at: this.core.now(),
      });
      await this.executor.indexOutcome(next);
      await this.core.write(current, next);
      return next;
    });
    if (found) await this.core.notify(found);
  }
}

export function outcomeFromTransaction(tx: Transaction): ExecutionOutcome {
  return {
    status: tx.status,
    ...(tx.explorer_link ? { explorerLink: tx.explorer_link } : {}),
    ...(tx.extl_trx_hash || tx.base_trx_hash
      ? { hash: tx.extl_trx_hash ?? tx.base_trx_hash ?? undefined }
      : {}),
  };
}

const sentAt = (request: ApprovalRequest) => Date.parse(request.outcome?.sentAt ?? request.createdAt);
const createdAt = (tx: Transaction) => (tx.createdAt ? Date.parse(tx.createdAt) : Number.NaN);

function sameAmount(request: ApprovalRequest, tx: Transaction): boolean {
  if (!request.amount) return false;
  try {
    return Money.parseDecimal(request.amount).equals(Money.fromService(tx.amount));
  } catch {
    return false;
  }
}

function sameDestination(request: ApprovalRequest, tx: Transaction): boolean {
  const receiver = tx.receiver;
  const address = typeof receiver === 'string' ? receiver : receiver?.address;
  const account = typeof receiver === 'string' ? receiver.split(':')[1] : receiver?.accountNumber;
  const same = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();
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
