// The words of the report chart: its day labels, its figures summed exactly, and the alt text that says
// in words what the picture shows (Slack shows it to screen readers and as the file's title).
import { lagosTime, naira } from '../format/display.js';
import { Money } from '../format/money.js';
import type { ChartInput, DayFigures } from './types.js';

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Lagos has kept UTC+1 all year since 1919, so a Lagos day starts at 23:00 UTC the day before. */
const LAGOS_OFFSET_MS = 3_600_000;

interface CalendarDay {
  weekday: string;
  day: number;
  month: string;
  year: number;
}

function calendarDay(day: string): CalendarDay | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (Number.isNaN(date.getTime())) return undefined;
  return {
    weekday: WEEKDAYS[date.getUTCDay()] ?? '',
    day: date.getUTCDate(),
    month: MONTHS[date.getUTCMonth()] ?? '',
    year: date.getUTCFullYear(),
  };
}

/** `Mon 23 Nov` for the Lagos day `2026-11-23`; anything else is shown as sent. */
export function dayLabel(day: string): string {
  const c = calendarDay(day);
  return c ? `${c.weekday} ${c.day} ${c.month}` : day;
}

/** `Mon 23 Nov 2026`. */
function dayWithYear(day: string): string {
  const c = calendarDay(day);
  return c ? `${c.weekday} ${c.day} ${c.month} ${c.year}` : day;
}

/**
 * How many of the chart's first days the figures do not cover whole: the days that started before
 * `completeFrom` (the day it falls in included, unless it is that day's first moment).
 */
export function incompleteDays(days: readonly DayFigures[], completeFrom: string | undefined): number {
  if (!completeFrom) return 0;
  const from = new Date(completeFrom).getTime();
  if (Number.isNaN(from)) return 0;
  return days.filter((d) => {
    const start = Date.parse(`${d.day}T00:00:00Z`) - LAGOS_OFFSET_MS;
    return start < from;
  }).length;
}

/** `Figures complete from Tue 24 Nov 2026, 10:00 WAT`. */
export function completeFromText(completeFrom: string): string {
  return `Figures complete from ${lagosTime(completeFrom)}`;
}

function amount(text: string): Money {
  try {
    return Money.parseDecimal(text);
  } catch {
    // A figure the report could not read counts as nothing rather than as a guess.
    return Money.zero();
  }
}

export interface ChartTotals {
  inflow: Money;
  outflow: Money;
  /** Whether any day has a movement. */
  moved: boolean;
}

export function chartTotals(days: readonly DayFigures[]): ChartTotals {
  let inflow = Money.zero();
  let outflow = Money.zero();
  for (const d of days) {
    inflow = inflow.plus(amount(d.inflow));
    outflow = outflow.plus(amount(d.outflow));
  }
  return { inflow, outflow, moved: inflow.isPositive() || outflow.isPositive() };
}

/** `Mon 16 Nov to Sun 22 Nov 2026`, `Mon 16 Nov 2026`. */
function periodText(days: readonly DayFigures[]): string {
  const first = days[0];
  const last = days.at(-1);
  if (!first || !last) return '';
  if (first === last) return dayWithYear(first.day);
  const sameYear = calendarDay(first.day)?.year === calendarDay(last.day)?.year;
  return `${sameYear ? dayLabel(first.day) : dayWithYear(first.day)} to ${dayWithYear(last.day)}`;
}

/** The figures line under the title: what the period did, in exact amounts. */
export function figuresLine(days: readonly DayFigures[], opening?: string): string {
  const first = days[0];
  const last = days.at(-1);
  if (!first || !last) return 'No figures for this period';
  const totals = chartTotals(days);
  // With the opening balance, the line reads as the summary's does: opening → closing.
  const balance = opening
    ? `Opening ${naira(opening)} → closing ${naira(last.closing)}`
    : first === last
      ? `Closing ${naira(last.closing)}`
      : `Closing ${naira(first.closing)} → ${naira(last.closing)}`;
  return `${balance}  ·  in ${naira(totals.inflow.toString())}  ·  out ${naira(totals.outflow.toString())}`;
}

