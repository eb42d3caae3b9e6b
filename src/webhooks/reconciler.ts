// Deliveries are sent once, so a missed one is lost. The reconciler reads the newest transactions at
// background priority (inside the shared rate budget, never the reserve) and queues a message for each
// final state no webhook announced, deduplicated against webhooks and earlier runs through the store.
//
// No flood on first start: only transactions that changed after the bot's first start (a high-water
// mark kept in the store, so restarts keep it) are considered; undated ones seen on the first run are
// recorded as already seen.

import type { Priority } from '../cngn/api.js';
import { RateBudgetError } from '../cngn/errors.js';
import type { TransactionPage } from '../cngn/schemas.js';
import type { Store } from '../store/index.js';
import { type Logger, silentLogger } from './deliverer.js';
import { eventForTransaction, eventFromTransaction } from './keys.js';
import type { WebhookPipeline } from './pipeline.js';

/** The client's transaction list (CngnApi fits); asked at background priority. */
export interface TransactionSource {
  getTransactions(options: { page?: number; limit?: number; priority?: Priority }): Promise<TransactionPage>;
}

export interface ReconcilerOptions {
  source: TransactionSource;
  pipeline: WebhookPipeline;
  store: Store;
  log?: Logger;
  /** Between runs (default 3 min: 20 per 60 s is the budget; this uses one request per run). */
  intervalMs?: number;
  /** A final state younger than this is left for its webhook (default 60 s). */
  graceMs?: number;
  /** Transactions read per run (default 50, newest first). */
  limit?: number;
  now?: () => number;
}

export interface ReconcileResult {
  queued: number;
  skipped?: 'rate-budget' | 'error';
}

const SINCE = 'webhooks:reconciler:since';
const BASELINE = 'webhooks:reconciler:baseline';

export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ReconcileResult> | undefined;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(private readonly options: ReconcilerOptions) {
    this.log = options.log ?? silentLogger;
    this.now = options.now ?? Date.now;
  }

  /** Record the high-water mark (first start only) and run periodically. */
  async start(): Promise<void> {
    await this.since();
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs ?? 180_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass; overlapping calls share the pass in flight. */
  runOnce(): Promise<ReconcileResult> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async since(): Promise<number> {
    await this.options.store.setIfAbsent(SINCE, this.now());
    return (await this.options.store.get<number>(SINCE)) ?? this.now();
  }

  private async pass(): Promise<ReconcileResult> {
    const since = await this.since();
    let page: TransactionPage;
    try {
      page = await this.options.source.getTransactions({
        page: 1,
        limit: this.options.limit ?? 50,
        priority: 'background',
      });
    } catch (error) {
      if (error instanceof RateBudgetError) return { queued: 0, skipped: 'rate-budget' };
      this.log.warn(`reconciliation skipped: ${error instanceof Error ? error.message : String(error)}`);
      return { queued: 0, skipped: 'error' };
    }
    const firstRun = await this.options.store.setIfAbsent(BASELINE, this.now());
    const latest = this.now() - (this.options.graceMs ?? 60_000);
    let queued = 0;
    // Oldest first, so one reference's states queue in the order they happened.
    for (const tx of [...page.data].reverse()) {
      const expected = eventForTransaction(tx);
      if (!expected) continue;
      const event = eventFromTransaction(tx, expected.name);
      const at = Date.parse(tx.updatedAt ?? tx.createdAt ?? '');
      if (Number.isNaN(at)) {
        if (firstRun) {
          await this.options.pipeline.markSeen(event, expected.finalClass);
          continue;
        }
      } else if (at < since || at > latest) {
        continue;
      }
      if (await this.options.pipeline.acceptReconciled(event, expected.finalClass)) {
        queued += 1;
        this.log.info(`reconciliation: ${expected.name} for ${tx.trx_ref} had no webhook; posting it`);
      }
    }
    return { queued };
  }
}
