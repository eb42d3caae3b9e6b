// The scheduled report on each store kind: two replicas on one store post a run once; a restart that
// missed the run posts it late, once, saying so; a restart that did not miss it posts nothing, and one
// seconds after the due time is on time. A replica that dies midway (stopped with no grace: its build
// or Slack call never comes back) leaves the run to another once its lease runs out, which posts only
// the parts not yet posted. A failed build is tried again; only the last failure is told. The clock is
// the test's (lease and retry times are on it); the posts go to a fake Slack through a real WebClient.
import { LogLevel, WebClient } from '@slack/web-api';
import { describe, expect } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { parseReportSchedule } from '../../../src/reports/schedule.js';
import { type RunTiming, ScheduledReports } from '../../../src/slack/reports/scheduled.js';
import type { Store } from '../../../src/store/index.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { startHarness } from '../../support/harness.js';
import { type FixedReportSource, fixedReportSource } from '../../support/report-source.js';
import { STORE_KINDS, storesTest } from '../../support/shared-stores.js';

const CHANNEL = 'CREPORTS';
const LATE = '(posted late: the bot was not running at 08:00)';
const TAKEN_OVER = '(posted late: the bot posting it stopped before it was done)';
const MINUTE = 60_000;
/** On the test's clock; a stopped replica leaves at once, as a killed one would. */
const TIMING: Partial<RunTiming> = { leaseMs: 2 * MINUTE, retryAfterMs: 5 * MINUTE, stopGraceMs: 0 };
const test = storesTest.extend('slack', async ({ defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  return slack;
});

/** One replica's schedule on `store`, reading the time from `clock`. */
function replica(
  slack: FakeSlack,
  store: Store,
  clock: { now: Date },
  source: FixedReportSource = fixedReportSource(),
  timing: Partial<RunTiming> = TIMING,
) {
  return new ScheduledReports({
    schedule: parseReportSchedule('daily 08:00'),
    channel: CHANNEL,
    store,
    // No retries: a call cut off by the test fails at once.
    client: new WebClient('xoxb-test', {
      slackApiUrl: slack.apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    }),
    source,
    now: () => clock.now,
    logger: silentLogger,
    timing,
  });
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

/** A source whose build never comes back; `building` resolves once it was asked. */
function hangingSource() {
  const source = fixedReportSource();
  let asked!: () => void;
  const building = new Promise<void>((resolve) => {
    asked = resolve;
  });
  source.build = (period) => {
    source.periods.push(period);
    asked();
    return new Promise(() => {});
  };
  return { source, building };
}

/** `at` plus `ms`. */
const plus = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** The summaries posted to the report channel, as text. */
const summaries = (slack: FakeSlack) =>
  slack.callsTo('chat.postMessage').map((c) => JSON.stringify(c.body.blocks));

/** What the channel was told in plain text (the failure sentences). */
const told = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .map((c) => String(c.body.text))
    .filter((text) => text.startsWith('Your report'));

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('two replicas at 08:00 post the run once', async ({ replicas, slack }) => {
      const { a, b } = await replicas(`report-twice-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:00.500Z') }; // 08:00:00.5 in Lagos
      const [first, second] = [replica(slack, a, clock), replica(slack, b, clock)];
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
      await Promise.all([first.stop(), second.stop()]);
    });

    test('a start after a missed 08:00 posts it late, once, saying so', async ({ replicas, slack }) => {
      const { a, b } = await replicas(`report-missed-${kind.name}`);
      const clock = { now: new Date('2026-11-26T09:00:00Z') }; // 10:00 in Lagos, nobody ran at 08:00
      const started = replica(slack, a, clock);
      await started.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(LATE);
      expect(summaries(slack)[0]).toContain('Wednesday 25 November 2026');
      await started.stop();
      // Started again (and another replica with it): the run is not posted a second time.
      clock.now = new Date('2026-11-26T09:05:00Z');
      const again = [replica(slack, a, clock), replica(slack, b, clock)];
      await Promise.all(again.map((r) => r.start()));
      expect(summaries(slack)).toHaveLength(1);
      await Promise.all(again.map((r) => r.stop()));
    });

    test('a restart after the run was posted posts nothing', async ({ replicas, slack }) => {
      const { a } = await replicas(`report-restart-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const before = replica(slack, a, clock);
      expect(await before.check()).toBe('posted');
      await before.stop();
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

    test('a restart seconds after 08:00 posts the run on time', async ({ replicas, slack }) => {
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
    }) => {
      const { a, b } = await replicas(`report-died-${kind.name}`);
      const clock = { now: new Date('2026-11-26T09:00:00Z') }; // 10:00 in Lagos
      const hanging = hangingSource();
      // Its lease is short in real time too: the other replica's timer waits for it to run out.
      const dying = replica(slack, a, clock, hanging.source, { ...TIMING, leaseMs: 200 });
      const claimed = dying.check(true);
      await hanging.building;
      await dying.stop(); // as if killed: its build never comes back, its lease is not renewed
      expect(await claimed).toBe('stopped');
      // The other replica finds the lease live, and its timer looks again once it has run out.
      const source = fixedReportSource();
      const other = replica(slack, b, clock, source);
      await other.start();
      expect(summaries(slack)).toHaveLength(0);
      clock.now = plus(clock.now, MINUTE);
      await slack.waitFor('files.completeUploadExternal', (c) =>
        JSON.stringify(c.body.files).includes('(CSV)'),
      );
      await other.stop();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(slack.sharedFiles().map((f) => f.filename.split('.').pop())).toEqual(['png', 'csv']);
      expect(source.periods).toHaveLength(1);
    });

    test('a replica that dies after posting the chart leaves only the summary and CSV to the next', async ({
      replicas,
      slack,
    }) => {
      const { a, b } = await replicas(`report-chart-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const held = slack.hold('chat.postMessage'); // its summary never reaches Slack
      const dying = replica(slack, a, clock);
      const claimed = dying.check();
      await held.arrived;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      expect(slack.sharedFiles().map((f) => f.filename.split('.').pop())).toEqual(['png']);
      // Before the lease runs out nobody takes it; after, the next look posts the rest, late.
      const source = fixedReportSource();
      const other = replica(slack, b, clock, source);
      expect(await other.check()).toBe('already-claimed');
      clock.now = new Date('2026-11-26T07:30:00Z');
      expect(await other.check()).toBe('posted-late');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).toContain(TAKEN_OVER);
      expect(slack.sharedFiles().map((f) => f.filename.split('.').pop())).toEqual(['png', 'csv']);
      expect(source.charts).toHaveLength(0); // the chart was not made again
      expect(await other.check()).toBe('already-done');
      await other.stop();
    });

    test('a build that fails once is tried again and posted once, with no failure told', async ({
      replicas,
      slack,
    }) => {
      const { a, b } = await replicas(`report-retry-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const source = failingSource(1);
      const first = replica(slack, a, clock, source);
      expect(await first.check()).toBe('retrying');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(0);
      // Held until its retry: no replica tries again before.
      const second = replica(slack, b, clock, source);
      expect(await second.check()).toBe('already-claimed');
      clock.now = plus(clock.now, TIMING.retryAfterMs ?? 0);
      expect(await second.check()).toBe('posted');
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
      expect(told(slack)).toEqual([]);
      expect(source.periods).toHaveLength(2);
      await Promise.all([first.stop(), second.stop()]);
    });

    test('a build that fails every attempt tells the channel once, then the run is closed', async ({
      replicas,
      slack,
    }) => {
      const { a } = await replicas(`report-fails-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const source = failingSource(Number.POSITIVE_INFINITY);
      const runner = replica(slack, a, clock, source, { ...TIMING, maxAttempts: 3 });
      expect(await runner.check()).toBe('retrying');
      clock.now = plus(clock.now, TIMING.retryAfterMs ?? 0);
      expect(await runner.check()).toBe('retrying');
      expect(told(slack)).toEqual([]);
      clock.now = plus(clock.now, TIMING.retryAfterMs ?? 0);
      expect(await runner.check()).toBe('failed');
      expect(told(slack)).toHaveLength(1);
      expect(told(slack)[0]).toMatch(
        /^Your report for Wednesday 25 November 2026 could not be made; try again shortly, quoting reference `[0-9a-f]{8}`/,
      );
      expect(slack.sharedFiles()).toHaveLength(0);
      clock.now = plus(clock.now, TIMING.retryAfterMs ?? 0);
      expect(await runner.check()).toBe('already-done');
      expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
      expect(source.periods).toHaveLength(3);
      await runner.stop();
    });

    test('a run whose every attempt was left midway is closed and the channel told once', async ({
      replicas,
      slack,
    }) => {
      const { a, b } = await replicas(`report-exhausted-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:01Z') };
      const timing = { ...TIMING, maxAttempts: 1 };
      const hanging = hangingSource();
      const dying = replica(slack, a, clock, hanging.source, timing);
      const claimed = dying.check();
      await hanging.building;
      await dying.stop();
      expect(await claimed).toBe('stopped');
      clock.now = plus(clock.now, TIMING.leaseMs ?? 0);
      const source = fixedReportSource();
      const other = replica(slack, b, clock, source, timing);
      expect(await other.check()).toBe('failed');
      expect(told(slack)).toEqual([
        'Your report for Wednesday 25 November 2026 did not come: it was started once and never finished.',
      ]);
      expect(await other.check()).toBe('already-done');
      expect(told(slack)).toHaveLength(1);
      expect(source.periods).toHaveLength(0);
      await other.stop();
    });
  });
}

describe('the bot with CNGN_REPORT_SCHEDULE', () => {
  storesTest('posts a run it missed to the report channel when it starts', async ({ defer }) => {
    const h = await startHarness({
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
