// Small text helpers for the approval blocks: ₦ with separators, Lagos time, kinds and states in words.
import { TZDate } from '@date-fns/tz';
import { format, formatDistanceStrict } from 'date-fns';
import type { ApprovalRequest, RequestKind, RequestState } from '../../approvals/types.js';
import type { CngnEnvironment } from '../../cngn/api.js';
import { Money } from '../../format/money.js';

/** `₦1,500,000.50` from a canonical decimal string. */
export function naira(amount: string): string {
  const text = Money.fromService(amount).toString();
  const negative = text.startsWith('-');
  const [whole = '0', fraction = '00'] = text.replace('-', '').split('.');
  return `${negative ? '-' : ''}₦${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

/** `Tue 24 Nov 2026, 09:30 WAT` in Africa/Lagos. */
export function lagosTime(iso: string): string {
  return `${format(new TZDate(Date.parse(iso), 'Africa/Lagos'), 'EEE d MMM yyyy, HH:mm')} WAT`;
}

/** `in 23 hours` / `5 minutes ago`, against the time the caller passes (blocks read no clock). */
export function relative(iso: string, now: Date): string {
  const then = new Date(iso);
  const words = formatDistanceStrict(then, now);
  return then.getTime() >= now.getTime() ? `in ${words}` : `${words} ago`;
}

export const KIND_TITLE: Record<RequestKind, string> = {
  withdraw: 'Withdrawal',
  redeem: 'Redemption to a bank account',
  bridge: 'Bridge',
  whitelist: 'Whitelist address',
  settlement: 'Settlement bank account change',
};

export const STATE_WORDS: Record<RequestState, string> = {
  pending: ':hourglass_flowing_sand: Waiting for approval',
  approved: ':white_check_mark: Approved',
  executing: ':arrow_forward: Sending to the service',
  sent: ':outbox_tray: Sent, waiting for the final status',
  completed: ':white_check_mark: Completed',
  failed: ':x: Failed',
  'outcome-unknown': ':grey_question: Outcome unknown: checking the transaction list (never resent)',
  rejected: ':no_entry: Rejected',
  cancelled: ':heavy_multiplication_x: Cancelled',
  expired: ':alarm_clock: Expired',
};

export function environmentLabel(environment: CngnEnvironment): string {
  return environment.toUpperCase();
}

/** One line naming the request: `AR-1A2B3C4D5E · Withdrawal · ₦1,500.50`. */
export function requestTitle(request: ApprovalRequest): string {
  const amount = request.amount ? ` · ${naira(request.amount)}` : '';
  return `${request.id} · ${KIND_TITLE[request.kind]}${amount}`;
}