export interface ReadFlags {
  unconfirmed?: boolean | undefined;
  cutShort?: boolean | undefined;
  /** Movements whose amounts could not be read (none when 0 or unset). */
  unreadable?: number | undefined;
}

/** `3 amounts not counted`: movements whose amounts could not be read are in no figure. */
const notCounted = (n: number) => `${n} ${n === 1 ? 'amount' : 'amounts'} not counted`;

/**
 * `unconfirmed`, `cut short` or both, when the figures rest on less than a whole read at one moment:
 * said in the chart's title, its alt text and its file title, so a picture seen on its own (forwarded,
 * previewed) never looks confirmed.
 */
export function readCaveat(flags: ReadFlags): string | undefined {
  const words = [
    flags.unconfirmed && 'unconfirmed',
    flags.cutShort && 'cut short',
    flags.unreadable && notCounted(flags.unreadable),
  ].filter(Boolean);
  return words.length > 0 ? words.join(', ') : undefined;
}

/** `cNGN treasury — last 7 days (sandbox) · unconfirmed`, or the title alone. */
export function withCaveat(title: string, flags: ReadFlags): string {
  const caveat = readCaveat(flags);
  return caveat ? `${title} · ${caveat}` : title;
}

/** What the caveat means, in the words the summary's notes use. */
const UNCONFIRMED =
  'Unconfirmed: money moved while the report was read, so the figures may be off by the latest movements.';
const CUT_SHORT =
  "Cut short: the read of the service's transactions stopped to keep within its request budget.";

const unreadableText = (n: number) =>
  `Not counted: ${n === 1 ? "1 transaction's amount" : `${n} transactions' amounts`} could not be read; the report's notes name them.`;

/** What each caveat of `flags` means, a sentence each, each after a space. */
function caveatsSaid(flags: ReadFlags): string {
  return [
    flags.unconfirmed && ` ${UNCONFIRMED}`,
    flags.cutShort && ` ${CUT_SHORT}`,
    flags.unreadable && ` ${unreadableText(flags.unreadable)}`,
  ]
    .filter(Boolean)
    .join('');
}

/** The period's figures in words, for the image's alt text and file title. */
export function chartAlt(input: ChartInput): string {
  const days = input.days;
  const first = days[0];
  const last = days.at(-1);
  let body = 'no figures for this period.';
  if (first && last) {
    const totals = chartTotals(days);
    const count = `${days.length} ${days.length === 1 ? 'day' : 'days'}`;
    const balance = input.opening
      ? `opening balance ${naira(input.opening)}, closing balance ${naira(last.closing)} on ${dayLabel(last.day)}`
      : first === last
        ? `closing balance ${naira(last.closing)} on ${dayLabel(last.day)}`
        : `closing balance ${naira(first.closing)} on ${dayLabel(first.day)}, ${naira(last.closing)} on ${dayLabel(last.day)}`;
    const moves = totals.moved
      ? `inflows ${naira(totals.inflow.toString())}, outflows ${naira(totals.outflow.toString())} over ${count}`
      : `no movements over ${count}`;
    body = `${periodText(days)}: ${balance}; ${moves}.`;
  }
  const complete = input.completeFrom ? ` ${completeFromText(input.completeFrom)}.` : '';
  const why = caveatsSaid(input);
  const title = titleWithEnvironment(input);
  // The caveat right after the title, in the first words a preview or a screen reader gives.
  const caveat = readCaveat(input);
  const head = caveat
    ? `${title} · ${caveat}. ${body.charAt(0).toUpperCase()}${body.slice(1)}`
    : `${title}, ${body}`;
  return `${head}${complete}${why}`;
}

/** The title as given, with the environment added when the title does not name it. */
export function titleWithEnvironment(input: ChartInput): string {
  return input.title.includes(`(${input.environment})`)
    ? input.title
    : `${input.title} (${input.environment})`;
}
