// After the call: follow each sent request to its final status (webhooks first, slow polls as the
// fallback), and find outcome-unknown requests in the transaction list. Reads only, at background
// priority; nothing here ever sends a money-moving request.
import type { Transaction, WebhookEvent } from '../cngn/schemas.js';
import { classifyStatus } from '../cngn/schemas.js';
import { Money } from '../format/money.js';
import type { ApprovalCore } from './engine.js';
import { type Executor, leaseExpired } from './executor.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

export interface TrackerOptions {
  /** First poll of a sent request after this long, then doubling (default 60 s). */
  pollBaseMs?: number;
  /** Longest wait between two polls (default 15 min). */
  pollMaxMs?: number;
  /** How far after the call a matching transaction may have been created (default 30 min). */
  matchWindowMs?: number;
  /** How many recent transactions the reconciler reads (one request, default 50). */
  reconcilePageSize?: number;
}

const FINAL_EVENT: Record<string, 'completed' | 'failed'> = {
  'withdrawal.completed': 'completed',
  'redemption.completed': 'completed',
  'bridge.completed': 'completed',
  'transaction.failed': 'failed',
};

const CLOCK_SKEW_MS = 5 * 60_000;

export class Tracker {
  private readonly pollBaseMs: number;
  private readonly pollMaxMs: number;
  private readonly matchWindowMs: number;
  private readonly pageSize: number;

  constructor(
    private readonly core: ApprovalCore,
    private readonly executor: Executor,
    options: TrackerOptions = {},
  ) {
    this.pollBaseMs = options.pollBaseMs ?? 60_000;
    this.pollMaxMs = options.pollMaxMs ?? 15 * 60_000;
    this.matchWindowMs = options.matchWindowMs ?? 30 * 60_000;
    this.pageSize = options.reconcilePageSize ?? 50;
  }

  /** Webhook subscriber: an event about one of our requests moves it to its final state. */
  async onWebhookEvent(event: WebhookEvent): Promise<ApprovalRequest | undefined> {
    const keys = [event.data.trx_ref, event.data.transactionId].filter((k): k is string => !!k);
    let id: string | undefined;
    for (const key of keys) id ??= await this.core.repo.findIdByReference(key);
    if (!id) return undefined;
    // Our own environment's service only speaks for our own environment's requests.
    if ((await this.core.get(id))?.environment !== this.core.binding.environment) return undefined;
    const byEvent = FINAL_EVENT[event.event];
    const byStatus = classifyStatus(event.data.status);
    const to =
      byEvent ?? (byStatus === 'succeeded' ? 'completed' : byStatus === 'failed' ? 'failed' : undefined);
    if (!to) return undefined;
    return this.finish(id, to, `webhook ${event.event}`, {
      status: event.data.status ?? (to === 'completed' ? 'completed' : 'failed'),
      ...(event.data.reason ? { reason: event.data.reason } : {}),
      ...(event.data.explorer_link ? { explorerLink: event.data.explorer_link } : {}),
      ...(event.data.base_trx_hash || event.data.extl_trx_hash
        ? { hash: event.data.extl_trx_hash ?? event.data.base_trx_hash ?? undefined }
        : {}),
    });
  }

  /**
   * The unsigned bridge callback is a hint: keep its link and hash, then confirm with the service
   * (one background read) before the request is called completed.
   */
  async onBridgeCallback(token: string, hint: { explorerLink?: string; hash?: string }): Promise<boolean> {
    const id = await this.core.repo.findIdByCallbackToken(token);
    if (!id) return false;
    const noted = await this.core.locked(id, async (request) => {
      if (!request || (request.state !== 'sent' && request.state !== 'outcome-unknown')) return undefined;
      const outcome = { ...request.outcome, ...hint };
      const next = { ...request, outcome, nextCheckAt: this.core.now().toISOString() } as ApprovalRequest;
      await this.core.repo.save(next, false);
      return next;
    });
    if (noted?.state === 'sent') await this.pollOne(noted);
    return true;
  }

