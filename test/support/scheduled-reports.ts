// The scheduled report's tests: two replicas of the schedule on one store kind, each with a timer the
// test fires and a real WebClient to a fake Slack, on one clock the test moves (lease and retry times
// are on it, so no test waits for a real timer); sources that fail or hang; a store whose chosen reads
// and writes wait at a door; and what the report channel received.
import { LogLevel, WebClient } from '@slack/web-api';
import { expect } from 'vitest';
import type { CngnEnvironment } from '../../src/format/environment.js';
import { silentLogger } from '../../src/log.js';
import { parseReportSchedule } from '../../src/reports/schedule.js';
import { type RunTiming, ScheduledReports } from '../../src/slack/reports/scheduled.js';
import type { Store } from '../../src/store/index.js';
import { FakeSlack } from './fake-slack.js';
import { type FixedReportSource, fixedReportSource } from './report-source.js';
import { storesTest } from './shared-stores.js';

export const CHANNEL = 'CREPORTS';
/** The run due at 08:00 on 26 November 2026 (Lagos), for the day before, of the sandbox's report. */
export const RUN_KEY = 'report-run:daily:sandbox:2026-11-25';
/** Its name in older versions, which named no environment. */
export const FORMER_RUN_KEY = 'report-run:daily:2026-11-25';
export const MINUTE = 60_000;
/** On the test's clock; a stopped replica leaves at once, as a killed one would. */
export const TIMING: Partial<RunTiming> & { leaseMs: number; retryAfterMs: number; lookAfterMs: number } = {
  leaseMs: 2 * MINUTE,
  retryAfterMs: 5 * MINUTE,
  lookAfterMs: 1_000,
  stopGraceMs: 0,
};

/** A replica's timer, fired by the test when it moved the clock: `ms` is how long it was set for. */
class TestTimer {
  private pending: { fire: () => void; ms: number } | undefined;

  readonly set = (fire: () => void, ms: number) => {
    const entry = { fire, ms };
    this.pending = entry;
    return () => {
      if (this.pending === entry) this.pending = undefined;
    };
  };

  get ms(): number | undefined {
    return this.pending?.ms;
  }

  fire(): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.fire();
  }
}

/** One replica's schedule on `store`, reading the time from `clock`, its timer and client at hand. */
export function replica(
  slack: FakeSlack,
  store: Store,
  clock: { now: Date },
  source: FixedReportSource = fixedReportSource(),
  timing: Partial<RunTiming> = TIMING,
  environment: CngnEnvironment = 'sandbox',
) {
  const timer = new TestTimer();
  // No retries: a call cut off by the test fails at once.
  const client = new WebClient('xoxb-test', {
    slackApiUrl: slack.apiUrl,
    retryConfig: { retries: 0 },
    logLevel: LogLevel.ERROR,
  });
  const reports = new ScheduledReports({
    schedule: parseReportSchedule('daily 08:00'),
    channel: CHANNEL,
    environment,
    store,
    client,
    source,
    now: () => clock.now,
    logger: silentLogger,
    timing: { ...timing, timer: timer.set },
  });
  return Object.assign(reports, { timer, client });
}

/**
 * `dying` looks for the run (`atStart`: as at its start) and is stopped with no grace once `reached` (its
 * build asked for, a Slack call held, a store call at a gate): its look ends 'stopped'.
 */
export async function stoppedMidway(
  dying: ReturnType<typeof replica>,
  reached: Promise<unknown>,
  atStart = false,
): Promise<void> {
  const claimed = dying.check(atStart);
  await reached;
  await dying.stop();
  expect(await claimed).toBe('stopped');
}

/** The schedule as set on 1 November, unless `setAt` is null (never set: the first start sets it). */
export async function scheduleSet(store: Store, setAt: string | null = '2026-11-01T00:00:00Z') {
  if (setAt) await store.set('report-schedule', { schedule: 'daily 08:00', since: setAt });
}

export interface PairOptions {
  sources?: [FixedReportSource?, FixedReportSource?];
  timing?: Partial<RunTiming>;
  /** When the schedule was set (default 1 November); null: never set, the first start sets it. */
  scheduleSetAt?: string | null;
}

/** Two replicas of the schedule on one store kind and one clock: `scheduledTest`'s `scheduledPair`. */
export type ScheduledPair = (
  name: string,
  at: string,
  options?: PairOptions,
) => Promise<{
  a: Store;
  b: Store;
  clock: { now: Date };
  first: ReturnType<typeof replica>;
  second: ReturnType<typeof replica>;
}>;

/**
 * The stores fixtures plus `slack`, a fake Slack holding the report channel, and `scheduledPair(name,
 * at)`: two replicas of the schedule on the test's store kind (`first` on one handle, `second` on the
 * other), on one clock starting `at`, stopped after the test.
 */
