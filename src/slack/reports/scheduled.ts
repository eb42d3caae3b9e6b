// The scheduled treasury report (CNGN_REPORT_SCHEDULE) posted to the report channel, once per period
// across replicas and restarts. A replica takes a run with a lease on its record in the store
// (run-lease.ts), renews it while it builds and posts, and records each part right after Slack accepts
// it; a replica that dies leaves the lease to expire, and whoever looks next posts the rest. A failed
// attempt is tried again a few times before the channel is told the report did not come. A run posted
// more than LATE_AFTER_MS after its time says why it is late. Looks again at each due time, soon after
// a lease held by someone else runs out, and at least hourly.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { readDeadline } from '../../reports/build.js';
import { type RunLease, type RunRecord, takeRun } from '../../reports/run-lease.js';
import {
  dueTime,
  latestRun,
  nextDue,
  type ReportSchedule,
  type ScheduledRun,
} from '../../reports/schedule.js';
import type { Report, ReportSource } from '../../reports/types.js';
import type { Store } from '../../store/index.js';
import { errorMessage } from '../reads/blocks.js';
import { chartOf, failureSentence, postReportPart, REPORT_PARTS } from './delivery.js';

/** The longest the timer sleeps before looking again (a wall clock may be set while it sleeps). */
const RECHECK_MS = 3_600_000;
/** A run posted this long after its time says it is late. */
export const LATE_AFTER_MS = 15 * 60_000;
/** How long after a lease (or a retry's wait) runs out the timer looks again. */
const LOOK_AFTER_MS = 1_000;

export interface RunTiming {
  /** How long a lease lasts unless renewed; the holder renews it every fifth of that. */
  leaseMs: number;
  /** How long after a failed attempt the next is made. */
  retryAfterMs: number;
  /** Attempts at a run before it is closed as failed. */
  maxAttempts: number;
  /**
   * How long one attempt's build (the service's history, the figures) may take; its reads of the
   * service end sooner (readDeadline), so a busy budget gives a report said to be cut short.
   */
  buildLimitMs: number;
  /** How long stop() lets a run under way finish (a Slack call in flight) before leaving it. */
  stopGraceMs: number;
}

const TIMING: RunTiming = {
  leaseMs: 5 * 60_000,
  retryAfterMs: 5 * 60_000,
  maxAttempts: 3,
  buildLimitMs: 10 * 60_000,
  stopGraceMs: 10_000,
};

export interface ScheduledReportsOptions {
  schedule: ReportSchedule;
  channel: string;
  store: Store;
  client: WebClient;
  source: ReportSource;
  now: () => Date;
  logger: Logger;
  /** Shorter times (tests). */
  timing?: Partial<RunTiming>;
  /** This replica's name in the run record (default: host, process and a random part). */
  owner?: string;
}

/** What one look at the schedule did. */
export type RunOutcome =
  /** This look posted the run (or what was left of it), on time or saying it is late. */
  | 'posted'
  | 'posted-late'
  /** Another replica holds the run's lease (it is posting it, or waiting to try again). */
  | 'already-claimed'
  /** The run was posted, or closed as failed, before this look. */
  | 'already-done'
  /** This attempt failed; the run is tried again after retryAfterMs, by whichever replica looks. */
  | 'retrying'
  /** The last attempt failed: the channel was told the report did not come, and the run is closed. */
  | 'failed'
  /** This replica was stopped midway; another takes the run over once the lease runs out. */
  | 'stopped';

/** Thrown into a run under way when stop() stops waiting for it. */
class RunLeft extends Error {}

export class ScheduledReports {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private lookAgainAt: number | undefined;
  private readonly timing: RunTiming;
  private readonly owner: string;
  private leave!: () => void;
  private readonly left = new Promise<never>((_, reject) => {
    this.leave = () => reject(new RunLeft('stopped'));
  });

  constructor(private readonly options: ScheduledReportsOptions) {
    this.timing = { ...TIMING, ...options.timing };
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.left.catch(() => undefined);
  }

  /** Posts a run missed while the bot was down (or finishes one left unfinished), then waits. */
  async start(): Promise<void> {
    await this.runOnce(true);
    this.arm();
  }

  /**
   * The latest run due by now, posted (or what is left of it) when this call can take it; `atStart`
   * says a late run was missed because the bot was not running.
   */
  check(atStart = false): Promise<RunOutcome> {
    const run = this.running.then(() => this.takeAndPost(atStart));
    this.running = run.catch(() => undefined);
    return run;
  }

