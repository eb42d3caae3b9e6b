// The scheduled treasury report (CNGN_REPORT_SCHEDULE) posted to the report channel, once per period
// across replicas and restarts. A replica takes a run with a lease on its record in the store
// (run-lease.ts), renews it while it builds and posts, and records each part right after Slack accepts
// it; a replica that dies leaves the lease to expire, and whoever looks next posts the rest. A failed
// attempt is tried again a few times before the channel is told the report did not come. A run posted
// more than LATE_AFTER_MS after its time says why it is late; a run due before the schedule was set
// (recorded in the store at the first start with it) is not posted at all. An earlier period's run left
// unfinished is closed and the channel told once. Looks again at each due time, soon after a lease held
// by someone else runs out, and at least hourly.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebClient } from '@slack/web-api';
import { untilAborted } from '../../cngn/abort.js';
import type { CngnEnvironment } from '../../format/environment.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { readDeadline } from '../../reports/build.js';
import {
  closeAbandoned,
  type RunLease,
  type RunRecord,
  takeOverFormer,
  takeRun,
} from '../../reports/run-lease.js';
import {
  dueTime,
  latestRun,
  nextDue,
  previousRun,
  type ReportSchedule,
  type ScheduledRun,
  scheduleText,
} from '../../reports/schedule.js';
import type { ReportSource } from '../../reports/types.js';
import type { Store } from '../../store/index.js';
import { SlackErrorCode } from '../runtime/error-codes.js';
import { errorMessage } from '../ui/messages.js';
import { chartOf, failureSentence, postReportPart, REPORT_PARTS, type ReportPart } from './delivery.js';

/** The longest the timer sleeps before looking again (a wall clock may be set while it sleeps). */
const RECHECK_MS = 3_600_000;
/** A run posted this long after its time says it is late. */
const LATE_AFTER_MS = 15 * 60_000;
/** The schedule in force and since when (ISO): a run due before it is not posted. */
const SCHEDULE_KEY = 'report-schedule';
interface ScheduleMark {
  schedule: string;
  since: string;
}

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
  /**
   * The build's cut: a signal fired after `ms` (buildLimitMs), with the reason the channel is told; a
   * test fires its own.
   */
  buildCut: (ms: number) => AbortSignal;
  /** How long stop() lets a run under way finish (a Slack call in flight) before leaving it. */
  stopGraceMs: number;
  /** How long after a lease (or a retry's wait) runs out the timer looks again. */
  lookAfterMs: number;
  /** Calls `fire` after `ms`; what it returns cancels that (a test fires it on its own clock). */
  timer: (fire: () => void, ms: number) => () => void;
}

