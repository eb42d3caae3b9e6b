// Approval words: kinds and states, and the one-line title of a request. Amounts and times come
// from format/display.

import type { RequestKind } from '../../access/index.js';
import { type ApprovalRequest, leftToAPersonByTheLookup } from '../../approvals/index.js';
import type { RequestState } from '../../audit/index.js';
import type { CngnEnvironment } from '../../cngn/api.js';
import { naira } from '../../format/display.js';

export const KIND_TITLE: Record<RequestKind, string> = {
  withdraw: 'Withdrawal',
  redeem: 'Redemption to a bank account',
  bridge: 'Bridge',
  whitelist: 'Whitelist address',
  settlement: 'Settlement bank account change',
  delegation: 'Delegation of approvals',
  unfreeze: 'Lift the freeze of sends',
  passkey: 'Register a passkey',
};

const STATE_WORDS: Record<RequestState, string> = {
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

/** A delegation and an unfreeze are written to the bot's own store, never sent to the service: their states say so. */
const OWN_STORE_STATE_WORDS: Partial<Record<RequestKind, Partial<Record<RequestState, string>>>> = {
  delegation: {
    executing: ':arrow_forward: Putting the delegation in effect (the bot writes it to its own store)',
    'outcome-unknown':
      ":grey_question: Not known yet whether the delegation was written: checking the bot's store (it is never written twice)",
  },
  unfreeze: {
    executing: ':arrow_forward: Lifting the freeze (the bot writes it to its own store)',
    completed: ':white_check_mark: Completed: the freeze is lifted',
    'outcome-unknown':
      ":grey_question: Not known yet whether the freeze was lifted: checking the bot's store (it is never written twice)",
  },
  passkey: {
    executing: ':arrow_forward: Writing the passkey to the passkey book',
    completed: ':white_check_mark: Completed: the passkey counts',
    'outcome-unknown':
      ':grey_question: Not known yet whether the passkey was written: checking the passkey book (it is never written twice)',
  },
};

/**
 * Left to a person by the lookup before a late send: the bot no longer looks for it itself. Not "never
 * sent": after a store restore, its own earlier call may be one of the matches.
 */
const LEFT_TO_A_PERSON =
  ':grey_question: Outcome unknown: a person must check it with the service (the bot will not send it)';

/** Failed before anything reached the service, or refused by it before acting. */
const FAILED_NOTHING_SENT = ':x: Failed — nothing sent';

/** Kinds that take effect in the bot's own store: nothing of them is sent to the service. */
export const IN_THE_BOT: ReadonlySet<RequestKind> = new Set<RequestKind>([
  'delegation',
  'unfreeze',
  'passkey',
]);

/** The request's state in words, as its kind goes through it. */
export function stateWords(request: ApprovalRequest): string {
  const own = OWN_STORE_STATE_WORDS[request.kind]?.[request.state];
  if (own) return own;
  if (request.state === 'failed' && request.outcome?.nothingSent) return FAILED_NOTHING_SENT;
  if (leftToAPersonByTheLookup(request)) return LEFT_TO_A_PERSON;
  return STATE_WORDS[request.state];
}

export function environmentLabel(environment: CngnEnvironment): string {
  return environment.toUpperCase();
}

/** One line naming the request: `AR-1A2B3C4D5E · Withdrawal · ₦1,500.50`. */
export function requestTitle(request: ApprovalRequest): string {
  const amount = request.amount ? ` · ${naira(request.amount)}` : '';
  return `${request.id} · ${KIND_TITLE[request.kind]}${amount}`;
}
