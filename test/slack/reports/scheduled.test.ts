// The scheduled report on each store kind: two replicas on one store post a run once; a restart that
// missed the run posts it late, once, saying why; a schedule just set posts nothing for a run due
// before it; a restart seconds after the due time is on time. A replica that dies midway (stopped with
// no grace: its build or Slack call never comes back) leaves the run to another once its lease runs
// out, which posts only the parts not yet posted; a replica stopped while taking a run gives it back
// and posts nothing after its stop. A failed build is tried again; only the last failure is told, and
// a run left with parts missing says which. The clock and each replica's timer are the test's (lease
// and retry times are on that clock): no test waits for a real timer. The posts go to a fake Slack
// through a real WebClient.
import { LogLevel, WebClient } from '@slack/web-api';
import { describe, expect, vi } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { parseReportSchedule } from '../../../src/reports/schedule.js';
import { type RunTiming, ScheduledReports } from '../../../src/slack/reports/scheduled.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { startHarness } from '../../support/harness.js';
import { type FixedReportSource, fixedReportSource } from '../../support/report-source.js';
import { type Replicas, STORE_KINDS, storesTest } from '../../support/shared-stores.js';
import { StoreControls } from '../../support/store-controls.js';

const CHANNEL = 'CREPORTS';
const RUN_KEY = 'report-run:daily:2026-11-25';
const LATE = '(posted late: the bot was not running at 08:00, or could not reach its store)';
const TAKEN_OVER = '(posted late: the bot posting it stopped before it was done)';
const HELD_UP = '(posted late: the bot was held up at 08:00)';
const FIRST_FAILED = '(posted late: the first attempts to make it failed)';
const UNREACHED = '(posted late: the bot could not reach its store)';
const MINUTE = 60_000;
/** On the test's clock; a stopped replica leaves at once, as a killed one would. */
const TIMING: Partial<RunTiming> & { leaseMs: number; retryAfterMs: number; lookAfterMs: number } = {
  leaseMs: 2 * MINUTE,
  retryAfterMs: 5 * MINUTE,
  lookAfterMs: 1_000,
  stopGraceMs: 0,
};
const test = storesTest.extend('slack', async ({ defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  return slack;
});

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
function replica(
  slack: FakeSlack,
  store: Store,
  clock: { now: Date },
  source: FixedReportSource = fixedReportSource(),
  timing: Partial<RunTiming> = TIMING,
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
    store,
    client,
    source,
    now: () => clock.now,
    logger: silentLogger,
    timing: { ...timing, timer: timer.set },
  });
  return Object.assign(reports, { timer, client });
}

/** The schedule as set on 1 November, unless `setAt` is null (never set: the first start sets it). */
async function scheduleSet(store: Store, setAt: string | null = '2026-11-01T00:00:00Z') {
  if (setAt) await store.set('report-schedule', { schedule: 'daily 08:00', since: setAt });
}

/**
 * Two replicas of the schedule on the test's store kind (`first` on one handle, `second` on the other),
 * on one clock starting `at`, stopped after the test.
 */
async function scheduledPair(
  {
    replicas,
    slack,
    defer,
  }: { replicas: (name: string) => Promise<Replicas>; slack: FakeSlack; defer: (f: () => unknown) => void },
  name: string,
  at: string,
  options: {
    sources?: [FixedReportSource?, FixedReportSource?];
    timing?: Partial<RunTiming>;
    scheduleSetAt?: string | null;
  } = {},
) {
  const { a, b } = await replicas(name);
  await scheduleSet(a, options.scheduleSetAt);
  const clock = { now: new Date(at) };
  const [sourceA, sourceB] = options.sources ?? [];
  const first = replica(slack, a, clock, sourceA, options.timing);
  const second = replica(slack, b, clock, sourceB, options.timing);
  defer(() => Promise.all([first.stop(), second.stop()]));
  return { a, b, clock, first, second };
}

/** A source whose build fails its first `times` times. */
function failingSource(times: number): FixedReportSource {
  const source = fixedReportSource();
  const build = source.build.bind(source);
  let left = times;
  source.build = (period) => {
    source.failWith = left-- > 0 ? new Error('the history could not be read') : undefined;
    return build(period);
  };
  return source;
}

