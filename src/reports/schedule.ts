// The scheduled treasury report (CNGN_REPORT_SCHEDULE): when it is due, in Lagos time, and which
// period each run reports on. A run is named by the service environment whose report it is and its
// period, so replicas and restarts agree on it and its record under that name (run-lease.ts) makes
// it post once per environment. Pure: the caller passes `now`.
import { TZDate } from '@date-fns/tz';
import { dayPeriod, lagosDayName, lagosDayStart, weekPeriod } from './period.js';
import type { ReportPeriod } from './types.js';

const LAGOS = 'Africa/Lagos';
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

export type ReportSchedule =
  | { every: 'daily'; hour: number; minute: number }
  | { every: 'weekly'; weekday: number; hour: number; minute: number };

/** The scheduled report's settings, as the configuration gives them. */
export interface ReportConfig {
  /** CNGN_REPORT_SCHEDULE; unset: no scheduled report. */
  schedule: ReportSchedule | undefined;
  /** CNGN_REPORT_CHANNEL, else CNGN_ALERTS_CHANNEL. */
  channel: string | undefined;
}

/** One run of the schedule: when it was due, the period it reports on, and its name in the store. */
export interface ScheduledRun {
  due: Date;
  period: ReportPeriod;
  /** `report-run:daily:<environment>:<day>`: each environment posts its own. */
  key: string;
  /** The name older versions gave the run, naming no environment (`report-run:daily:<day>`). */
  formerKey: string;
}

const FORM = /^(daily|weekly\s+(sun|mon|tue|wed|thu|fri|sat))\s+([01]?\d|2[0-3]):([0-5]\d)$/;

/** `daily 08:00` or `weekly mon 08:00` (Lagos time); throws with what is expected. */
export function parseReportSchedule(text: string): ReportSchedule {
  const match = FORM.exec(text.trim().toLowerCase().replace(/\s+/g, ' '));
  if (!match)
    throw new Error('must be `daily HH:MM` or `weekly <mon…sun> HH:MM` (Lagos time), e.g. daily 08:00');
  const [hour, minute] = [Number(match[3]), Number(match[4])];
  const day = match[2] as (typeof WEEKDAYS)[number] | undefined;
  return day
    ? { every: 'weekly', weekday: WEEKDAYS.indexOf(day), hour, minute }
    : { every: 'daily', hour, minute };
}

/** `08:00`, as the "posted late" note says it. */
export function dueTime(schedule: ReportSchedule): string {
  return `${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
}

/** The time `schedule` is due on the Lagos day starting `dayStart`. */
function dueOn(schedule: ReportSchedule, dayStart: Date): Date {
  const day = new TZDate(dayStart.getTime(), LAGOS);
  return new Date(
    new TZDate(
      day.getFullYear(),
      day.getMonth(),
      day.getDate(),
      schedule.hour,
      schedule.minute,
      LAGOS,
    ).getTime(),
  );
}

function runDueOn(schedule: ReportSchedule, dayStart: Date, environment: string): ScheduledRun {
  const due = dueOn(schedule, dayStart);
  const named = (period: ReportPeriod, first: Date): ScheduledRun => {
    const day = lagosDayName(first);
    return {
      due,
      period,
      key: `report-run:${schedule.every}:${environment}:${day}`,
      formerKey: `report-run:${schedule.every}:${day}`,
    };
  };
  if (schedule.every === 'daily')
    return named(dayPeriod(lagosDayStart(dayStart, -1)), lagosDayStart(dayStart, -1));
  const monday = lagosDayStart(dayStart, -7 - ((new TZDate(dayStart.getTime(), LAGOS).getDay() + 6) % 7));
  return named(weekPeriod(monday), monday);
}

function isRunDay(schedule: ReportSchedule, dayStart: Date): boolean {
  return schedule.every === 'daily' || new TZDate(dayStart.getTime(), LAGOS).getDay() === schedule.weekday;
}

/** The last run due at or before `now`, of `environment`'s report. */
export function latestRun(schedule: ReportSchedule, now: Date, environment: string): ScheduledRun {
  for (let back = 0; ; back++) {
    const dayStart = lagosDayStart(now, -back);
    if (isRunDay(schedule, dayStart) && dueOn(schedule, dayStart).getTime() <= now.getTime()) {
      return runDueOn(schedule, dayStart, environment);
    }
  }
}

/** When the next run after `now` is due. */
export function nextDue(schedule: ReportSchedule, now: Date): Date {
  for (let ahead = 0; ; ahead++) {
    const dayStart = lagosDayStart(now, ahead);
    const due = dueOn(schedule, dayStart);
    if (isRunDay(schedule, dayStart) && due.getTime() > now.getTime()) return due;
  }
}

/** The run due before `run`, of `environment`'s report. */
export function previousRun(schedule: ReportSchedule, run: ScheduledRun, environment: string): ScheduledRun {
  return latestRun(schedule, new Date(run.due.getTime() - 1), environment);
}

/** `daily 08:00` or `weekly mon 08:00`, as the setting is written. */
export function scheduleText(schedule: ReportSchedule): string {
  const every = schedule.every === 'daily' ? 'daily' : `weekly ${WEEKDAYS[schedule.weekday]}`;
  return `${every} ${dueTime(schedule)}`;
}
