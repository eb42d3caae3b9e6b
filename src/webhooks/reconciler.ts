// Deliveries are sent once, so a missed one is lost. The reconciler reads the transaction list at
// background priority (inside the shared rate budget, never the reserve) and queues a message for each
// final state no webhook announced, deduplicated against webhooks and earlier runs through the store.
// It considers only what changed after the bot's first start (no flood of history) and within the
// dedupe records' lifetime (never posted twice); a walk cut short resumes next run; its mark and walk
// belong to one environment and key. Details: docs/webhooks-and-alerts.md#the-reconciler.

import type { CngnEnvironment, Priority } from '../cngn/api.js';
import { CngnErrorCode, cngnCallError } from '../cngn/errors.js';
import type { Transaction, TransactionPage } from '../cngn/schemas.js';
import { outsideTime } from '../format/outside-time.js';
import { type Logger, silentLogger } from '../log.js';
import type { Store } from '../store/index.js';
import { eventForTransaction, eventFromTransaction } from './keys.js';
import { DEFAULT_RETENTION_MS, freshnessLimitMs } from './outbox.js';
import type { WebhookPipeline } from './pipeline.js';

/** The client's transaction list (CngnApi fits); asked at background priority. */
export interface TransactionSource {
  getTransactions(options: { page?: number; limit?: number; priority?: Priority }): Promise<TransactionPage>;
}

export interface ReconcilerOptions {
  source: TransactionSource;
  pipeline: WebhookPipeline;
  store: Store;
  /** The environment the source reads from; with keyId, the scope of this reconciler's bookkeeping. */
  environment: CngnEnvironment;
  /** Non-reversible id of the API key (see keyId in cngn/credentials). */
  keyId?: string | undefined;
  log?: Logger;
  /** Between runs (default 3 min: 20 per 60 s is the budget; a run usually needs one request). */
  intervalMs?: number;
  /** A final state younger than this is left for its webhook (default 60 s). */
  graceMs?: number;
  /** Transactions read per page (default 50, newest first). */
  limit?: number;
  /** Pages read per run at most (default 5); the rest of a walk waits for the next run. */
  maxPagesPerRun?: number;
  /** How far before the previous walk's start a walk still reads (default 6 h). */
  overlapMs?: number;
  /** How long webhook dedupe records live (the outbox retention). */
  retentionMs?: number;
  now?: () => number;
}

export interface ReconcileResult {
  queued: number;
  skipped?: 'rate-budget' | 'error';
}

/** A walk back through the list: when it started and the page to read next. */
interface Walk {
  startedAt: number;
  nextPage: number;
}

/** Bookkeeping kept in the store, one set per environment and API key. */
type Bookkeeping = 'since' | 'baseline' | 'walk' | 'swept';