  /** Move a sent (or outcome-unknown) request to completed/failed, once. */
  async finish(
    id: string,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined> {
    const done = await this.core.locked(id, async (request) => {
      if (!request || (request.state !== 'sent' && request.state !== 'outcome-unknown')) return undefined;
      const merged = { ...request.outcome, ...outcome };
      const next = transition({ ...request, outcome: merged }, to, {
        action: to,
        note: to === 'failed' && merged.reason ? `${action}: ${merged.reason}` : action,
        at: this.core.now(),
      });
      await this.core.repo.save(next);
      return next;
    });
    if (done) await this.core.notify(done);
    return done;
  }

  private isDue(request: ApprovalRequest, now: Date): boolean {
    if (request.nextCheckAt) return Date.parse(request.nextCheckAt) <= now.getTime();
    const since = request.history.at(-1)?.at ?? request.createdAt;
    return Date.parse(since) + this.pollBaseMs <= now.getTime();
  }

  private async reschedule(request: ApprovalRequest): Promise<void> {
    await this.core.locked(request.id, async (current) => {
      if (!current || current.state !== request.state) return;
      const checks = (current.checks ?? 0) + 1;
      const wait = Math.min(this.pollBaseMs * 2 ** checks, this.pollMaxMs);
      const nextCheckAt = new Date(this.core.now().getTime() + wait).toISOString();
      await this.core.repo.save({ ...current, checks, nextCheckAt }, false);
    });
  }

  /** One slow poll of a sent request's status. */
  async pollOne(request: ApprovalRequest): Promise<void> {
    const reference = request.outcome?.reference;
    if (!reference) return;
    const api = this.core.options.api;
    const tx =
      request.kind === 'withdraw'
        ? await api.verifyWithdrawal(reference, { priority: 'background' })
        : await api.getTransaction(reference, { priority: 'background' });
    const status = classifyStatus(tx.status);
    if (status === 'succeeded' || status === 'failed') {
      await this.finish(request.id, status === 'succeeded' ? 'completed' : 'failed', 'checked', fromTx(tx));
    } else {
      await this.reschedule(request);
    }
  }

  /** Look for an outcome-unknown request in the recent transaction list. Never resends. */
  async reconcile(requests: ApprovalRequest[]): Promise<void> {
    if (requests.length === 0) return;
    const page = await this.core.options.api.getTransactions({
      page: 1,
      limit: this.pageSize,
      priority: 'background',
    });
    for (const request of requests) {
      const match = await this.findMatch(request, page.data);
      if (!match) {
        await this.reschedule(request);
        continue;
      }
      const status = classifyStatus(match.status);
      const outcome = {
        ...fromTx(match),
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
        await this.core.repo.save(next);
        return next;
      });
      if (found) await this.core.notify(found);
    }
  }

  /** Same amount, same destination, created around the call, and not already some other request's. */
  private async findMatch(request: ApprovalRequest, txs: Transaction[]): Promise<Transaction | undefined> {
    const sentAt = Date.parse(request.outcome?.sentAt ?? request.createdAt);
    for (const tx of txs) {
      const created = tx.createdAt ? Date.parse(tx.createdAt) : Number.NaN;
      if (!(created >= sentAt - CLOCK_SKEW_MS && created <= sentAt + this.matchWindowMs)) continue;
      if (!sameDestination(request, tx) || !sameAmount(request, tx)) continue;
      const owner = await this.core.repo.findIdByReference(tx.trx_ref);
      if (owner && owner !== request.id) continue;
      return tx;
    }
    return undefined;
  }

