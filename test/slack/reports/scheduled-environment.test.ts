// The scheduled report's runs are named by the environment and key whose transactions they report:
// a bot restarted on live keys over the store its sandbox run used posts the live report, and a run an
// older version recorded under its former name (no environment in it) is not posted a second time.
import { describe, expect } from 'vitest';
import type { Report } from '../../../src/reports/types.js';
import type { Store } from '../../../src/store/index.js';
import { type FixedReportSource, fixedReportSource } from '../../support/report-source.js';
import { RUN_KEY, replica, summaries, scheduledTest as test } from '../../support/scheduled-reports.js';

/** The fixed figures as a bot on live keys reads them. */
function liveSource(): FixedReportSource {
  const source = fixedReportSource();
  const build = source.build.bind(source);
  return Object.assign(source, {
    scope: 'live:live-key',
    build: async (...args: Parameters<typeof build>): Promise<Report> => {
      const report = await build(...args);
      return { ...report, treasury: { ...report.treasury, environment: 'live' as const } };
    },
  });
}

/** The schedule as an older version marked it, set on 1 November. */
const markedBefore = (store: Store) =>
  store.set('report-schedule', { schedule: 'daily 08:00', since: '2026-11-01T00:00:00Z' });

describe('on memory', () => {
  test.override('storeKind', 'memory');

  test('a bot restarted on live keys posts the live report the sandbox bot already posted', async ({
    replicas,
    slack,
  }) => {
    const { a } = await replicas('report-env-key');
    await markedBefore(a);
    const clock = { now: new Date('2026-11-26T07:00:01Z') };
    const sandbox = replica(slack, a, clock);
    expect(await sandbox.check()).toBe('posted');
    await sandbox.stop();

    clock.now = new Date('2026-11-26T07:10:00Z');
    const live = replica(slack, a, clock, liveSource());
    expect(await live.check()).toBe('posted');
    await live.stop();
    expect(summaries(slack).filter((s) => s.includes('(live)'))).toHaveLength(1);
    expect(summaries(slack).filter((s) => s.includes('(sandbox)'))).toHaveLength(1);
    expect(await a.get('report-run:daily:live:live-key:2026-11-25')).toMatchObject({ state: 'posted' });
  });

  test('a run an older version posted under its former name is not posted again after the upgrade', async ({
    replicas,
    slack,
  }) => {
    const { a } = await replicas('report-former-name');
    await markedBefore(a);
    await a.set('report-run:daily:2026-11-25', {
      state: 'posted',
      due: '2026-11-26T07:00:00.000Z',
      owner: 'older version',
      leaseUntil: Date.parse('2026-11-26T07:01:00Z'),
      attempts: 1,
      failures: 0,
      parts: ['chart', 'summary', 'csv'],
    });
    const upgraded = replica(slack, a, { now: new Date('2026-11-26T07:05:00Z') });
    expect(await upgraded.check(true)).toBe('already-done');
    await upgraded.stop();
    expect(summaries(slack)).toEqual([]);
    expect(await a.get(RUN_KEY)).toBeUndefined();
    // The schedule's mark is taken over under the new name: the next day's run is named by its scope.
    expect(await a.get('report-schedule:sandbox:test-key')).toEqual({
      schedule: 'daily 08:00',
      since: '2026-11-01T00:00:00Z',
    });
  });

  test('a run an older version left half-posted under its former name is finished there', async ({
    replicas,
    slack,
  }) => {
    const { a } = await replicas('report-former-half');
    await markedBefore(a);
    await a.set('report-run:daily:2026-11-25', {
      state: 'posting',
      due: '2026-11-26T07:00:00.000Z',
      owner: 'older version',
      leaseUntil: Date.parse('2026-11-26T07:01:00Z'),
      attempts: 1,
      failures: 0,
      parts: ['chart'],
    });
    const upgraded = replica(slack, a, { now: new Date('2026-11-26T07:10:00Z') });
    expect(await upgraded.check(true)).toMatch(/^posted/);
    await upgraded.stop();
    expect(summaries(slack)).toHaveLength(1);
    expect(await a.get('report-run:daily:2026-11-25')).toMatchObject({ state: 'posted' });
    expect(await a.get(RUN_KEY)).toBeUndefined();
  });
});
