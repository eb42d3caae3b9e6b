// What the access gate says when it refuses: the role needed and who holds it (members who may act here,
// gate/holders.ts), that only members of the workspace the bot is installed in may use it, or that
// guests and bots may do nothing here; and the App Home someone without the reader role sees (no
// treasury figures).
import type { KnownBlock } from '@slack/types';
import type { Holders, Need } from '../../access/index.js';
import { escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** Who holds the role as a refusal names them: of the people listed, only members who may act here. */
export interface NamedHolders extends Holders {
  /** Listed beyond those looked up: counted, not named. */
  unchecked?: number | undefined;
  /** Plain names by ID, for a form's field, where Slack shows no mentions. */
  names?: ReadonlyMap<string, string> | undefined;
}

/** Why the gate said no. */
export type Refusal =
  /** `holders` undefined: Slack did not describe them in time, so none is named. */
  | { why: 'role'; need: Need; holders: NamedHolders | undefined }
  | { why: 'guest' | 'bot' | 'deleted' }
  /** Not from the home workspace: the request says another one, or Slack says the person is not its member. */
  | { why: 'external'; workspace: string }
  | { why: 'unchecked' };

/** "Only members of Treasury can use cngn-desk", in mrkdwn or plain. */
function membersOnly(workspace: string, plain = false): string {
  return `Only members of ${plain ? workspace : escapeMrkdwn(workspace)} can use cngn-desk`;
}

/** "the *requester* role", "the *approver* role for withdraw requests". */
export function roleName(need: Need, bold = true): string {
  const role = bold ? `*${need.role}*` : need.role;
  return `the ${role} role${need.kind ? ` for ${need.kind} requests` : ''}`;
}

const MAX_NAMED = 8;

function joined(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** "held by @Ada, @Bola and members of @treasury", in mrkdwn (mentions), or plain (the names known). */
export function heldBy(holders: NamedHolders, plain = false): string {
  if (holders.everyone) return 'held by every member of the workspace who is not a guest';
  const users = holders.users
    .slice(0, MAX_NAMED)
    .map((id) => (plain ? (holders.names?.get(id) ?? id) : mentionUser(id)));
  const more = holders.users.length - users.length + (holders.unchecked ?? 0);
  if (more > 0) users.push(`${more} more`);
  const groups = holders.groups.map((id) =>
    plain ? `members of user group ${id}` : /^S[A-Z0-9]+$/.test(id) ? `members of <!subteam^${id}>` : id,
  );
  const all = [...users, ...groups];
  return all.length ? `held by ${joined(all)}` : 'held by nobody yet; an admin of the bot names who holds it';
}

/** What follows the role's name: who holds it, or, when that is not known in time, whom to ask. */
function holdersClause(holders: NamedHolders | undefined, plain = false): string {
  return holders ? `, ${heldBy(holders, plain)}` : '; ask an admin of the bot who holds it';
}

/** What was refused, as the person sees it: "`/cngn withdraw`", "This button", "This form". */
export type Refused = { command: string } | 'button' | 'form' | 'shortcut';

function what(refused: Refused): string {
  if (typeof refused === 'object') return `\`/cngn ${escapeMrkdwn(refused.command)}\``;
  return refused === 'button' ? 'This button' : refused === 'form' ? 'This form' : 'This shortcut';
}

/** The private answer to someone refused: one section, mrkdwn, nothing done. */
export function refusalMessage(refused: Refused, refusal: Refusal): SlackMessage {
  const subject = what(refused);
  const text =
    refusal.why === 'role'
      ? `${subject} needs ${roleName(refusal.need)}${holdersClause(refusal.holders)}. Nothing was done.`
      : refusal.why === 'unchecked'
        ? 'The bot could not check your role with Slack just now. Nothing was done; try again in a moment.'
        : refusal.why === 'external'
          ? `${membersOnly(refusal.workspace)}. Nothing was done.`
          : 'Guests and bots cannot use the cNGN treasury desk, whatever roles they are given. Nothing was done.';
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `:no_entry: ${text}` } }] };
}

/** The same, as a form field's "field: reason" in plain text (Slack shows no mentions there). */
export function refusalFieldText(refusal: Refusal): string {
  if (refusal.why === 'external')
    return `Not allowed: ${membersOnly(refusal.workspace, true)}. Nothing was filed.`;
  if (refusal.why !== 'role') return `Not allowed: ${refusalMessage('form', refusal).text}`;
  return `Not allowed: this form needs ${roleName(refusal.need, false)}${holdersClause(refusal.holders, true)}. Nothing was filed.`;
}

/** App Home for someone who may not read the treasury: what they lack and who holds it, no figures. */
export function noReaderHome(refusal: Refusal): { type: 'home'; blocks: KnownBlock[] } {
  const text =
    refusal.why === 'role'
      ? `You do not have ${roleName(refusal.need)}, so the treasury's balances, requests and alerts are not shown here. ${
          refusal.holders
            ? `It is ${heldBy(refusal.holders)}: ask one of them or an admin of the bot.`
            : 'Ask an admin of the bot who holds it.'
        }`
      : refusal.why === 'unchecked'
        ? 'The bot could not check your role with Slack just now, so nothing of the treasury is shown here. Open Home again in a moment.'
        : refusal.why === 'external'
          ? `${membersOnly(refusal.workspace)}, so nothing of the treasury is shown here.`
          : 'Guests and bots cannot use the cNGN treasury desk, so nothing of the treasury is shown here.';
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'cNGN treasury desk' } },
      { type: 'section', text: { type: 'mrkdwn', text } },
    ],
  };
}