  /**
   * One pass: expire; take over executing requests whose caller's lease ran out; send what is approved
   * but was never started; poll what is due; reconcile what is unknown. Errors are logged, retried later.
   */
  async tick(): Promise<void> {
    await this.core.expireDue();
    // Approved and not executing means never sent (executing is saved before any call): a crash
    // between claim and save, or a background start that failed. The claim makes it one call.
    for (const request of await this.core.openRequests()) {
      if (request.state === 'executing' && leaseExpired(request, this.core.now())) {
        await this.takeOverExpired(request.id);
      }
      if (request.state !== 'approved') continue;
      await this.executor.execute(request.id).catch((error: unknown) => {
        this.core.options.log?.warn('approved request not started; will retry', {
          requestId: request.id,
          error: String(error),
        });
      });
    }
    const now = this.core.now();
    const open = await this.core.openRequests();
    for (const request of open.filter((r) => r.state === 'sent' && this.isDue(r, now))) {
      await this.guard(request, () => this.pollOne(request));
    }
    const unknown = open.filter(
      (r) =>
        r.state === 'outcome-unknown' &&
        (r.kind === 'withdraw' || r.kind === 'redeem' || r.kind === 'bridge') &&
        this.isDue(r, now),
    );
    if (unknown.length > 0) await this.guard(unknown[0] as ApprovalRequest, () => this.reconcile(unknown));
    for (const request of open.filter(
      (r) => r.state === 'outcome-unknown' && r.kind === 'whitelist' && this.isDue(r, now),
    )) {
      await this.guard(request, () => this.reconcileWhitelist(request));
    }
  }

  /** A whitelist addition with an unclear answer: is the address on the list now? */
  private async reconcileWhitelist(request: ApprovalRequest): Promise<void> {
    if (request.kind !== 'whitelist') return;
    const { networkId, address } = request.payload;
    const list = await this.core.options.api.getWhitelisted({ priority: 'background' });
    const listed = list.some(
      (w) => w.networkId === networkId && w.publicKey.toLowerCase() === address.toLowerCase(),
    );
    if (listed) await this.finish(request.id, 'completed', 'found on the whitelist', { status: 'completed' });
    else await this.reschedule(request);
  }

  private async guard(request: ApprovalRequest, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.core.options.log?.warn('approval tracking failed; will retry', {
        requestId: request.id,
        error: String(error),
      });
      await this.reschedule(request).catch(() => {});
    }
  }

  /**
   * An executing request whose caller's lease ran out: the call may have gone out, so it becomes
   * outcome-unknown and is reconciled, never resent. A live lease means another replica is mid-call.
   */
  private async takeOverExpired(id: string): Promise<void> {
    const marked = await this.core.locked(id, async (current) => {
      const now = this.core.now();
      if (current?.state !== 'executing' || !leaseExpired(current, now)) return undefined;
      const { execution: _gone, ...rest } = current;
      const next = transition({ ...rest, nextCheckAt: now.toISOString(), checks: 0 }, 'outcome-unknown', {
        action: 'interrupted',
        note: 'the bot making the call stopped before recording the answer; checking the transaction list instead of resending',
        at: now,
      });
      await this.core.repo.save(next);
      return next;
    });
    if (marked) await this.core.notify(marked);
  }

  /**
   * Start-up: pick up what a stopped process left. sent and outcome-unknown → track now; the sweep
   * that follows sends what is approved and takes over executing requests whose lease ran out.
   */
  async resume(): Promise<void> {
    await this.core.repo.migrateLegacyOpenSet();
    await this.core.closeOtherEnvironments();
    for (const request of await this.core.openRequests()) {
      if (request.state === 'sent' || request.state === 'outcome-unknown') {
        await this.core.locked(request.id, async (current) => {
          if (current?.state === request.state) {
            await this.core.repo.save({ ...current, nextCheckAt: this.core.now().toISOString() }, false);
          }
        });
      }
    }
    await this.tick();
  }
}

function fromTx(tx: Transaction): ExecutionOutcome {
  return {
    status: tx.status,
    ...(tx.explorer_link ? { explorerLink: tx.explorer_link } : {}),
    ...(tx.extl_trx_hash || tx.base_trx_hash
      ? { hash: tx.extl_trx_hash ?? tx.base_trx_hash ?? undefined }
      : {}),
  };
}

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
