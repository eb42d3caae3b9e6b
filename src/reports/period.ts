// The periods a treasury report covers, in Lagos days (Africa/Lagos): what `/cngn report` takes
// (today, yesterday, 7d, 30d, a month) and what the schedule reports on (one day, one Monday–Sunday
// week). Pure: the caller passes `now`.
import { TZDate } from '@date-fns/tz';
import type { ReportPeriod } from './types.js';

const LAGOS = 'Africa/Lagos';

export const PERIOD_USAGE = 'report takes today, yesterday, 7d, 30d or a month like 2026-11';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** The start of the Lagos day `offset` days after the one `at` falls on. */
export function lagosDayStart(at: Date, offset = 0): Date {
  const local = new TZDate(at.getTime(), LAGOS);
  return new Date(
    new TZDate(local.getFullYear(), local.getMonth(), local.getDate() + offset, LAGOS).getTime(),
  );
}

/** `2026-11-26`: the Lagos day `at` falls on. */
export function lagosDayName(at: Date): string {
  const local = new TZDate(at.getTime(), LAGOS);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
}

/** `Wednesday 25 November 2026`. */
function lagosDayWords(at: Date): string {
  const local = new TZDate(at.getTime(), LAGOS);
  return `${WEEKDAYS[local.getDay()]} ${local.getDate()} ${MONTHS[local.getMonth()]} ${local.getFullYear()}`;
}

/** The Lagos days from `first` (a day's start) up to `to` (exclusive), at least one. */
function daysFrom(first: Date, to: Date): string[] {
  const days: string[] = [];
  for (let day = first; day.getTime() < to.getTime() || days.length === 0; day = lagosDayStart(day, 1)) {
    days.push(lagosDayName(day));
  }
  return days;
}

function period(label: string, from: Date, to: Date): ReportPeriod {
  return { label, from, to, days: daysFrom(from, to) };
}

/** The last `count` Lagos days, today included, up to now. */
function lastDays(count: number, now: Date): ReportPeriod {
  return period(`last ${count} days`, lagosDayStart(now, 1 - count), now);
}

const MONTH = /^(\d{4})-(\d{2})$/;

/**
 * `/cngn report`'s word (none: 7d) as a period, or why it is none. A month still running ends now; one
 * that has not begun is refused.
 */
export function parsePeriod(word: string | undefined, now: Date): ReportPeriod | { error: string } {
  const w = (word ?? '7d').trim().toLowerCase();
  if (w === 'today') return period('today', lagosDayStart(now), now);
  if (w === 'yesterday') return period('yesterday', lagosDayStart(now, -1), lagosDayStart(now));
  if (w === '7d') return lastDays(7, now);
  if (w === '30d') return lastDays(30, now);
  const month = MONTH.exec(w);
  if (!month) return { error: `The ${PERIOD_USAGE}.` };
  const [year, index] = [Number(month[1]), Number(month[2]) - 1];
  if (index < 0 || index > 11 || year < 2000) return { error: `\`${w}\` is no month: the ${PERIOD_USAGE}.` };
  const label = `${MONTHS[index]} ${year}`;
  const from = new Date(new TZDate(year, index, 1, LAGOS).getTime());
  if (from.getTime() > now.getTime()) return { error: `${label} has not begun yet.` };
  const next = new Date(new TZDate(year, index + 1, 1, LAGOS).getTime());
  return period(label, from, next.getTime() < now.getTime() ? next : now);
}

/** One whole Lagos day (the daily schedule's), named by its date. */
export function dayPeriod(dayStart: Date): ReportPeriod {
  return period(lagosDayWords(dayStart), dayStart, lagosDayStart(dayStart, 1));
}

/** The Monday–Sunday week starting `monday` (the weekly schedule's), named by its dates. */
export function weekPeriod(monday: Date): ReportPeriod {
  const [first, last] = [
    new TZDate(monday.getTime(), LAGOS),
    new TZDate(lagosDayStart(monday, 6).getTime(), LAGOS),
  ];
  const start =
    first.getMonth() === last.getMonth()
      ? `${first.getDate()}`
      : `${first.getDate()} ${MONTHS[first.getMonth()]}${first.getFullYear() === last.getFullYear() ? '' : ` ${first.getFullYear()}`}`;
  const label = `week of ${start}–${last.getDate()} ${MONTHS[last.getMonth()]} ${last.getFullYear()}`;
  return period(label, monday, lagosDayStart(monday, 7));
}