export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ReconcileResult> | undefined;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly limit: number;
  private keyId: string | undefined;
  /** When this process last finished a pass that read what it meant to (ms since the epoch). */
  lastSuccessAt: number | undefined;

  constructor(private readonly options: ReconcilerOptions) {
    this.log = options.log ?? silentLogger;
    this.now = options.now ?? (() => Date.now());
    this.limit = options.limit ?? 50;
    this.keyId = options.keyId;
  }

  /** Keep the bookkeeping of this API key (start-up wiring, before start()). */
  useServiceKey(keyId: string): void {
    if (this.timer || this.running) throw new Error('the reconciler is running: set its key before start()');
    this.keyId = keyId;
  }

  private key(name: Bookkeeping): string {
    return `webhooks:reconciler:${this.options.environment}:${this.keyId ?? 'no-key'}:${name}`;
  }

  /** Record the high-water mark (first start only) and run periodically. */
  async start(): Promise<void> {
    await this.since();
    if (this.timer) return;
    const intervalMs = this.options.intervalMs ?? 180_000;
    // A pass the store or the service cannot serve is told once, and the next interval tries again.
    this.timer = setInterval(
      () =>
        void this.runOnce().catch((error: unknown) =>
          this.log.warn('webhook reconciliation pass failed; the next one tries again', {
            error,
            intervalMs,
          }),
        ),
      intervalMs,
    );
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
    await this.options.store.setIfAbsent(this.key('since'), this.now());
    return (await this.options.store.get<number>(this.key('since'))) ?? this.now();
  }

  private async pass(): Promise<ReconcileResult> {
    const { store } = this.options;
    const since = await this.since();
    const now = this.now();
    const retentionMs = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    // Older than this, the record that a state was posted may be gone: never look at it again.
    const floor = Math.max(since, now - freshnessLimitMs(retentionMs));
    const firstWalk = (await store.get<number>(this.key('baseline'))) === undefined;
    const walked = await this.walkPages(now, since, floor);
    const latest = now - (this.options.graceMs ?? 60_000);
    let queued = 0;
    // Oldest first, so one reference's states queue in the order they happened.
    for (const tx of walked.read.reverse()) {
      if (await this.reconcile(tx, { floor, latest, firstWalk })) queued += 1;
    }
    // Progress is recorded after what was read is queued: a crash re-reads, and dedupe absorbs it.
    if (walked.completed && walked.swept !== undefined) {
      await store.set(this.key('swept'), walked.swept);
      await store.setIfAbsent(this.key('baseline'), now);
    }
    if (walked.walk) await store.set(this.key('walk'), walked.walk);
    else await store.delete(this.key('walk'));
    const { skipped } = walked;
    if (!skipped) this.lastSuccessAt = this.now();
    return skipped ? { queued, skipped } : { queued };
  }

  /**
   * Read the transaction list a few pages on from where the last run stopped (or from the top, once
   * per run, when no walk is under way), until the walk reaches what was swept before.
   */
  private async walkPages(now: number, since: number, floor: number): Promise<Walked> {
    const { store } = this.options;
    const overlapMs = this.options.overlapMs ?? 6 * 3_600_000;
    const walked: Walked = {
      swept: await store.get<number>(this.key('swept')),
      walk: await store.get<Walk>(this.key('walk')),
      completed: false,
      read: [],
    };
    let startedHere = false;
    for (let pages = 0; pages < (this.options.maxPagesPerRun ?? 5); pages++) {
      if (!walked.walk) {
        if (startedHere) break; // one fresh walk per run is enough
        walked.walk = { startedAt: now, nextPage: 1 };
        startedHere = true;
      }
      const page = await this.readPage(walked.walk.nextPage);
      if (typeof page === 'string') {
        walked.skipped = page;
        break;
      }
      walked.read.push(...page.data);
      const boundary = Math.max(floor, (walked.swept ?? since) - overlapMs);
      if (this.reachedEnd(page, boundary)) {
        walked.swept = walked.walk.startedAt;
        walked.completed = true;
        walked.walk = undefined;
      } else {
        walked.walk = { ...walked.walk, nextPage: walked.walk.nextPage + 1 };
      }
    }
    return walked;
  }

  /** One page of the list, or why the walk pauses here (the shared budget, or an error). */
  private async readPage(nextPage: number): Promise<TransactionPage | 'rate-budget' | 'error'> {
    try {
      return await this.options.source.getTransactions({
        page: nextPage,
        limit: this.limit,
        priority: 'background',
      });
    } catch (error) {
      if (cngnCallError(error)?.code === CngnErrorCode.RateBudget) return 'rate-budget';
      this.log.warn(`reconciliation paused at page ${nextPage}: ${describe(error)}`);
      return 'error';
    }
  }

  /** True when this transaction was queued. */
  private async reconcile(
    tx: Transaction,
    window: { floor: number; latest: number; firstWalk: boolean },
  ): Promise<boolean> {
    const { pipeline } = this.options;
    const expected = eventForTransaction(tx);
    if (!expected) return false;
    const event = eventFromTransaction(tx, expected.name);
    const at = outsideTime(tx.updatedAt ?? tx.createdAt);
    if (Number.isNaN(at)) {
      // Its age is unknown: while it keeps showing up, keep the record that it was seen alive.
      if (window.firstWalk) {
        await pipeline.markSeen(event, expected.finalClass);
        return false;
      }
      await pipeline.keepSeen(event, expected.finalClass);
    } else if (at < window.floor || at > window.latest) {
      return false;
    }
    if (!(await pipeline.acceptReconciled(event, expected.finalClass))) return false;
    this.log.info(`reconciliation: ${expected.name} for ${tx.trx_ref} had no webhook; posting it`);
    return true;
  }

  /** The walk is done: last page, or this page goes back past the boundary (by creation time). */
  private reachedEnd(page: TransactionPage, boundary: number): boolean {
    if (page.data.length === 0 || page.pagination?.isLastPage) return true;
    if (!page.pagination && page.data.length < this.limit) return true;
    const created = page.data
      .map((tx) => outsideTime(tx.createdAt ?? tx.updatedAt))
      .filter((t) => !Number.isNaN(t));
    return created.length > 0 && Math.min(...created) < boundary;
  }
}

/** Where a run's walk of the list got to, and what it read. */
interface Walked {
  walk: Walk | undefined;
  /** The start of the last walk that reached the end. */
  swept: number | undefined;
  /** This run's walk reached the end. */
  completed: boolean;
  skipped?: ReconcileResult['skipped'];
  read: Transaction[];
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
