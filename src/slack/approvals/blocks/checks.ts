// The "Checks" a request carries from filing (balance, network, address, whitelist, first payment,
// look-alike), in every place it is shown: the channel message and its DM copies, App Home, the review
// and the thread. Pure: checks and the time in, Block Kit or mrkdwn out; the addresses come from
// outside and are escaped where they enter mrkdwn.
import type { KnownBlock } from '@slack/types';
import type {
  ApprovalRequest,
  BalanceCheck,
  LookAlikeMark,
  RequestChecks,
} from '../../../approvals/index.js';
import { lagosTimeOfDay, naira, relative } from '../../../format/display.js';
import { Money } from '../../../format/money.js';
import { escapeMrkdwn, markDifferences } from '../../../format/mrkdwn.js';
import { tierBasisLine } from './limits.js';
import { purposeText } from './purpose.js';
import { sameRequestLine } from './same-request.js';

export const FIRST_PAYMENT = 'First payment to this destination';
const NOT_PAID_YET = 'Not paid yet';
export const LOOK_ALIKE_MARK = 'Look-alike address';

const context = (text: string): KnownBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });
const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** `₦1,250,000.00 as of 14:02 WAT (12 seconds ago)`; the age only where it is asked for. */
function asOfWords(check: BalanceCheck, now: Date, age: boolean): string {
  const at = lagosTimeOfDay(new Date(check.asOf), now);
  return age ? `as of ${at}, ${relative(check.asOf, now)}` : `as of ${at}`;
}

/** The balance line: the figure and when, what is committed, and what is left after this request. */
function balanceLine(check: BalanceCheck, now: Date, options: { age?: boolean } = {}): string {
  const requests = check.committedCount === 1 ? '1 request' : `${check.committedCount} requests`;
  const committed =
    check.committedCount > 0 ? `${naira(check.committed)} committed (${requests})` : 'nothing committed';
  const verdict = check.enough ? '✓' : '✗ *not enough*';
  return `Balance ${escapeMrkdwn(naira(check.balance))} (${asOfWords(check, now, options.age ?? false)}) · ${committed} · after this ${escapeMrkdwn(naira(check.after))} ${verdict}`;
}

/** Why the balance does not cover the request, in one sentence with the figures (plain text). */
export function shortfallText(check: BalanceCheck, now: Date): string {
  return `the balance, ${naira(check.balance)} (${asOfWords(check, now, false)}), less ${naira(check.committed)} already committed, leaves ${naira(available(check))} — less than this request's ${naira(check.amount)}`;
}

/** The balance less what is committed: what the request is compared with. */
const available = (check: BalanceCheck) =>
  Money.parseDecimal(check.balance).minus(Money.parseDecimal(check.committed)).toString();

/**
 * The first-payment mark: a destination never paid. When an earlier request to it is not sent yet, the
 * first payment is that one's, so this one names it rather than claim to be first as well.
 */
function firstPaymentLine(request: ApprovalRequest, now: Date): string | undefined {
  if (!request.preflight?.firstPayment) return undefined;
  const unsent = request.earlier?.unsent;
  if (!unsent) return `:new: *${FIRST_PAYMENT}*`;
  return `:new: *${NOT_PAID_YET}:* ${escapeMrkdwn(unsent.id)} to this destination was filed first (${relative(unsent.at, now)}) and is not sent yet`;
}

/** Whether the destination is on the whitelist; for a whitelist addition, only if it already is. */
function whitelistPart(request: ApprovalRequest, whitelisted: boolean | undefined): string | undefined {
  if (whitelisted === undefined) return undefined;
  if (request.kind === 'whitelist') return whitelisted ? 'already on the whitelist' : undefined;
  return whitelisted ? 'on the whitelist ✓' : 'not on the whitelist';
}

/** Network, address and whitelist on one line. */
function destinationLine(request: ApprovalRequest, checks: RequestChecks): string | undefined {
  const parts: string[] = [];
  if (checks.network) {
    const name = escapeMrkdwn(checks.network.name);
    parts.push(checks.network.enabled ? `network ${name} enabled ✓` : `network ${name} *disabled* ✗`);
  }
  if (checks.address) {
    const what = checks.address.checked === 'checksum' ? 'checksum' : 'format';
    parts.push(`address ${what} ✓ \`${escapeMrkdwn(checks.address.shown)}\``);
  }
  const whitelist = whitelistPart(request, checks.whitelisted);
  if (whitelist) parts.push(whitelist);
  if (parts.length === 0) return undefined;
  const line = parts.join(' · ');
  return `${line.charAt(0).toUpperCase()}${line.slice(1)}`;
}