  /** Stops the timer; a run under way gets stopGraceMs to finish, then is left to another replica. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const grace = setTimeout(this.leave, this.timing.stopGraceMs);
    await this.running;
    clearTimeout(grace);
  }

  private async runOnce(atStart: boolean): Promise<void> {
    await this.check(atStart).catch((error: unknown) => {
      this.options.logger.error('the scheduled report could not be looked at', { error });
      this.lookAgainAt = this.options.now().getTime() + this.timing.retryAfterMs;
    });
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.options.now().getTime();
    const next = nextDue(this.options.schedule, this.options.now()).getTime();
    const at = Math.min(now + RECHECK_MS, next, this.lookAgainAt ?? Number.POSITIVE_INFINITY);
    this.timer = setTimeout(
      () => {
        void this.runOnce(false).then(() => this.arm());
      },
      Math.max(0, at - now),
    );
    this.timer.unref();
  }

  private async takeAndPost(atStart: boolean): Promise<RunOutcome> {
    this.lookAgainAt = undefined;
    const { schedule, store, logger } = this.options;
    const now = this.options.now();
    const run = latestRun(schedule, now);
    const look = await takeRun(store, run.key, run.due, {
      owner: this.owner,
      leaseMs: this.timing.leaseMs,
      maxAttempts: this.timing.maxAttempts,
      now: this.options.now,
    });
    if (look.kind === 'done') return 'already-done';
    if (look.kind === 'leased') {
      this.lookAgainAt = look.until + LOOK_AFTER_MS;
      return 'already-claimed';
    }
    if (look.kind === 'exhausted') {
      logger.error('the scheduled report was started too often without finishing', { run: run.key });
      const label = escapeMrkdwn(run.period.label);
      const times = look.record.attempts === 1 ? 'once' : `${look.record.attempts} times`;
      await this.tell(`Your report for ${label} did not come: it was started ${times} and never finished.`);
      return 'failed';
    }
    const { lease, previous } = look;
    logger.info('posting the scheduled report', { run: run.key, attempt: lease.record.attempts });
    lease.renewEvery(this.timing.leaseMs / 5, (error) => {
      logger.warn('the scheduled report could not keep its lease', { run: run.key, error });
    });
    try {
      return await this.post(run, lease, (madeAt) => this.lateNote(run, madeAt, previous, atStart));
    } catch (error) {
      if (error instanceof RunLeft) {
        logger.warn('the scheduled report was left unfinished at stop', { run: run.key });
        return 'stopped';
      }
      if (lease.lost) return 'already-claimed';
      return await this.attemptFailed(run, lease, error);
    } finally {
      lease.stopRenewing();
    }
  }

  /**
   * Build the report and post the parts not yet posted, each recorded once Slack accepted it, with the
   * lease renewed before; whether it is late is judged once the report is made.
   */
  private async post(
    run: ScheduledRun,
    lease: RunLease,
    lateNoteAt: (madeAt: Date) => string | undefined,
  ): Promise<RunOutcome> {
    const { client, channel, source } = this.options;
    const left = REPORT_PARTS.filter((part) => !lease.record.parts.includes(part));
    // Its holder stopped after the last part but before closing it.
    if (left.length === 0) return (await lease.close('posted')) ? 'already-done' : this.overtaken(run);
    // The reads end in time for the figures to be made within the cut, marked when the budget cut them.
    const deadline = readDeadline(this.options.now().getTime(), this.timing.buildLimitMs);
    const build = source.build(run.period, { deadline });
    const report = await this.unlessLeft(limited(build, this.timing.buildLimitMs));
    const chart = left.includes('chart') ? await this.unlessLeft(chartOf(report, source)) : undefined;
    const madeAt = this.options.now();
    const lateNote = lateNoteAt(madeAt);
    for (const part of left) {
      if (!(await lease.renew())) return this.overtaken(run);
      // The late note goes in the summary, or with the CSV when the summary was posted before.
      const note = part === 'summary' || (part === 'csv' && !left.includes('summary')) ? lateNote : undefined;
      await this.unlessLeft(postReportPart(client, channel, report, part, { lateNote: note, madeAt, chart }));
      if (!(await lease.posted(part))) return this.overtaken(run);
    }
    if (!(await lease.close('posted'))) return this.overtaken(run);
    return lateNote ? 'posted-late' : 'posted';
  }

  private async attemptFailed(run: ScheduledRun, lease: RunLease, error: unknown): Promise<RunOutcome> {
    const { logger } = this.options;
    const { attempts } = lease.record;
    if (attempts < this.timing.maxAttempts) {
      logger.warn('the scheduled report failed; it is tried again', { run: run.key, attempts, error });
      const retryAt = this.options.now().getTime() + this.timing.retryAfterMs;
      if (!(await lease.failed(retryAt))) return this.overtaken(run);
      this.lookAgainAt = retryAt + LOOK_AFTER_MS;
      return 'retrying';
    }
    logger.error('the scheduled report was not posted', { run: run.key, attempts, error });
    // Closed before the channel is told: a crash in between leaves it untold rather than told twice.
    if (!(await lease.close('failed', true))) return this.overtaken(run);
    await this.tell(failureSentence(error, run.period.label, logger));
    return 'failed';
  }

  private overtaken(run: ScheduledRun): RunOutcome {
    this.options.logger.warn('another replica took the scheduled report over', { run: run.key });
    return 'already-claimed';
  }

  /** `(posted late: …)` when posted more than LATE_AFTER_MS after its time, with why. */
  private lateNote(run: ScheduledRun, now: Date, previous: RunRecord | undefined, atStart: boolean) {
    if (now.getTime() - run.due.getTime() <= LATE_AFTER_MS) return undefined;
    const at = dueTime(this.options.schedule);
    const reason = !previous
      ? atStart
        ? `the bot was not running at ${at}`
        : `the bot was held up at ${at}`
      : previous.attempts > previous.failures
        ? 'the bot posting it stopped before it was done'
        : 'the first attempts to make it failed';
    return `(posted late: ${reason})`;
  }

  private async tell(text: string): Promise<void> {
    const { client, channel, logger } = this.options;
    await client.chat.postMessage({ channel, ...errorMessage(text) }).catch((error: unknown) => {
      logger.warn('the report channel could not be told', { error });
    });
  }

  private unlessLeft<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.left]);
  }
}

/** `work`, or an error once `ms` have passed without it. */
function limited(work: Promise<Report>, ms: number): Promise<Report> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the report took longer than ${ms} ms to make`)), ms);
    timer.unref();
  });
  return Promise.race([work, limit]).finally(() => clearTimeout(timer));
}
