// CNGN_REPORT_SCHEDULE: its two forms, when each run is due in Lagos time (UTC+1), the period it
// reports on and the name its claim is stored under.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { latestRun, nextDue, parseReportSchedule } from '../../src/reports/schedule.js';

const at = (iso: string) => new Date(iso);
const DAILY = parseReportSchedule('daily 08:00');
const WEEKLY = parseReportSchedule('weekly mon 08:00');

/** The least a Slack bot in HTTP mode needs, and `more`. */
const env = (more: Record<string, string>) => ({
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 's',
  ...more,
});

describe('parseReportSchedule', () => {
  it('reads daily and weekly times, in any case and spacing', () => {
    expect(DAILY).toEqual({ every: 'daily', hour: 8, minute: 0 });
    expect(parseReportSchedule(' Weekly  FRI 8:05 ')).toEqual({
      every: 'weekly',
      weekday: 5,
      hour: 8,
      minute: 5,
    });
  });

  it('refuses anything else, saying what it takes', () => {
    for (const text of ['hourly', 'daily 25:00', 'daily 8', 'weekly 08:00', 'weekly someday 08:00']) {
      expect(() => parseReportSchedule(text), text).toThrow(
        'must be `daily HH:MM` or `weekly <mon…sun> HH:MM`',
      );
    }
  });

  it('is checked by the configuration, which needs a channel to post to', () => {
    expect(() =>
      loadConfig(env({ CNGN_REPORT_SCHEDULE: 'sometimes', CNGN_ALERTS_CHANNEL: 'CALERTS' })),
    ).toThrow(/CNGN_REPORT_SCHEDULE: must be `daily HH:MM`/);
    expect(() => loadConfig(env({ CNGN_REPORT_SCHEDULE: 'daily 08:00' }))).toThrow(ConfigError);
    expect(() => loadConfig(env({ CNGN_REPORT_SCHEDULE: 'daily 08:00' }))).toThrow(
      /CNGN_REPORT_CHANNEL: needed/,
    );
    expect(
      loadConfig(env({ CNGN_REPORT_SCHEDULE: 'daily 08:00', CNGN_ALERTS_CHANNEL: 'CALERTS' })).report,
    ).toEqual({
      schedule: DAILY,
      channel: 'CALERTS',
    });
    expect(loadConfig(env({})).report).toEqual({ schedule: undefined, channel: undefined });
  });
});

describe('the runs of a daily schedule', () => {
  it("after 08:00 Lagos the latest run is today's, reporting yesterday", () => {
    const run = latestRun(DAILY, at('2026-11-26T07:00:00Z'), 'live');
    expect(run.due.toISOString()).toBe('2026-11-26T07:00:00.000Z');
    expect(run.key).toBe('report-run:daily:live:2026-11-25');
    expect(run.formerKey).toBe('report-run:daily:2026-11-25');
    expect(run.period).toMatchObject({ label: 'Wednesday 25 November 2026', days: ['2026-11-25'] });
  });

  it("before 08:00 Lagos it is yesterday's, and the next is due at 08:00", () => {
    const now = at('2026-11-26T06:59:59Z');
    expect(latestRun(DAILY, now, 'live').key).toBe('report-run:daily:live:2026-11-24');
    expect(nextDue(DAILY, now).toISOString()).toBe('2026-11-26T07:00:00.000Z');
  });
});

describe('the runs of a weekly schedule', () => {
  it('reports the last Monday–Sunday week, on Mondays', () => {
    const run = latestRun(WEEKLY, at('2026-11-26T10:00:00Z'), 'sandbox'); // a Thursday
    expect(run.due.toISOString()).toBe('2026-11-23T07:00:00.000Z');
    expect(run.key).toBe('report-run:weekly:sandbox:2026-11-16');
    expect(run.period.label).toBe('week of 16–22 November 2026');
    expect(run.period.days).toEqual([
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
    ]);
    expect(nextDue(WEEKLY, at('2026-11-26T10:00:00Z')).toISOString()).toBe('2026-11-30T07:00:00.000Z');
  });
});
