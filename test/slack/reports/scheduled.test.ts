// The scheduled report on each store kind, when and how it is posted: two replicas on one store post a
// run once; a restart that missed the run posts it late, once, saying why (not running, held up, the
// store out of reach, the first attempts failed); a restart that did not miss it posts nothing, and one
// seconds after the due time is on time; a schedule just set posts nothing for a run due before it; a
// build is cut at its limit, its reads told to stop.
import { describe, expect } from 'vitest';
import type { RunRecord } from '../../../src/reports/run-lease.js';
import { parseReportSchedule } from '../../../src/reports/schedule.js';
import { createStore } from '../../../src/store/index.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { startHarness } from '../../support/harness.js';
import { fixedReportSource } from '../../support/report-source.js';
import {
  CHANNEL,
  failingSource,
  hangingSource,
  MINUTE,
  replica,
  scheduleSet,
  summaries,
  TIMING,
  scheduledTest as test,
} from '../../support/scheduled-reports.js';
import { STORE_KINDS, storesTest } from '../../support/shared-stores.js';
import { StoreControls } from '../../support/store-controls.js';

const LATE = '(posted late: the bot was not running at 08:00, or could not reach its store)';
const HELD_UP = '(posted late: the bot was held up at 08:00)';
const FIRST_FAILED = '(posted late: the first attempts to make it failed)';
const UNREACHED = '(posted late: the bot could not reach its store)';

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('two replicas at 08:00 post the run once', async ({ scheduledPair, slack }) => {
      // 08:00:00.5 in Lagos
      const { first, second } = await scheduledPair(`report-twice-${kind.name}`, '2026-11-26T07:00:00.500Z');
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

    test('a start after a missed 08:00 posts it late, once, saying so', async ({ scheduledPair, slack }) => {
      // 10:00 in Lagos, nobody ran at 08:00
      const { a, b, clock, first } = await scheduledPair(
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
      scheduledPair,
      slack,
    }) => {
      const { clock, first, second } = await scheduledPair(
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

    test('a restart after the run was posted posts nothing', async ({ scheduledPair, slack }) => {
      const { a, clock, first } = await scheduledPair(`report-restart-${kind.name}`, '2026-11-26T07:00:01Z');
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

    test('a first start seconds after 08:00 posts the run on time', async ({ scheduledPair, slack }) => {
      // 08:00:05 in Lagos, the schedule set with this start
      const { first } = await scheduledPair(`report-grace-${kind.name}`, '2026-11-26T07:00:05Z', {
        scheduleSetAt: null,
      });
      await first.start();
      expect(summaries(slack)).toHaveLength(1);
      expect(summaries(slack)[0]).not.toContain('posted late');
    });

    test("the reads are told to end a minute before the build's 10-minute cut", async ({ scheduledPair }) => {
      const source = fixedReportSource();
      const { first, clock } = await scheduledPair(`report-deadline-${kind.name}`, '2026-11-26T07:00:05Z', {
        sources: [source],
        timing: { buildLimitMs: 10 * MINUTE },
      });
      await first.start();
      expect(source.deadlines).toEqual([clock.now.getTime() + 9 * MINUTE]);
    });

    test('at the cut the build is told to stop its reads, and the attempt fails', async ({
      scheduledPair,
    }) => {
      const { source, building } = hangingSource();
      const build = source.build.bind(source);
      let given: AbortSignal | undefined;
      source.build = (period, options) => {
        given = options?.signal;
        return build(period, options);
      };
      const cut = new AbortController();
      const { first } = await scheduledPair(`report-cut-${kind.name}`, '2026-11-26T07:00:05Z', {
        sources: [source],
        timing: { buildCut: () => cut.signal },
      });
      const outcome = first.check(true);
      await building;
      expect(given?.aborted).toBe(false);
      cut.abort(new Error('the report took longer than 600000 ms to make'));
      // The build never comes back by itself: the attempt ends at the cut, its reads told to stop.
      expect(await outcome).toBe('retrying');
      expect(given?.aborted).toBe(true);
    });

    test('a bot that ran the schedule before its start was recorded still posts a run it missed, late', async ({
      scheduledPair,
      slack,
    }) => {
      // No record of when the schedule was set, but the run before the missed one is in the store.
      const { a, first } = await scheduledPair(`report-upgrade-${kind.name}`, '2026-11-26T09:00:00Z', {
        scheduleSetAt: null,
      });
      await a.set('report-run:daily:2026-11-24', {
        state: 'posted',
        due: '2026-11-25T07:00:00.000Z',
        owner: 'before',
        leaseUntil: Date.parse('2026-11-25T07:01:00Z'),
        attempts: 1,
        failures: 0,
        parts: ['chart', 'summary', 'csv'],
      });
      expect(await first.check(true)).toBe('posted-late');
      expect(summaries(slack)[0]).toContain('Wednesday 25 November 2026');
    });

    test('a look held up past 08:00 posts the run late, saying so', async ({ scheduledPair, slack }) => {
      // The replica was running (this is not its first look) but looked only at 08:20.
      const { first } = await scheduledPair(`report-held-${kind.name}`, '2026-11-26T07:20:00Z');
      expect(await first.check()).toBe('posted-late');
      expect(summaries(slack)[0]).toContain(HELD_UP);
    });

    test('a replica that could not reach its store at 08:00 says so when it posts late', async ({
      oneReplica,
      slack,
      defer,
    }) => {
      const a = await oneReplica(`report-unreached-${kind.name}`);
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

    test('a run posted late after failed attempts says so', async ({ scheduledPair, slack }) => {
      const source = failingSource(1);
      const { clock, first, second } = await scheduledPair(
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

  storesTest(
    'posts a part Slack took but whose answer was lost once, not again behind its back',
    async ({ defer }) => {
      const store = await createStore('memory://');
      defer(() => store.close());
      await scheduleSet(store);
      const slack = await FakeSlack.start();
      defer(() => slack.stop());
      slack.loseAnswer('chat.postMessage', (c) => c.body.channel === CHANNEL);
      const h = await startHarness({
        store,
        slack,
        now: () => new Date('2026-11-26T09:00:00Z'),
        reportSource: fixedReportSource(),
        config: { report: { schedule: parseReportSchedule('daily 08:00'), channel: CHANNEL } },
      });
      defer(() => h.stop());
      // The attempt ends: failed at the lost answer (it is tried again in five minutes), or posted.
      const record = () => store.get<RunRecord>('report-run:daily:sandbox:2026-11-25');
      await expect
        .poll(async () => (await record())?.failures === 1 || (await record())?.state === 'posted', {
          timeout: 30_000,
        })
        .toBe(true);
      expect(summaries(slack)).toHaveLength(1);
      expect(await record()).toMatchObject({ state: 'posting', failures: 1, parts: ['chart'] });
    },
  );
});