const TIMING: RunTiming = {
  leaseMs: 5 * 60_000,
  retryAfterMs: 5 * 60_000,
  maxAttempts: 3,
  buildLimitMs: 10 * 60_000,
  stopGraceMs: 10_000,
  lookAfterMs: 1_000,
  buildCut: (ms) => {
    const cut = new AbortController();
    setTimeout(() => cut.abort(new Error(`the report took longer than ${ms} ms to make`)), ms).unref();
    return cut.signal;
  },
  timer: (fire, ms) => {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface ScheduledReportsOptions {
  schedule: ReportSchedule;
  channel: string;
  /** The service environment whose report this is: each posts its own runs. */
  environment: CngnEnvironment;
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
  /** The run was due before the schedule was set (more than LATE_AFTER_MS before): not posted. */
  | 'before-schedule'
  /** This attempt failed; the run is tried again after retryAfterMs, by whichever replica looks. */
  | 'retrying'
  /** The last attempt failed: the channel was told the report did not come, and the run is closed. */
  | 'failed'
  /**
   * This replica was stopping: a run it had just taken was given back, one under way was left to
   * another once the lease runs out.
   */
  | 'stopped';

/** Thrown into a run under way when stop() stops waiting for it. */
class RunLeft extends Error {
  readonly code = SlackErrorCode.ReportRunLeft;
}

export class ScheduledReports {
  private cancelTimer: (() => void) | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Set once stop() stopped waiting: from then on nothing is posted. */
  private gone = false;
  /** The lease of the run under way. */
  private lease: RunLease | undefined;
  private lookAgainAt: number | undefined;
  /** When a look first failed (the store could not be reached), until one succeeds. */
  private failingSince: number | undefined;
  /** Epoch ms the schedule was set (read from the store once). */
  private scheduledSince: number | undefined;
  private readonly timing: RunTiming;
  private readonly owner: string;
  private leave!: () => void;
  private readonly left = new Promise<never>((_, reject) => {
    this.leave = () => {
      this.gone = true;
      this.lease?.stopRenewing();
      reject(new RunLeft('stopped'));
    };
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
   * says it is the first look since this replica started.
   */
  check(atStart = false): Promise<RunOutcome> {
    const run = this.running.then(() => this.look(atStart));
    this.running = run.catch(() => undefined);
    return run;
  }

  /**
   * Stops the timer; a look under way gets stopGraceMs to finish, then is left (a run it holds is taken
   * over once its lease runs out) and nothing more is posted.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    const grace = setTimeout(this.leave, this.timing.stopGraceMs);
    await this.running;
    clearTimeout(grace);
  }

  private async runOnce(atStart: boolean): Promise<void> {
    await this.check(atStart).catch((error: unknown) => {
      this.options.logger.error('the scheduled report could not be looked at', { error });
      const now = this.options.now().getTime();
      this.failingSince ??= now;
      this.lookAgainAt = now + this.timing.retryAfterMs;
    });
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.options.now().getTime();
    const next = nextDue(this.options.schedule, this.options.now()).getTime();
    const at = Math.min(now + RECHECK_MS, next, this.lookAgainAt ?? Number.POSITIVE_INFINITY);
    this.cancelTimer = this.timing.timer(
      () => {
        void this.runOnce(false).then(() => this.arm());
      },
      Math.max(0, at - now),
    );
  }

  /** One look, given up (and whatever it still does kept from Slack) once stop() stops waiting. */
  private async look(atStart: boolean): Promise<RunOutcome> {
    if (this.stopped) return 'stopped';
    try {
      const outcome = await this.unlessLeft(this.takeAndPost(atStart));
      this.failingSince = undefined;
      return outcome;
    } catch (error) {
      if (!(error instanceof RunLeft)) throw error;
      this.options.logger.warn('the scheduled report was left unfinished at stop');
      return 'stopped';
    }
  }

  private async takeAndPost(atStart: boolean): Promise<RunOutcome> {
    this.lookAgainAt = undefined;
    const { schedule, store, logger } = this.options;
    const now = this.options.now();
    const run = latestRun(schedule, now, this.options.environment);
    const since = await this.since(run);
    if (run.due.getTime() < since - LATE_AFTER_MS) return 'before-schedule';
    await this.closeEarlier(run, since);
    // An older replica posting it under its former name: left to it, looked at again once its lease ends.
    const former = await takeOverFormer(store, run, this.options.environment, now.getTime());
    if (!former.taken) {
      this.lookAgainAt = former.until + this.timing.lookAfterMs;
      return 'already-claimed';
    }
    const look = await takeRun(store, run.key, run.due, {
      owner: this.owner,
      parts: REPORT_PARTS,
      leaseMs: this.timing.leaseMs,
      maxAttempts: this.timing.maxAttempts,
      now: this.options.now,
    });
    if (look.kind === 'done') return 'already-done';
    if (look.kind === 'leased') {
      this.lookAgainAt = look.until + this.timing.lookAfterMs;
      return 'already-claimed';
    }
    if (look.kind === 'exhausted') {
      logger.error('the scheduled report was started too often without finishing', { run: run.key });
      const times = look.record.attempts === 1 ? 'once' : `${look.record.attempts} times`;
      await this.tell(unfinished(run, look.record, `it was started ${times} and never finished`));
      return 'failed';
    }
    const { lease, previous } = look;
    // Stopped while taking it: given back at once rather than held, unworked, until the lease runs out.
    if (this.stopped) {
      await lease.release();
      return 'stopped';
    }
    logger.info('posting the scheduled report', { run: run.key, attempt: lease.record.attempts });
    this.lease = lease;
    lease.renewEvery(this.timing.leaseMs / 5, (error) => {
      logger.warn('the scheduled report could not keep its lease', { run: run.key, error });
    });
    try {
      return await this.post(run, lease, (madeAt) => this.lateNote(run, madeAt, previous, atStart));
    } catch (error) {
      // Stopped: not a failed attempt (a build cut off by the client closing at stop, or the check before
      // a Slack call). No Slack call is in flight, so the run is given back for another to take at once;
      // the attempt stands (parts may have been posted in it).
      if (error instanceof RunLeft || this.gone) {
        await lease.giveBack().catch(() => false);
        return 'stopped';
      }
      if (lease.lost) return this.overtaken(run);
      return await this.attemptFailed(run, lease, error);
    } finally {
      lease.stopRenewing();
      this.lease = undefined;
    }
  }

  /**
   * When the schedule in force was set: now, at the first look with it (recorded for every replica).
   * With no record of any schedule but runs of this one already in the store (a bot that ran it before
   * the record was kept), it counts from before the run before `run`, so a run it missed is still posted.
   */
  private async since(run: ScheduledRun): Promise<number> {
    if (this.scheduledSince !== undefined) return this.scheduledSince;
    const { store } = this.options;
    const schedule = scheduleText(this.options.schedule);
    let mark = await store.get<ScheduleMark>(SCHEDULE_KEY);
    if (mark?.schedule !== schedule) {
      const earlier = previousRun(this.options.schedule, run, this.options.environment);
      const ranBefore = mark === undefined && (await this.recorded(run, earlier));
      const from = ranBefore ? new Date(earlier.due.getTime() - LATE_AFTER_MS) : this.options.now();
      const set = { schedule, since: from.toISOString() };
      mark = (await store.compareAndSet(SCHEDULE_KEY, mark, set))
        ? set
        : await store.get<ScheduleMark>(SCHEDULE_KEY);
    }
    // Another schedule was set meanwhile (replicas with different settings): this one counts from now.
    if (mark?.schedule !== schedule) return this.options.now().getTime();
    this.scheduledSince = Date.parse(mark.since);
    return this.scheduledSince;
  }

  /** Whether any of `runs` has a record, under its name or its former one. */
  private async recorded(...runs: ScheduledRun[]): Promise<boolean> {
    for (const key of runs.flatMap((run) => [run.key, run.formerKey])) {
      if ((await this.options.store.get<unknown>(key)) !== undefined) return true;
    }
    return false;
  }

  /** The run before `run` left unfinished (its lease run out): closed, and the channel told, once. */
  private async closeEarlier(run: ScheduledRun, since: number): Promise<void> {
    const { environment, now, store } = this.options;
    const earlier = previousRun(this.options.schedule, run, environment);
    if (earlier.due.getTime() < since - LATE_AFTER_MS) return;
    // Left under its former name by an older replica: taken over first (unless one is still at it).
    if (!(await takeOverFormer(store, earlier, environment, now().getTime())).taken) return;
    const closed = await closeAbandoned(this.options.store, earlier.key, {
      owner: this.owner,
      now: this.options.now,
    });
    if (!closed) return;
    this.options.logger.error('an earlier scheduled report was left unfinished', { run: earlier.key });
    await this.tell(unfinished(earlier, closed, 'it was left unfinished, and the next report is due'));
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
    // At the cut every read of the service stops (waiting for budget or in flight); a build that would
    // go on regardless is left.
    const signal = this.timing.buildCut(this.timing.buildLimitMs);
    const report = await untilAborted(source.build(run.period, { deadline, signal }), signal);
    const chart = left.includes('chart') ? await chartOf(report, source) : undefined;
    const madeAt = this.options.now();
    const lateNote = lateNoteAt(madeAt);
    for (const part of left) {
      this.stayed();
      if (!(await lease.renew())) return this.overtaken(run);
      // The late note goes in the summary, or with the CSV when the summary was posted before.
      const note = part === 'summary' || (part === 'csv' && !left.includes('summary')) ? lateNote : undefined;
      this.stayed();
      await postReportPart(client, channel, report, part, { lateNote: note, madeAt, chart });
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
      this.lookAgainAt = retryAt + this.timing.lookAfterMs;
      return 'retrying';
    }
    logger.error('the scheduled report was not posted', { run: run.key, attempts, error });
    // Closed before the channel is told: a crash in between leaves it untold rather than told twice.
    if (!(await lease.close('failed', true))) return this.overtaken(run);
    const told =
      lease.record.parts.length > 0
        ? unfinished(run, lease.record, 'its last attempt failed')
        : failureSentence(error, run.period.label, logger);
    await this.tell(told);
    return 'failed';
  }

  /** Another replica took the run over: look again once the lease it took could have run out. */
  private overtaken(run: ScheduledRun): RunOutcome {
    this.options.logger.warn('another replica took the scheduled report over', { run: run.key });
    this.lookAgainAt = this.options.now().getTime() + this.timing.leaseMs + this.timing.lookAfterMs;
    return 'already-claimed';
  }

  /** `(posted late: …)` when posted more than LATE_AFTER_MS after its time, with why. */
  private lateNote(run: ScheduledRun, now: Date, previous: RunRecord | undefined, atStart: boolean) {
    if (now.getTime() - run.due.getTime() <= LATE_AFTER_MS) return undefined;
    const at = dueTime(this.options.schedule);
    // Nobody took it at its time: this replica knows whether it was up and reaching the store, not
    // whether another one was.
    const attempted = previous !== undefined && previous.attempts > 0;
    const reason = attempted
      ? previous.attempts > previous.failures
        ? 'the bot posting it stopped before it was done'
        : 'the first attempts to make it failed'
      : this.failingSince !== undefined
        ? 'the bot could not reach its store'
        : atStart
          ? `the bot was not running at ${at}, or could not reach its store`
          : `the bot was held up at ${at}`;
    return `(posted late: ${reason})`;
  }

  private async tell(text: string): Promise<void> {
    const { client, channel, logger } = this.options;
    this.stayed();
    await client.chat.postMessage({ channel, ...errorMessage(text) }).catch((error: unknown) => {
      logger.warn('the report channel could not be told', { error });
    });
  }

  private unlessLeft<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.left]);
  }

  /** Before each Slack call: once stop() stopped waiting, the look still running posts nothing. */
  private stayed(): void {
    if (this.gone) throw new RunLeft('stopped');
  }
}

const PART_NAMES: Record<ReportPart, string> = { chart: 'the chart', summary: 'the summary', csv: 'the CSV' };

/** The report of `run` did not come (or came only in part, saying which parts did not), and `why`. */
function unfinished(run: ScheduledRun, record: RunRecord, why: string): string {
  const label = escapeMrkdwn(run.period.label);
  const missing = REPORT_PARTS.filter((part) => !record.parts.includes(part)).map((p) => PART_NAMES[p]);
  if (missing.length === REPORT_PARTS.length) return `Your report for ${label} did not come: ${why}.`;
  const list = missing.length > 1 ? `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)}` : missing[0];
  return `Your report for ${label} came only in part: ${list} did not come; ${why}.`;
}
