// The scheduled report on each store kind: two replicas on one store post a run once; a restart that
// missed the run posts it late, once, saying so; a restart that did not miss it posts nothing. The
// clock is the test's; the posts go to a fake Slack through a real WebClient.
import { WebClient } from '@slack/web-api';
import { describe, expect } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { parseReportSchedule } from '../../../src/reports/schedule.js';
import { ScheduledReports } from '../../../src/slack/reports/scheduled.js';
import type { Store } from '../../../src/store/index.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { startHarness } from '../../support/harness.js';
import { fixedReportSource } from '../../support/report-source.js';
import { STORE_KINDS, storesTest } from '../../support/shared-stores.js';

const CHANNEL = 'CREPORTS';
const LATE = '(posted late: the bot was not running at 08:00)';
const test = storesTest.extend('slack', async ({ defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  return slack;
});

/** One replica's schedule on `store`, reading the time from `clock`. */
function replica(slack: FakeSlack, store: Store, clock: { now: Date }) {
  return new ScheduledReports({
    schedule: parseReportSchedule('daily 08:00'),
    channel: CHANNEL,
    store,
    client: new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl }),
    source: fixedReportSource(),
    now: () => clock.now,
    logger: silentLogger,
  });
}

/** The summaries posted to the report channel, as text. */
const summaries = (slack: FakeSlack) =>
  slack.callsTo('chat.postMessage').map((c) => JSON.stringify(c.body.blocks));

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the scheduled report on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('two replicas at 08:00 post the run once', async ({ replicas, slack }) => {
      const { a, b } = await replicas(`report-twice-${kind.name}`);
      const clock = { now: new Date('2026-11-26T07:00:00.500Z') }; // 08:00:00.5 in Lagos
      const [first, second] = [replica(slack, a, clock), replica(slack, b, clock)];
      const outcomes = await Promise.all([first.check(), second.check()]);
      expect(outcomes.sort()).toEqual(['already-claimed', 'posted']);
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
  });
}

describe('a scheduled run that fails', () => {
  test('tells the channel in one sentence and is not tried again', async ({ replicas, slack }) => {
    const { a } = await replicas('report-fails');
    const clock = { now: new Date('2026-11-26T07:00:01Z') };
    const source = fixedReportSource();
    source.failWith = new Error('the history could not be read');
    const runner = new ScheduledReports({
      schedule: parseReportSchedule('daily 08:00'),
      channel: CHANNEL,
      store: a,
      client: new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl }),
      source,
      now: () => clock.now,
      logger: silentLogger,
    });
    expect(await runner.check()).toBe('failed');
    const [told] = slack.callsTo('chat.postMessage');
    expect(String(told?.body.text)).toMatch(
      /^Your report for Wednesday 25 November 2026 could not be made; try again shortly, quoting reference `[0-9a-f]{8}`/,
    );
    expect(slack.sharedFiles()).toHaveLength(0);
    expect(await runner.check()).toBe('already-claimed');
    expect(slack.callsTo('chat.postMessage')).toHaveLength(1);
    await runner.stop();
  });
});

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