export const scheduledTest = storesTest
  .extend('slack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  .extend('scheduledPair', async ({ replicas, slack, defer }): Promise<ScheduledPair> => {
    return async (name, at, options = {}) => {
      const { a, b } = await replicas(name);
      await scheduleSet(a, options.scheduleSetAt);
      const clock = { now: new Date(at) };
      const [sourceA, sourceB] = options.sources ?? [];
      const first = replica(slack, a, clock, sourceA, options.timing);
      const second = replica(slack, b, clock, sourceB, options.timing);
      defer(() => Promise.all([first.stop(), second.stop()]));
      return { a, b, clock, first, second };
    };
  });

/** A source whose build fails its first `times` times. */
export function failingSource(times: number): FixedReportSource {
  const source = fixedReportSource();
  const build = source.build.bind(source);
  let left = times;
  source.build = (period, options) => {
    source.failWith = left-- > 0 ? new Error('the history could not be read') : undefined;
    return build(period, options);
  };
  return source;
}

/** A source whose build does not come back until `finish` (never, unless called); `building` once asked. */
export function hangingSource() {
  const source = fixedReportSource();
  const build = source.build.bind(source);
  let asked!: () => void;
  let finish!: () => void;
  const building = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  source.build = async (period, options) => {
    asked();
    await finished;
    return build(period, options);
  };
  return { source, building, finish };
}

/**
 * A pair from `scheduledPair` whose first replica (`dying`) hangs in its build (`hanging`), and whose
 * second (`other`) builds from `source`.
 */
export async function pairWithHangingFirst(
  scheduledPair: ScheduledPair,
  name: string,
  at: string,
  options: PairOptions = {},
) {
  const hanging = hangingSource();
  const source = fixedReportSource();
  const pair = await scheduledPair(name, at, { ...options, sources: [hanging.source, source] });
  return { ...pair, dying: pair.first, other: pair.second, hanging, source };
}

/**
 * A pair from `scheduledPair` whose first replica (`dying`) was stopped midway (`stoppedMidway`) with its
 * summary held on its way to Slack, the chart posted; `other` is the second.
 */
export async function diedPostingSummary(
  scheduledPair: ScheduledPair,
  slack: FakeSlack,
  name: string,
  at: string,
  options: PairOptions = {},
) {
  const pair = await scheduledPair(name, at, options);
  await stoppedMidway(pair.first, slack.hold('chat.postMessage').arrived);
  return { ...pair, dying: pair.first, other: pair.second };
}

/**
 * `store` with chosen reads or compare-and-sets held at its door: `hold` says which, `arrived` resolves
 * when one came, `open` lets it through and resolves once it was answered.
 */
export function gated(store: Store) {
  const gates: Array<{
    op: 'get' | 'compareAndSet';
    match: (args: unknown[]) => boolean;
    arrive: () => void;
    opened: Promise<void>;
    answered: () => void;
  }> = [];
  const wrapped = new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const call = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (property !== 'get' && property !== 'compareAndSet') return call;
      return async (...args: unknown[]) => {
        const at = gates.findIndex((g) => g.op === property && g.match(args));
        if (at < 0) return call(...args);
        const [gate] = gates.splice(at, 1);
        gate?.arrive();
        await gate?.opened;
        try {
          return await call(...args);
        } finally {
          gate?.answered();
        }
      };
    },
  });
  const hold = (op: 'get' | 'compareAndSet', match: (args: unknown[]) => boolean) => {
    let arrive!: () => void;
    let open!: () => void;
    let answered!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const opened = new Promise<void>((resolve) => (open = resolve));
    const done = new Promise<void>((resolve) => (answered = resolve));
    gates.push({ op, match, arrive, opened, answered });
    return {
      arrived,
      open: () => {
        open();
        return done;
      },
    };
  };
  return { store: wrapped, hold };
}

/** A run record's parts, from a compare-and-set's arguments (key, expected, next). */
export const partsOf = (record: unknown) => (record as { parts?: string[] } | undefined)?.parts ?? [];

/** `at` plus `ms`. */
export const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** The summaries posted to the report channel (not what it was told), as text. */
export const summaries = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .filter((c) => !String(c.body.text).startsWith('Your report'))
    .map((c) => JSON.stringify(c.body.blocks));

/** What the channel was told in plain text (the failure sentences). */
export const told = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .map((c) => String(c.body.text))
    .filter((text) => text.startsWith('Your report'));

/** The kinds of the files shared (`png`, `csv`), in order. */
export const fileKinds = (slack: FakeSlack) => slack.sharedFiles().map((f) => f.filename.split('.').pop());
