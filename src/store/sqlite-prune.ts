// Deleting expired values from the SQLite file. The store reads keyv's layout directly and only answers
// "none" for an expired value, so without this nothing would delete one and values kept with a
// retention TTL would grow the file without bound. Only this namespace's rows with a passed `expires`
// go, in windows of `batch` keys, each one DELETE through the group commit so it never holds the write
// lock for long; that DELETE decides expiry on the row as it is then, so a key rewritten meanwhile
// stays (docs/decisions/sqlite-prunes-expired-values.md). Runs at open, every hour, and on `run`.
import type { Logger } from '../log.js';
import type { Query } from './group-commit.js';

export interface PruneOptions {
  /** Keys looked at by one DELETE. */
  batch?: number;
  /** Between two passes; 0 runs none by itself (neither at open nor later), only when asked. */
  everyMs?: number;
  /** The clock that decides what has expired (tests); Date.now otherwise. */
  now?: () => number;
}

const PRUNE_DEFAULTS = { batch: 500, everyMs: 60 * 60_000 } as const;

/** Where a pass that fails by itself says so. */
export type PruneLog = Pick<Logger, 'warn'>;

export class ExpiryPruner {
  private readonly batch: number;
  private readonly everyMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  /** The pass under way, which a second caller joins. */
  private pass: Promise<void> | undefined;
  private stopped = false;

  /**
   * `query` is the group commit's: its SELECTs go to the reading connection, its DELETEs into the
   * next batch. `range` is the namespace's keys (`key >= from AND key < to`; no `to`: every key).
   */
  constructor(
    private readonly query: Query,
    private readonly table: string,
    private readonly range: { from: string; to?: string },
    options: PruneOptions = {},
    private readonly log?: PruneLog,
  ) {
    this.batch = options.batch ?? PRUNE_DEFAULTS.batch;
    this.everyMs = options.everyMs ?? PRUNE_DEFAULTS.everyMs;
    this.now = options.now ?? Date.now;
    if (!Number.isInteger(this.batch) || this.batch < 1)
      throw new Error('the prune batch must be at least 1');
  }

  /** A first pass now, in the background, then one every `everyMs` after each has finished. */
  start(): void {
    if (this.everyMs > 0) this.schedule(0);
  }

  /** One pass over the namespace; joins the pass under way, if any. Rejects when a DELETE fails. */
  run(): Promise<void> {
    this.pass ??= this.prune().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  /** No more passes; the one under way ends after its current batch, and this waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.run()
        .catch((error: unknown) => {
          if (this.stopped) return; // the store was closed under it
          this.log?.warn('could not delete expired values from the SQLite store; trying again later', {
            error: error instanceof Error ? error.message : String(error),
          });
        })
        .finally(() => this.schedule(this.everyMs));
    }, delayMs);
    this.timer.unref();
  }

  private async prune(): Promise<void> {
    const { table, batch } = this;
    const { to: end } = this.range;
    let from = this.range.from;
    while (!this.stopped) {
      // The first key after this window (`batch` keys on from `from`), or none: the window runs to the end.
      const [next] = (await this.query(
        `SELECT key FROM ${table} WHERE key >= ?${end === undefined ? '' : ' AND key < ?'} ORDER BY key LIMIT 1 OFFSET ?`,
        ...(end === undefined ? [from, batch] : [from, end, batch]),
      )) as Array<{ key: string }>;
      const to = next?.key ?? end;
      await this.query(
        `DELETE FROM ${table} WHERE key >= ?1${to === undefined ? '' : ' AND key < ?3'}
           AND CASE WHEN json_valid(value)
                    THEN json_type(value, '$.expires') IN ('integer', 'real')
                         AND json_extract(value, '$.expires') < ?2
                    ELSE 0 END`,
        ...(to === undefined ? [from, this.now()] : [from, this.now(), to]),
      );
      if (next === undefined) return;
      from = next.key;
    }
  }
}