/** A source whose build does not come back until `finish` (never, unless called); `building` once asked. */
function hangingSource() {
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
  source.build = async (period) => {
    asked();
    await finished;
    return build(period);
  };
  return { source, building, finish };
}

/**
 * `store` with chosen reads or compare-and-sets held at its door: `hold` says which, `arrived` resolves
 * when one came, `open` lets it through and resolves once it was answered.
 */
function gated(store: Store) {
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
const partsOf = (record: unknown) => (record as { parts?: string[] } | undefined)?.parts ?? [];

/** `at` plus `ms`. */
const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** The summaries posted to the report channel (not what it was told), as text. */
const summaries = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .filter((c) => !String(c.body.text).startsWith('Your report'))
    .map((c) => JSON.stringify(c.body.blocks));

/** What the channel was told in plain text (the failure sentences). */
const told = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .map((c) => String(c.body.text))
    .filter((text) => text.startsWith('Your report'));

/** The kinds of the files shared (`png`, `csv`), in order. */
const fileKinds = (slack: FakeSlack) => slack.sharedFiles().map((f) => f.filename.split('.').pop());

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('two replicas at 08:00 post the run once', async ({ replicas, slack, defer }) => {
      const t = { replicas, slack, defer };
      // 08:00:00.5 in Lagos
      const { first, second } = await scheduledPair(
        t,
        `report-twice-${kind.name}`,
        '2026-11-26T07:00:00.500Z',
      );
      const outcomes = await Promise.all([first.check(), second.check()]);
      // The other found the run leased, or (when it looked later) already posted.
      expect(outcomes.filter((o) => o === 'posted')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'posted')).toSatisfy(([o]) =>
        ['already-claimed', 'already-done'].includes(o),
      );
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain('Wednesday 25 November 2026');
      expect(summaries(slack)[0]).not.toContain('posted late');
      expect(slack.sharedFiles().map((f) => f.channel)).toEqual([CHANNEL, CHANNEL]);
    });

    test('a start after a missed 08:00 posts it late, once, saying so', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      // 10:00 in Lagos, nobody ran at 08:00
      const { a, b, clock, first } = await scheduledPair(
        t,
        `report-missed-${kind.name}`,
        '2026-11-26T09:00:00Z',
      );
      await first.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(LATE);
      expect(summaries(slack)[0]).toContain('Wednesday 25 November 2026');
      await first.stop();
      // Started again (and another replica with it): the run is not posted a second time.
      clock.now = new Date('2026-11-26T09:05:00Z');
      const again = [replica(slack, a, clock), replica(slack, b, clock)];
      await Promise.all(again.map((r) => r.start()));
      expect(summaries(slack)).toHaveLength(1);
      await Promise.all(again.map((r) => r.stop()));
    });

    test('a schedule just set posts nothing for a run due before it, and the next on time', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const { clock, first, second } = await scheduledPair(
        t,
        `report-new-${kind.name}`,
        '2026-11-26T09:00:00Z',
        {
          scheduleSetAt: null,
        },
      );
      await first.start();
      expect(await second.check()).toBe('before-schedule');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      // At 08:00 the next day its timer looks, and the next run is posted on time.
      clock.now = new Date('2026-11-27T07:00:00Z');
      first.timer.fire();
      expect(await first.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain('Thursday 26 November 2026');
      expect(summaries(slack)[0]).not.toContain('posted late');
    });

    test('a restart after the run was posted posts nothing', async ({ replicas, slack, defer }) => {
      const t = { replicas, slack, defer };
      const { a, clock, first } = await scheduledPair(
        t,
        `report-restart-${kind.name}`,
        '2026-11-26T07:00:01Z',
      );
      expect(await first.check()).toBe('posted');
      await first.stop();
      clock.now = new Date('2026-11-26T09:00:00Z');
      const after = replica(slack, a, clock);
      await after.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      // The next day's run is the next one posted.
      clock.now = new Date('2026-11-27T07:00:01Z');
      expect(await after.check()).toBe('posted');
      expect(summaries(slack)[1]).toContain('Thursday 26 November 2026');
      await after.stop();
    });

    test('a first start seconds after 08:00 posts the run on time', async ({ replicas, slack, defer }) => {
      const t = { replicas, slack, defer };
      // 08:00:05 in Lagos, the schedule set with this start
      const { first } = await scheduledPair(t, `report-grace-${kind.name}`, '2026-11-26T07:00:05Z', {
        scheduleSetAt: null,
      });
      await first.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
    });

    test('a look held up past 08:00 posts the run late, saying so', async ({ replicas, slack, defer }) => {
      const t = { replicas, slack, defer };
      // The replica was running (this is not its first look) but looked only at 08:20.
      const { first } = await scheduledPair(t, `report-held-${kind.name}`, '2026-11-26T07:20:00Z');
      expect(await first.check()).toBe('posted-late');
      expect(summaries(slack)[0]).toContain(HELD_UP);
    });

    test('a replica that could not reach its store at 08:00 says so when it posts late', async ({
      replicas,
      slack,
      defer,
    }) => {
      const { a } = await replicas(`report-unreached-${kind.name}`);
      await scheduleSet(a);
      const controls = new StoreControls();
      const unreachable = controls.failReads('report-run');
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const runner = replica(slack, controls.wrap(a), clock);
      defer(() => runner.stop());
      await runner.start();
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect(runner.timer.ms).toBe(TIMING.retryAfterMs);
      // Reached again by 08:20, when its timer looks: posted late, saying why.
      unreachable();
      clock.now = new Date('2026-11-26T07:20:00Z');
      runner.timer.fire();
      expect(await runner.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(UNREACHED);
    });

    test("the reads are told to end a minute before the build's cut", async ({ replicas, slack }) => {
      const { a } = await replicas(`report-grace-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:05Z') }; // 08:00:05 in Lagos
      const source = fixedReportSource();
      const started = replica(slack, a, clock, source);
      await started.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      // The reads are told to end a minute before the build's 10-minute cut, however busy the budget.
      expect(source.deadlines).toEqual([clock.now.getTime() + 9 * MINUTE]);
      await started.stop();
    });

    test('a replica that dies while building leaves the run to another, which posts it late, once, saying so', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const hanging = hangingSource();
      const source = fixedReportSource();
      // 10:00 in Lagos
      const {
        clock,
        first: dying,
        second: other,
      } = await scheduledPair(t, `report-died-${kind.name}`, '2026-11-26T09:00:00Z', {
        sources: [hanging.source, source],
      });
      const claimed = dying.check(true);
      await hanging.building;
      await dying.stop(); // as if killed: its build never comes back, its lease is not renewed
      expect(await claimed).toBe('stopped');
      // The other finds the lease live, and its timer looks again a moment after it runs out.
      await other.start();
      expect(summaries(slack)).toHaveLength(0);
      expect(other.timer.ms).toBe(TIMING.leaseMs + TIMING.lookAfterMs);
      clock.now = plus(clock.now, TIMING.leaseMs + TIMING.lookAfterMs);
      other.timer.fire();
      expect(await other.check()).toBe('already-done');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
      expect(source.periods).toHaveLength(1);
    });

    test('two replicas taking over one expired lease at once: exactly one posts', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const hanging = hangingSource();
      const { a, clock, first, second } = await scheduledPair(
        t,
        `report-takeover-${kind.name}`,
        '2026-11-26T07:00:01Z',
      );
      const dying = replica(slack, a, clock, hanging.source);
      const claimed = dying.check();
      await hanging.building;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      clock.now = plus(clock.now, TIMING.leaseMs);
      const outcomes = await Promise.all([first.check(), second.check()]);
      expect(outcomes.filter((o) => o === 'posted')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'posted')).toSatisfy(([o]) =>
        ['already-claimed', 'already-done'].includes(o),
      );
      expect(summaries(slack)).toHaveLength(1);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
    });

    test('a replica that dies after posting the chart leaves only the summary and CSV to the next', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const source = fixedReportSource();
      const {
        clock,
        first: dying,
        second: other,
      } = await scheduledPair(t, `report-chart-${kind.name}`, '2026-11-26T07:00:01Z', {
        sources: [undefined, source],
      });
      const held = slack.hold('chat.postMessage'); // its summary never reaches Slack
      const claimed = dying.check();
      await held.arrived;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      expect(fileKinds(slack)).toEqual(['png']);
      // Before the lease runs out nobody takes it; after, the next look posts the rest, late.
      expect(await other.check()).toBe('already-claimed');
      clock.now = new Date('2026-11-26T07:30:00Z');
      expect(await other.check()).toBe('posted-late');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(fileKinds(slack)).toEqual(['png', 'csv']);
      expect(source.charts).toHaveLength(0); // the chart was not made again
      expect(await other.check()).toBe('already-done');
    });

    test('a replica overtaken while posting looks again once the new lease could have run out', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const hanging = hangingSource();
      const { clock, first, second } = await scheduledPair(
        t,
        `report-overtaken-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [hanging.source],
        },
      );
      const started = first.start();
      await hanging.building;
      // Its build outlasted the lease (renewals lost): the other takes the run over and posts it.
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await second.check()).toBe('posted');
      hanging.finish();
      await started;
      expect(summaries(slack)).toHaveLength(1);
      expect(first.timer.ms).toBe(TIMING.leaseMs + TIMING.lookAfterMs);
    });

    test('a replica stopped while taking the run gives it back: another posts it at once', async ({
      replicas,
      slack,
      defer,
    }) => {
      const { a, b } = await replicas(`report-stop-claim-${kind.name}`);
      await scheduleSet(a);
      const gate = gated(a);
      const reading = gate.hold('get', ([key]) => key === RUN_KEY);
      const released = gate.hold(
        'compareAndSet',
        ([key, , next]) =>
          key === RUN_KEY && partsOf(next).length === 0 && (next as { attempts: number }).attempts === 0,
      );
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const stopping = replica(slack, gate.store, clock);
      const claimed = stopping.check();
      await reading.arrived;
      await stopping.stop(); // no grace: it stops waiting at once
      expect(await claimed).toBe('stopped');
      // Its read comes back after the stop: it takes the run, then gives it back without posting.
      await reading.open();
      await released.arrived;
      await released.open();
      const other = replica(slack, b, clock);
      defer(() => other.stop());
      expect(await other.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
    });

    test('a replica stopped midway posts nothing after its stop returns', async ({
      replicas,
      slack,
      defer,
    }) => {
      const { a } = await replicas(`report-stop-post-${kind.name}`);
      await scheduleSet(a);
      const gate = gated(a);
      // The lease renewed before the summary (the chart recorded) is held until after the stop.
      const renewing = gate.hold(
        'compareAndSet',
        ([key, expected]) => key === RUN_KEY && partsOf(expected).includes('chart'),
      );
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const stopping = replica(slack, gate.store, clock);
      defer(() => stopping.stop());
      const posts = vi.spyOn(stopping.client.chat, 'postMessage');
      const claimed = stopping.check();
      await renewing.arrived;
      await stopping.stop();
      expect(await claimed).toBe('stopped');
      await renewing.open();
      await new Promise((resolve) => setImmediate(resolve));
      expect(posts).not.toHaveBeenCalled();
      expect(fileKinds(slack)).toEqual(['png']);
    });

    test('a build that fails once is tried again and posted once, with no failure told', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const source = failingSource(1);
      const { clock, first, second } = await scheduledPair(
        t,
        `report-retry-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [source, source],
        },
      );
      expect(await first.check()).toBe('retrying');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      // Held until its retry: no replica tries again before.
      expect(await second.check()).toBe('already-claimed');
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await second.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      expect(told(slack)).toEqual([]);
      expect(source.periods).toHaveLength(2);
    });

    test('a run posted late after failed attempts says so', async ({ replicas, slack, defer }) => {
      const t = { replicas, slack, defer };
      const source = failingSource(1);
      const { clock, first, second } = await scheduledPair(
        t,
        `report-retry-late-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [source, source],
        },
      );
      expect(await first.check()).toBe('retrying');
      clock.now = new Date('2026-11-26T07:20:00Z');
      expect(await second.check()).toBe('posted-late');
      expect(summaries(slack)[0]).toContain(FIRST_FAILED);
    });

    test('a build that fails every attempt tells the channel once, then the run is closed', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const source = failingSource(Number.POSITIVE_INFINITY);
      const { clock, first: runner } = await scheduledPair(
        t,
        `report-fails-${kind.name}`,
        '2026-11-26T07:00:01Z',
        {
          sources: [source],
          timing: { ...TIMING, maxAttempts: 3 },
        },
      );
      expect(await runner.check()).toBe('retrying');
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('retrying');
      expect(told(slack)).toEqual([]);
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('failed');
      expect(told(slack)).toHaveLength(1);
      expect(told(slack)[0]).toMatch(
        /^Your report for Wednesday 25 November 2026 could not be made; try again shortly, quoting reference `[0-9a-f]{8}`/,
      );
      expect(slack.sharedFiles()).toHaveLength(0);
      clock.now = plus(clock.now, TIMING.retryAfterMs);
      expect(await runner.check()).toBe('already-done');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
      expect(source.periods).toHaveLength(3);
    });

    test('a run whose every attempt was left midway is closed and the channel told once', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const hanging = hangingSource();
      const source = fixedReportSource();
      const {
        clock,
        first: dying,
        second: other,
      } = await scheduledPair(t, `report-exhausted-${kind.name}`, '2026-11-26T07:00:01Z', {
        sources: [hanging.source, source],
        timing: { ...TIMING, maxAttempts: 1 },
      });
      const claimed = dying.check();
      await hanging.building;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await other.check()).toBe('failed');
      expect(told(slack)).toEqual([
        'Your report for Wednesday 25 November 2026 did not come: it was started once and never finished.',
      ]);
      expect(await other.check()).toBe('already-done');
      expect(told(slack)).toHaveLength(1);
      expect(source.periods).toHaveLength(0);
    });

    test('a run left midway after its chart tells only that the summary and CSV did not come', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const {
        clock,
        first: dying,
        second: other,
      } = await scheduledPair(t, `report-partial-${kind.name}`, '2026-11-26T07:00:01Z', {
        timing: { ...TIMING, maxAttempts: 1 },
      });
      const held = slack.hold('chat.postMessage');
      const claimed = dying.check();
      await held.arrived;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      clock.now = plus(clock.now, TIMING.leaseMs);
      expect(await other.check()).toBe('failed');
      expect(told(slack)).toEqual([
        'Your report for Wednesday 25 November 2026 came only in part: the summary and the CSV did not come; it was started once and never finished.',
      ]);
    });

    test('a run left midway after its last part is closed as posted, with nothing told', async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const {
        a,
        clock,
        second: other,
      } = await scheduledPair(t, `report-all-parts-${kind.name}`, '2026-11-26T07:00:01Z', {
        timing: { ...TIMING, maxAttempts: 1 },
      });
      // Its holder recorded every part, then died before closing it.
      await a.set(RUN_KEY, {
        state: 'posting',
        due: '2026-11-26T07:00:00.000Z',
        owner: 'gone',
        leaseUntil: clock.now.getTime(),
        attempts: 1,
        failures: 0,
        parts: ['chart', 'summary', 'csv'],
      });
      expect(await other.check()).toBe('already-done');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      expect(await a.get(RUN_KEY)).toMatchObject({ state: 'posted' });
    });

    test("an earlier period's run left half-posted is told once, when the next is due", async ({
      replicas,
      slack,
      defer,
    }) => {
      const t = { replicas, slack, defer };
      const {
        clock,
        first: dying,
        second: other,
      } = await scheduledPair(t, `report-earlier-${kind.name}`, '2026-11-26T07:00:01Z');
      const held = slack.hold('chat.postMessage');
      const claimed = dying.check();
      await held.arrived;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      // Nobody looked again until the next day's 08:00.
      clock.now = new Date('2026-11-27T07:00:01Z');
      expect(await other.check()).toBe('posted');
      expect(await other.check()).toBe('already-done');
      expect(told(slack)).toEqual([
        'Your report for Wednesday 25 November 2026 came only in part: the summary and the CSV did not come; it was left unfinished, and the next report is due.',
      ]);
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain('Thursday 26 November 2026');
    });
  });
}

describe('the bot with CNGN_REPORT_SCHEDULE', () => {
  storesTest('posts a run it missed to the report channel when it starts', async ({ defer }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    await scheduleSet(store);
    const h = await startHarness({
      store,
      now: () => new Date('2026-11-26T09:00:00Z'),
      reportSource: fixedReportSource(),
      config: { report: { schedule: parseReportSchedule('daily 08:00'), channel: CHANNEL } },
    });
    defer(() => h.stop());
    const posted = await h.slack.waitFor('chat.postMessage', (c) => c.body.channel === CHANNEL);
    expect(JSON.stringify(posted.body.blocks)).toContain(LATE);
    expect(h.bot.scheduledReports).toBeDefined();
  });
});
