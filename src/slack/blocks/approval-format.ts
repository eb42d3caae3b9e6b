// Approval words: kinds and states, and the one-line title of a request. Amounts and times come
// from format/display.
import type { ApprovalRequest, RequestKind, RequestState } from '../../approvals/types.js';
import type { CngnEnvironment } from '../../cngn/api.js';
import { naira } from '../../format/display.js';

export const KIND_TITLE: Record<RequestKind, string> = {
  withdraw: 'Withdrawal',
  redeem: 'Redemption to a bank account',
  bridge: 'Bridge',
  whitelist: 'Whitelist address',
  settlement: 'Settlement bank account change',
  delegation: 'Delegation of approvals',
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
