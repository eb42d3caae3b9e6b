// The scheduled treasury report (CNGN_REPORT_SCHEDULE) posted to the report channel. Each run is
// claimed in the store under its period's name before anything is posted, so across replicas and
// restarts a period is posted once. A run found unclaimed at start-up was missed while the bot was
// down: it is posted then, once, and says so. Looks again at each due time, and at least hourly.
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../log.js';
import { dueTime, latestRun, nextDue, type ReportSchedule } from '../../reports/schedule.js';
import type { ReportSource } from '../../reports/types.js';
import type { Store } from '../../store/index.js';
import { errorMessage } from '../reads/blocks.js';
import { chartOf, deliverReport, failureSentence } from './delivery.js';

/** The longest the timer sleeps before looking again (a wall clock may be set while it sleeps). */
const RECHECK_MS = 3_600_000;
/** A run the timer reaches this long after its time (a stalled process) is said to be late too. */
const LATE_AFTER_MS = 15 * 60_000;
/** Claims are kept well past the longest period (a week), then expire. */
const CLAIM_TTL_MS = 60 * 86_400_000;

export interface ScheduledReportsOptions {
  schedule: ReportSchedule;
  channel: string;
  store: Store;
  client: WebClient;
  source: ReportSource;
  now: () => Date;
  logger: Logger;
}

/** What one look at the schedule did. */
export type RunOutcome = 'posted' | 'posted-late' | 'already-claimed' | 'failed';

export class ScheduledReports {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ScheduledReportsOptions) {}

  /** Posts a run missed while the bot was down, then waits for the next one. */
  async start(): Promise<void> {
    await this.runOnce(true);
    this.arm();
  }

  /**
   * The latest run due by now, posted when this call claims it; `atStart` marks a run found unclaimed
   * at start-up as posted late.
   */
  check(atStart = false): Promise<RunOutcome> {
    const run = this.running.then(() => this.claimAndPost(atStart));
    this.running = run.catch(() => undefined);
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async runOnce(atStart: boolean): Promise<void> {
    await this.check(atStart).catch((error: unknown) => {
      this.options.logger.error('the scheduled report could not be looked at', { error });
    });
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.options.now();
    const wait = Math.min(RECHECK_MS, nextDue(this.options.schedule, now).getTime() - now.getTime());
    this.timer = setTimeout(
      () => {
        void this.runOnce(false).then(() => this.arm());
      },
      Math.max(0, wait),
    );
    this.timer.unref();
  }

  private async claimAndPost(atStart: boolean): Promise<RunOutcome> {
    const { schedule, store, client, channel, source, logger } = this.options;
    const now = this.options.now();
    const run = latestRun(schedule, now);
    const claimed = await store.setIfAbsent(
      run.key,
      { claimedAt: now.toISOString(), due: run.due.toISOString() },
      CLAIM_TTL_MS,
    );
    if (!claimed) return 'already-claimed';
    const late =
      now.getTime() > run.due.getTime() && (atStart || now.getTime() - run.due.getTime() > LATE_AFTER_MS);
    const lateNote = late ? `(posted late: the bot was not running at ${dueTime(schedule)})` : undefined;
    logger.info('posting the scheduled report', { run: run.key, late });
    try {
      const report = await source.build(run.period);
      const chart = await chartOf(report, source);
      await deliverReport(client, channel, report, chart, { lateNote, madeAt: now });
    } catch (error) {
      // The claim stays: a run half posted is not posted again; the channel is told it did not come.
      logger.error('the scheduled report was not posted', { run: run.key, error });
      const text = failureSentence(error, run.period.label, logger);
      await client.chat.postMessage({ channel, ...errorMessage(text) }).catch(() => undefined);
      return 'failed';
    }
    return late ? 'posted-late' : 'posted';
  }
}
