// Pure formatters shared by every message: ₦ amounts, Lagos times (absolute and relative), masked
// accounts, short hashes, receivers, status words, the environment marker. Plain text: a caller that
// puts one of these into mrkdwn escapes it (format/mrkdwn.ts); explorer links are in format/explorer.ts.
// No I/O, no clock reads: callers pass `now`.
import { formatDistanceStrict } from 'date-fns';
import type { CngnEnvironment } from './environment.js';
import { isPlainAmount, Money } from './money.js';
import { outsideTime } from './outside-time.js';

const LAGOS = 'Africa/Lagos';

/** `₦1,500,000.00`; text that is not a 2-decimal amount (raw chain units) is shown as sent. */
export function naira(amount: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  let money: Money;
  try {
    money = Money.parseDecimal(amount);
  } catch {
    // Never a figure for what is no amount (`1e309`, `-5.4e-323`): it is shown as text, cut short.
    return invalidAmountText(amount);
  }
  const [whole = '0', fraction = '00'] = money.toString().replace('-', '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${money.toString().startsWith('-') ? '-' : ''}₦${grouped}.${fraction}`;
}

/** How much of an amount from outside that is no amount is shown. */
const INVALID_AMOUNT_SHOWN = 24;

/**
 * An amount from outside (a webhook's, the service's): `₦1,500.00` when it is a plain amount (see
 * isPlainAmount), else the text as sent, cut, and said to be no amount — never a figure.
 */
export function serviceAmount(amount: string): string {
  if (amount === '' || isPlainAmount(amount)) return naira(amount);
  return invalidAmountText(amount);
}

function invalidAmountText(amount: string): string {
  const cut = amount.length > INVALID_AMOUNT_SHOWN ? `${amount.slice(0, INVALID_AMOUNT_SHOWN)}…` : amount;
  return `not a valid amount: "${cut}"`;
}

// One Intl formatter for every Lagos time, built once and on first use: it maps ICU's locale and
// time-zone data into the process, which a bot that has shown no time yet need not hold
// (docs/decisions/idle-memory-flags.md).
let lagosFormat: Intl.DateTimeFormat | undefined;

function lagosFormatter(): Intl.DateTimeFormat {
  lagosFormat ??= new Intl.DateTimeFormat('en-US', {
    timeZone: LAGOS,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  return lagosFormat;
}

type LagosParts = Record<'weekday' | 'day' | 'month' | 'year' | 'hour' | 'minute', string>;

// Every field shown has minute resolution, and Lagos has kept a whole-hour offset since 1919: the
// parts of one minute are formatted once. An answer reads two (the data's time and now), so a few
// recent minutes are kept.
const MINUTE_MS = 60_000;
const WHOLE_MINUTE_OFFSETS_FROM = Date.UTC(1920, 0, 1);
const recentMinutes = new Map<number, LagosParts>();

function lagosParts(date: Date): LagosParts {
  const time = date.getTime();
  const minute = Math.floor(time / MINUTE_MS);
  const cacheable = time >= WHOLE_MINUTE_OFFSETS_FROM;
  const known = cacheable ? recentMinutes.get(minute) : undefined;
  if (known) return known;
  const parts: LagosParts = { weekday: '', day: '', month: '', year: '', hour: '', minute: '' };
  for (const part of lagosFormatter().formatToParts(date)) {
    if (part.type in parts) parts[part.type as keyof LagosParts] = part.value;
  }
  if (cacheable) {
    if (recentMinutes.size >= 8) recentMinutes.delete(recentMinutes.keys().next().value as number);
    recentMinutes.set(minute, parts);
  }
  return parts;
}

const fullTime = (p: LagosParts) =>
  `${p.weekday} ${p.day} ${p.month} ${p.year.padStart(4, '0')}, ${p.hour}:${p.minute} WAT`;

/** `Mon 23 Nov 2026, 09:15 WAT` in Africa/Lagos; unparseable text is shown as sent. */
export function lagosTime(iso: string | Date): string;
export function lagosTime(iso: string | Date | null | undefined): string | undefined;
export function lagosTime(iso: string | Date | null | undefined): string | undefined {
  if (!iso) return undefined;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return fullTime(lagosParts(date));
}

/** `10:26 WAT` when `at` falls on the same Lagos day as `now`, else the full date and time. */
export function lagosTimeOfDay(at: Date, now: Date): string {
  if (Number.isNaN(at.getTime())) return lagosTime(at);
  const day = lagosParts(at);
  const today = lagosParts(now);
  const sameDay = day.year === today.year && day.month === today.month && day.day === today.day;
  return sameDay ? `${day.hour}:${day.minute} WAT` : fullTime(day);
}

/** What relative() says of a time that is not a date: no outside text, so nothing to escape. */
export const UNREADABLE_TIME = 'at an unreadable time';

/**
 * `in 23 hours` / `5 minutes ago`, against the time the caller passes. Service and webhook times reach
 * it, so text that is not a date gets UNREADABLE_TIME rather than breaking the screen it is on.
 */
export function relative(iso: string, now: Date): string {
  const then = new Date(iso);
  if (Number.isNaN(then.getTime()) || Number.isNaN(now.getTime())) return UNREADABLE_TIME;
  const words = formatDistanceStrict(then, now);
  return then.getTime() >= now.getTime() ? `in ${words}` : `${words} ago`;
}

/**
 * A time the service or a webhook wrote, read as the intake reads it (outsideTime: no zone is UTC, epoch
 * digits count, other text is no time): `lagosTime` of it, or undefined when it is no time. `new Date`
 * would read "12" as 2001 and a zoneless time in the host's zone.
 */
export function outsideLagosTime(text: string | null | undefined): string | undefined {
  const at = outsideTime(text);
  return Number.isFinite(at) ? lagosTime(new Date(at)) : undefined;
}

/** `relative` of a time the service or a webhook wrote, read as outsideLagosTime reads it. */
export function outsideRelative(text: string | null | undefined, now: Date): string {
  const at = outsideTime(text);
  return Number.isFinite(at) ? relative(new Date(at).toISOString(), now) : UNREADABLE_TIME;
}

export function environmentMarker(environment: CngnEnvironment): string {
  if (environment === 'live') return ':large_green_circle: LIVE';
  if (environment === 'test') return ':large_yellow_circle: TEST';
  return ':test_tube: SANDBOX';
}

/** `0x12ab…cdef` */
export function shortHash(value: string): string {
  return value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
}

/** Only the last four digits of an account number. */
export function maskAccount(accountNumber: string): string {
  const digits = accountNumber.replace(/\s/g, '');
  return digits.length <= 4 ? digits : `••••${digits.slice(-4)}`;
}

export interface ReceiverView {
  bankCode?: string;
  bankName?: string;
  accountNumber?: string;
  accountName?: string;
  address?: string;
  /** Anything else (business id, "Wrap CBDC"). */
  text?: string;
}

/** The service's receiver in any of its documented shapes (cngn/schemas.ts validates it). */
export type Receiver =
  | string
  | {
      address?: string | null | undefined;
      bank?:
        | string
        | { name?: string | null | undefined; code?: string | null | undefined }
        | null
        | undefined;
      accountNumber?: string | null | undefined;
      accountName?: string | null | undefined;
    };

/** `bankCode:accountNumber:accountName`, an address, a business id, or an object: one view. */
export function receiverView(receiver: Receiver | null | undefined): ReceiverView {
  if (receiver === null || receiver === undefined) return {};
  if (typeof receiver === 'string') return receiverTextView(receiver);
  const bank = receiver.bank;
  return {
    bankCode: typeof bank === 'object' && bank ? (bank.code ?? undefined) : undefined,
    bankName: typeof bank === 'string' ? bank : (bank?.name ?? undefined),
    accountNumber: receiver.accountNumber ?? undefined,
    accountName: receiver.accountName ?? undefined,
    address: receiver.address ?? undefined,
  };
}

function receiverTextView(receiver: string): ReceiverView {
  const bank = receiver.match(/^([0-9A-Za-z]{3,9}):(\d{6,12}):(.*)$/);
  if (bank) return { bankCode: bank[1], accountNumber: bank[2], accountName: bank[3] || undefined };
  if (/^0x[0-9a-fA-F]{40}$/.test(receiver)) return { address: receiver };
  return { text: receiver };
}

/** Words for the open status vocabulary. */
export function statusWord(status: string | null | undefined): string {
  if (!status) return 'unknown';
  const s = status.toLowerCase();
  if (s === 'completed' || s === 'success' || s === 'successful') return 'completed';
  return s;
}