/** `0x00FB*…*D025`: the look-alike's two addresses in full, one under the other, differences marked. */
function lookAlikeLines(mark: LookAlikeMark): string {
  const known = mark.knownAs === 'paid' ? 'paid before' : 'on the whitelist';
  const sameShape = mark.known.length === mark.candidate.length;
  const knownText = sameShape ? markDifferences(mark.known, mark.differs) : escapeMrkdwn(mark.known);
  return `${markDifferences(mark.candidate, mark.differs)}  ← this request\n${knownText}  ← ${known}`;
}

/** The look-alike warning, with both addresses and what it asks of people (mrkdwn). */
export function lookAlikeText(mark: LookAlikeMark, request?: ApprovalRequest): string {
  const known = mark.knownAs === 'paid' ? 'an address paid before' : 'a whitelisted address';
  const head = `:warning: *${LOOK_ALIKE_MARK}:* it starts and ends like ${known} but differs in between (marked). Compare every character:`;
  const compared = mark.compared ? '\nThe requester confirmed comparing the whole address.' : '';
  const needs = !request
    ? ''
    : mark.extra === false
      ? ` Its tier already needs every approver who may approve it (${request.requiredApprovals}), so it cannot need one more: each must compare the address.`
      : ` It needs one more approver than its tier: ${request.requiredApprovals} in all.`;
  return `${head}\n${lookAlikeLines(mark)}${compared}${needs}`;
}

export interface ChecksOptions {
  /** The balance read now (the review), in place of the one at filing. */
  balance?: BalanceCheck | undefined;
  /** The balance could not be read now (the review). */
  balanceUnread?: boolean;
  /** Everything in one block (App Home, where a list of requests must stay within 100 blocks). */
  compact?: boolean;
  /** Leave the look-alike out: the caller shows it next to the address (the review). */
  withoutLookAlike?: boolean;
}

/**
 * The Checks section of a request: nothing for a request filed without checks (delegations,
 * settlement changes, or requests filed before checks existed).
 */
export function checksBlocks(request: ApprovalRequest, now: Date, options: ChecksOptions = {}): KnownBlock[] {
  const checks = request.preflight;
  if (!checks) return [];
  const fresh = options.balance !== undefined || options.balanceUnread === true;
  const lines: string[] = [
    fresh ? '*Checks*' : `*Checks* at filing, ${escapeMrkdwn(lagosTimeOfDay(new Date(checks.at), now))}`,
  ];
  const first = firstPaymentLine(request, now);
  if (first) lines.push(first);
  const balance = fresh ? options.balance : checks.balance;
  if (balance) lines.push(balanceLine(balance, now, { age: fresh }));
  else if (options.balanceUnread) lines.push('Balance could not be read just now');
  const destination = destinationLine(request, checks);
  if (destination) lines.push(destination);
  const unread = (checks.unread ?? []).filter((u) => !(fresh && u.startsWith('the balance')));
  if (unread.length > 0) lines.push(`Not checked: ${unread.map(escapeMrkdwn).join('; ')}`);
  const lookAlike = options.withoutLookAlike ? undefined : checks.lookAlike;
  if (options.compact) {
    return [context([...(lookAlike ? [lookAlikeText(lookAlike, request)] : []), ...lines].join('\n'))];
  }
  // The look-alike first: of all the checks, it is the one to act on.
  return [...(lookAlike ? [lookAlikeSection(lookAlike, request)] : []), context(lines.join('\n'))];
}

/** The look-alike warning as its own block. */
export function lookAlikeSection(mark: LookAlikeMark, request?: ApprovalRequest): KnownBlock {
  return section(lookAlikeText(mark, request));
}

/**
 * The reply in the request's thread at filing (mrkdwn): the checks in words, then its purpose and the
 * tier line; undefined when there is none of them.
 */
export function checksThreadText(request: ApprovalRequest, now: Date): string | undefined {
  const checks = request.preflight;
  const lines: string[] = [];
  const same = sameRequestLine(request, now);
  if (same) lines.push(same);
  if (checks) {
    lines.push('*Checks at filing*');
    if (checks.lookAlike) lines.push(lookAlikeText(checks.lookAlike, request));
    const first = firstPaymentLine(request, now);
    if (first) lines.push(first);
    if (checks.balance) lines.push(balanceLine(checks.balance, now));
    const destination = destinationLine(request, checks);
    if (destination) lines.push(destination);
    if (checks.unread?.length) lines.push(`Not checked: ${checks.unread.map(escapeMrkdwn).join('; ')}`);
  }
  const purpose = purposeText(request);
  if (purpose) lines.push(`*Purpose*\n${purpose}`);
  const tier = tierBasisLine(request);
  if (tier) lines.push(tier);
  return lines.length > 0 ? lines.join('\n') : undefined;
}
