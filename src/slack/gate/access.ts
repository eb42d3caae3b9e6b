// Who may use what: beside the /cngn registry (each subcommand declares its own `who`), every button,
// form and type-ahead the bot listens to, with the role it needs. The access gate (gate/gate.ts) asks
// here before any listener runs; a test walks every registered listener and finds it declared here.
import { DEAD_LETTER_REPOST_ACTION, DEAD_LETTER_VIEW } from '../alerts/dead-letter-blocks.js';
import { BANK_PICKERS, REDEEM_VIEW, SETTLEMENT_VIEW } from '../approvals/blocks/bank-modal.js';
import { APPROVE_ACTION, CANCEL_ACTION, REJECT_ACTION } from '../approvals/blocks/message.js';
import { BRIDGE_VIEW, REJECT_VIEW, WHITELIST_VIEW, WITHDRAW_VIEW } from '../approvals/blocks/modals.js';
import { EXTEND_ACTION } from '../approvals/blocks/reminders.js';
import { REVIEW_VIEW, SIGN_LINK_ACTION } from '../approvals/blocks/review.js';
import { REVIEW_ALL_ACTION, REVIEW_ALL_VIEW } from '../approvals/blocks/review-all.js';
import { findSubcommand } from '../commands/registry.js';
import { DEPOSIT_VIEW, QUOTE_VIEW } from '../deposits/blocks.js';
import { TX_PAGE_ACTIONS } from '../reads/blocks.js';
import { unwrapLinks } from '../runtime/links.js';
import { DECIDERS, type Feature, FILERS, READERS, REQUESTERS, type Who } from '../types.js';
import { TEAM_JOIN_EVENT, USER_CHANGE_EVENT } from './user-changes.js';

/** One id the bot listens to (a pattern for a family of ids) and who may use it. */
export interface Declared {
  id: string | RegExp;
  who: Who;
}

/** Buttons (block_actions), wherever the message or view that holds them is. */
export const ACTIONS: readonly Declared[] = [
  // Approving and rejecting in general; which kinds of request a person may approve is the engine's.
  { id: APPROVE_ACTION, who: DECIDERS },
  { id: REJECT_ACTION, who: DECIDERS },
  { id: REVIEW_ALL_ACTION, who: DECIDERS },
  // The review's link to the sign page: Slack tells the bot of the click, which changes nothing.
  { id: SIGN_LINK_ACTION, who: DECIDERS },
  // Cancelling and extending a request are its filer's, a requester or an approver who filed what only
  // approvers file (the engine checks it is theirs).
  { id: CANCEL_ACTION, who: FILERS },
  { id: EXTEND_ACTION, who: FILERS },
  // A delegate reposts a dead letter as before: it moves no money and decides nothing.
  { id: DEAD_LETTER_REPOST_ACTION, who: DECIDERS },
  { id: TX_PAGE_ACTIONS, who: READERS },
];

/** Modal submissions (view_submission, view_closed), by callback_id. */
const VIEWS: readonly Declared[] = [
  { id: WITHDRAW_VIEW, who: REQUESTERS },
  { id: REDEEM_VIEW, who: REQUESTERS },
  { id: BRIDGE_VIEW, who: REQUESTERS },
  { id: WHITELIST_VIEW, who: REQUESTERS },
  { id: SETTLEMENT_VIEW, who: REQUESTERS },
  { id: REVIEW_VIEW, who: DECIDERS },
  { id: REJECT_VIEW, who: DECIDERS },
  { id: REVIEW_ALL_VIEW, who: DECIDERS },
  { id: DEAD_LETTER_VIEW, who: DECIDERS },
  { id: DEPOSIT_VIEW, who: READERS },
  { id: QUOTE_VIEW, who: READERS },
];

/** Type-ahead (block_suggestion), by action_id: the bank pickers of the redeem and settlement forms. */
export const OPTIONS: readonly Declared[] = BANK_PICKERS.map((id) => ({ id, who: REQUESTERS }));

/**
 * Events that show someone something: App Home shows the treasury's figures. A person's account
 * changing or someone joining shows nobody anything (the gate lets it by); its listener only makes the
 * gate ask again and ends the delegations of someone who may no longer act.
 */
const EVENTS: readonly Declared[] = [
  { id: 'app_home_opened', who: READERS },
  { id: USER_CHANGE_EVENT, who: 'anyone' },
  { id: TEAM_JOIN_EVENT, who: 'anyone' },
];

/** Global and message shortcuts, by callback_id: the bot has none. */
const SHORTCUTS: readonly Declared[] = [];

export type Surface = 'action' | 'view' | 'options' | 'event' | 'shortcut';

const TABLES: Record<Surface, readonly Declared[]> = {
  action: ACTIONS,
  view: VIEWS,
  options: OPTIONS,
  event: EVENTS,
  shortcut: SHORTCUTS,
};

/** Who may use `id` on that surface; undefined when nothing is declared for it (nothing listens). */
export function declaredWho(surface: Surface, id: string): Who | undefined {
  return TABLES[surface].find((d) => (typeof d.id === 'string' ? d.id === id : d.id.test(id)))?.who;
}

/**
 * Who may run `/cngn <text>`, and the subcommand's name. The help (and unknown words) is for anyone, and
 * so is a subcommand whose feature is not wired here: it runs nothing and says what to configure.
 */
export function commandWho(text: string, features: ReadonlySet<Feature>): { name: string; who: Who } {
  const words = unwrapLinks(text).trim().split(/\s+/).filter(Boolean);
  const found = findSubcommand(words);
  if (!found) return { name: 'help', who: 'anyone' };
  const { name, who, needs } = found.entry;
  return { name, who: needs && !features.has(needs) ? 'anyone' : who };
}
