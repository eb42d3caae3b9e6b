// Time passing in the sandbox: pending transactions settle after a delay, deposits arrive, webhooks and
// bridge callbacks go out. Every timer is tracked so stop() leaves nothing behind.
import { cryptoDeposit, payTemporaryAccount } from './deposits.js';
import { settleTransaction } from './settlement.js';
import type { SandboxState } from './state.js';
import type { TransactionRecord } from './types.js';
import { eventData, type WebhookSender } from './webhooks.js';

export class Timeline {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly state: SandboxState,
    private readonly webhooks: WebhookSender,
    private readonly settleDelayMs: number,
    private readonly now: () => number,
  ) {}

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Keep track of background work so stop() can wait for it. */
  private run(work: Promise<void>): Promise<void> {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return work;
  }

  /** A pending transaction settles after the configured delay. */
  track(tx: TransactionRecord): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(tx.trx_ref);
      void this.run(this.settle(tx.trx_ref));
    }, this.settleDelayMs);
    this.timers.set(tx.trx_ref, timer);
  }

  async settle(reference: string): Promise<void> {
    const timer = this.timers.get(reference);
    if (timer) clearTimeout(timer);
    this.timers.delete(reference);
    const plan = this.state.plans.get(reference);
    const tx = this.state.find(reference);
    if (!plan || !tx || tx.status !== 'pending') return;
    this.state.plans.delete(reference);
    const settled = settleTransaction(tx, plan, this.iso());
    if (settled.credit) this.state.credit(settled.credit);
    const at = this.iso();
    await this.webhooks.send(settled.event, eventData(tx, at, settled.reason), at);
    if (plan.type === 'swap' && plan.callbackUrl && !plan.fails) {
      await this.webhooks.callback(plan.callbackUrl, {
        explorerLink: tx.explorer_link,
        hash: tx.extl_trx_hash,
        transactionId: tx.id,
        status: 'completed',
        amount: (plan.receivable ?? tx.amount).toString(),
      });
    }
  }

  async settleAll(): Promise<void> {
    const pending = [...this.state.plans.keys()];
    for (const reference of pending) await this.run(this.settle(reference));
  }

  async payTemporaryAccount(reference: string, amount?: string): Promise<void> {
    const tx = payTemporaryAccount(this.state, reference, amount);
    const work = (async () => {
      const at = this.iso();
      // Fiat landed but not yet credited; the credit comes with deposit.completed.
      await this.webhooks.send('deposit.received', eventData(tx, at), at);
      await this.settle(tx.trx_ref);
    })();
    await this.run(work);
  }

  async simulateCryptoDeposit(input: { amount: string; network?: string }): Promise<{ trx_ref: string }> {
    const tx = cryptoDeposit(this.state, input.amount, input.network);
    const at = this.iso();
    await this.run(this.webhooks.send('deposit.completed', eventData(tx, at), at));
    return { trx_ref: tx.trx_ref };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.webhooks.abortAll();
    await Promise.allSettled([...this.running]);
  }
}
