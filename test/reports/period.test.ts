// `/cngn report`'s periods and the schedule's, in Lagos days (UTC+1): a day starts at 23:00 UTC.
import { describe, expect, it } from 'vitest';
import { dayPeriod, parsePeriod, weekPeriod } from '../../src/reports/period.js';
import type { ReportPeriod } from '../../src/reports/types.js';

const at = (iso: string) => new Date(iso);

function period(word: string | undefined, now: string): ReportPeriod {
  const answer = parsePeriod(word, at(now));
  if ('error' in answer) throw new Error(answer.error);
  return answer;
}

describe('parsePeriod', () => {
  it('takes today as the Lagos day so far, which began at 23:00 UTC the evening before', () => {
    const today = period('today', '2026-11-25T23:30:00Z');
    expect(today).toMatchObject({ label: 'today', days: ['2026-11-26'] });
    expect(today.from.toISOString()).toBe('2026-11-25T23:00:00.000Z');
    expect(today.to.toISOString()).toBe('2026-11-25T23:30:00.000Z');
  });

  it('takes yesterday as the whole Lagos day before today', () => {
    const yesterday = period('Yesterday', '2026-11-26T22:59:00Z');
    expect(yesterday).toMatchObject({ label: 'yesterday', days: ['2026-11-25'] });
    expect(yesterday.from.toISOString()).toBe('2026-11-24T23:00:00.000Z');
    expect(yesterday.to.toISOString()).toBe('2026-11-25T23:00:00.000Z');
  });

  it('takes 7d by default: the last 7 Lagos days including today, up to now', () => {
    const week = period(undefined, '2026-11-26T10:00:00Z');
    expect(week.label).toBe('last 7 days');
    expect(week.days).toEqual([
      '2026-11-20',
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
    ]);
    expect(week.from.toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(week.to.toISOString()).toBe('2026-11-26T10:00:00.000Z');
  });

  it('takes 30d across a month end', () => {
    const month = period('30d', '2026-12-05T12:00:00Z');
    expect(month.label).toBe('last 30 days');
    expect(month.days).toHaveLength(30);
    expect(month.days[0]).toBe('2026-11-06');
    expect(month.days.at(-1)).toBe('2026-12-05');
  });

  it('takes a past month whole, and the running month up to now', () => {
    const october = period('2026-10', '2026-11-26T10:00:00Z');
    expect(october.label).toBe('October 2026');
    expect(october.days).toHaveLength(31);
    expect(october.from.toISOString()).toBe('2026-09-30T23:00:00.000Z');
    expect(october.to.toISOString()).toBe('2026-10-31T23:00:00.000Z');
    const november = period('2026-11', '2026-11-26T10:00:00Z');
    expect(november.label).toBe('November 2026');
    expect(november.days).toHaveLength(26);
    expect(november.to.toISOString()).toBe('2026-11-26T10:00:00.000Z');
  });

  it('counts a month from Lagos midnight: at 23:30 UTC on the 30th it is already December in Lagos', () => {
    expect(period('2026-12', '2026-11-30T23:30:00Z').days).toEqual(['2026-12-01']);
    expect(parsePeriod('2026-12', at('2026-11-30T22:30:00Z'))).toEqual({
      error: 'December 2026 has not begun yet.',
    });
  });

  it('refuses a future month, a month that is none, and other words, saying what it takes', () => {
    expect(parsePeriod('2027-01', at('2026-11-26T10:00:00Z'))).toEqual({
      error: 'January 2027 has not begun yet.',
    });
    expect(parsePeriod('2026-13', at('2026-11-26T10:00:00Z'))).toMatchObject({
      error: expect.stringContaining('report takes today, yesterday, 7d, 30d or a month like 2026-11'),
    });
    expect(parsePeriod('week', at('2026-11-26T10:00:00Z'))).toEqual({
      error: 'The report takes today, yesterday, 7d, 30d or a month like 2026-11.',
    });
  });
});

describe("the schedule's periods", () => {
  it('names a day by its date and covers it whole', () => {
    const day = dayPeriod(at('2026-11-24T23:00:00Z'));
    expect(day).toMatchObject({ label: 'Wednesday 25 November 2026', days: ['2026-11-25'] });
    expect(day.to.toISOString()).toBe('2026-11-25T23:00:00.000Z');
  });

  it('covers a Monday–Sunday week, across a month end too', () => {
    const week = weekPeriod(at('2026-11-29T23:00:00Z'));
    expect(week.label).toBe('week of 30 November–6 December 2026');
    expect(week.days).toHaveLength(7);
    expect(weekPeriod(at('2026-11-15T23:00:00Z')).label).toBe('week of 16–22 November 2026');
  });
});
