// The App Home tab of one person: what waits for their approval (with the channel's own Approve /
// Reject buttons), their recent requests, and the desk's state as last seen (balance as of, environment,
// the service's request budget in use, the last alerts). Pure: data in, a home view out.
import type { HomeView, KnownBlock } from '@slack/types';
import {
  type Delegation,
  describeSigningRule,
  REQUEST_KINDS,
  type RequestKind,
  type SigningRule,
} from '../../../access/index.js';
import type { ApprovalRequest, Freeze, LimitUse } from '../../../approvals/index.js';
import type { RateBudget } from '../../../cngn/limiter.js';
import type { BalanceEntry } from '../../../cngn/schemas.js';
import {
  environmentMarker,
  lagosTime,
  lagosTimeOfDay,
  naira,
  relative,
  serviceAmount,
  statusWord,
} from '../../../format/display.js';
import { escapeMrkdwn, mentionUser, slackPermalink } from '../../../format/mrkdwn.js';
import type { RecentAlert } from '../../../webhooks/recent.js';
import { delegationLines } from '../../ui/delegations.js';
import { freezeBanner } from '../../ui/freeze.js';
import { fitBlocks } from '../../ui/messages.js';
import { requestTitle, stateWords } from '../../ui/words.js';
import { type ApprovalsShown, FILED_COUNT } from '../blocks/approvals-shown.js';
import { checksBlocks } from '../blocks/checks.js';
import { tierBasisNotice, windowWords } from '../blocks/limits.js';
import { approvalButtons, destinationFields, hiddenCharactersNotice } from '../blocks/message.js';
import { purposeBlocks } from '../blocks/purpose.js';

const HOME_WAITING_BLOCK = 'home.waiting';
/** Slack refuses a view of more than 100 blocks. */
const HOME_MAX_BLOCKS = 100;
/** At most this many waiting requests, fewer when their blocks would pass HOME_MAX_BLOCKS. */
const HOME_WAITING_SHOWN = 15;
export const HOME_MINE_SHOWN = 10;

export interface HomeData {
  now: Date;
  environment: ApprovalRequest['environment'];
  /** Requests this person may approve now. */
  waiting: ApprovalRequest[];
  /** How many approvals each request needs, from the engine (absent: its stored count). */
  approvalsShown?: ApprovalsShown | undefined;
  /** Their own recent requests, newest first, with a link to each request's message when known. */
  mine: Array<{ request: ApprovalRequest; link?: string | undefined }>;
  balance?: { entries: BalanceEntry[]; asOf: Date } | undefined;
  budget?: RateBudget | undefined;
  alerts: readonly RecentAlert[];
  /** Delegations in effect to or from this person. */
  delegations?: Delegation[] | undefined;
  /** The freeze of sends in place, if any: its banner leads the page. */
  freeze?: Freeze | undefined;
  /** The limits over time and what counts against them now (absent: could not be read). */
  limits?: LimitUse | undefined;
  /** The roles this person holds (absent: not known). */
  roles?: HomeRoles | undefined;
  /** CNGN_SIGNED_APPROVALS: which approvals need the approver's passkey (absent: not known). */
  signing?: SigningRule | undefined;
}

export interface HomeRoles {
  reader: boolean;
  requester: boolean;
  auditor: boolean;
  /** The kinds of request they approve. */
  approves: readonly RequestKind[];
}

/** `Your roles: reader · requester · approver (withdraw, redeem) · auditor`. */
function rolesText(roles: HomeRoles): string {
  const held = [
    ...(roles.reader ? ['reader'] : []),
    ...(roles.requester ? ['requester'] : []),
    ...(roles.approves.length
      ? [
          `approver (${roles.approves.length === REQUEST_KINDS.length ? 'every kind' : roles.approves.join(', ')})`,
        ]
      : []),
    ...(roles.auditor ? ['auditor (read only)'] : []),
  ];
  return `*Your roles*: ${held.length ? held.join(' · ') : 'none'}. \`/cngn policy\` shows who holds each.`;
}

const mrkdwn = (text: string) => ({ type: 'mrkdwn' as const, text });
const section = (text: string): KnownBlock => ({ type: 'section', text: mrkdwn(text) });
const context = (text: string): KnownBlock => ({ type: 'context', elements: [mrkdwn(text)] });
const header = (text: string): KnownBlock => ({ type: 'header', text: { type: 'plain_text', text } });
const field = (label: string, value: string) => mrkdwn(`*${label}*\n${value}`);

/** `expires in 3 hours` (or `expiring now` once due and not yet swept). */
function countdown(expiresAt: string, now: Date): string {
  return Date.parse(expiresAt) > now.getTime() ? `expires ${relative(expiresAt, now)}` : 'expiring now';
}

/** `5 minutes ago`, or `just now` within the minute (clocks of the service and the bot differ slightly). */
function ago(at: string, now: Date): string {
  return Math.abs(Date.parse(at) - now.getTime()) < 60_000 ? 'just now' : relative(at, now);
}

/** One request waiting for this person: its figures, countdown and the buttons. */
function waitingBlocks(request: ApprovalRequest, now: Date, shown: ApprovalsShown): KnownBlock[] {
  const fields = [
    ...(request.amount ? [field('Amount', escapeMrkdwn(naira(request.amount)))] : []),
    ...destinationFields(request),
    field('Requested by', mentionUser(request.requester)),
    field('Approvals', `${request.approvals.length} of ${shown(request)}`),
    field('Expires', lagosTime(request.expiresAt)),
  ].slice(0, 10);
  return [
    section(`*${escapeMrkdwn(requestTitle(request))}* · ${countdown(request.expiresAt, now)}`),
    { type: 'section', fields },
    ...purposeBlocks(request),
    ...hiddenCharactersNotice(request),
    ...tierBasisNotice(request),
    ...checksBlocks(request, now, { compact: true }),
    {
      type: 'actions',
      block_id: `${HOME_WAITING_BLOCK}.${request.id}`,
      elements: approvalButtons(request, { cancel: false }),
    },
  ];
}

function mineLine(item: HomeData['mine'][number], now: Date): string {
  const { request, link } = item;
  const state = stateWords(request);
  const when = relative(request.createdAt, now);
  const linked = slackPermalink(link, 'open the message');
  const where = linked ? ` · ${linked}` : '';
  return `${escapeMrkdwn(requestTitle(request))}\n${state} · filed ${when}${where}`;
}

function balanceText(balance: HomeData['balance'], now: Date): string {
  if (!balance) return '*Balance*\nNot read recently: `/cngn balance` reads it.';
  const lines = balance.entries.map(
    (e) => `${escapeMrkdwn(e.asset_code.toUpperCase())} ${escapeMrkdwn(naira(e.balance))}`,
  );
  const asOf = `as of ${lagosTimeOfDay(balance.asOf, now)} (${relative(balance.asOf.toISOString(), now)})`;
  return `*Balance*\n${lines.length ? lines.join('\n') : 'No token balance'}\n_${asOf}_`;
}

function budgetText(budget: RateBudget | undefined): string {
  if (!budget) return '*Service requests*\nUnknown just now';
  const blocked = budget.blockedForSeconds > 0 ? ` · blocked for ${budget.blockedForSeconds} s` : '';
  return `*Service requests*\n${budget.used} of ${budget.limit} in use${blocked}`;
}

/** The daily limit and its use now; the window the totals are counted over. */
function limitsText(limits: LimitUse | undefined): string {
  if (!limits) return '*Daily limit*\nUnknown just now';
  const window = windowWords(limits.windowMs);
  if (!limits.dailyLimit) return `*Daily limit*\nNone · totals over ${window} set the approvals`;
  const waiting = limits.waiting === '0.00' ? '' : ` · ${escapeMrkdwn(naira(limits.waiting))} waiting`;
  return `*Daily limit*\n${escapeMrkdwn(naira(limits.approved))} of ${escapeMrkdwn(naira(limits.dailyLimit))} approved or sent in the last ${window}${waiting}`;
}

function alertLine(alert: RecentAlert, now: Date): string {
  const parts = [escapeMrkdwn(alert.event)];
  if (alert.amount) parts.push(escapeMrkdwn(serviceAmount(alert.amount)));
  if (alert.status) parts.push(escapeMrkdwn(statusWord(alert.status)));
  if (alert.reference) parts.push(`\`${escapeMrkdwn(alert.reference)}\``);
  return `• ${parts.join(' · ')} · ${ago(alert.at, now)}`;
}

/**
 * The waiting requests that fit in `budget` blocks, in order, then `…and N more` pointing to
 * /cngn pending for the rest (its one block kept free whenever a request is left out).
 */
function waitingSection(
  waiting: ApprovalRequest[],
  now: Date,
  budget: number,
  approvalsShown: ApprovalsShown,
): KnownBlock[] {
  if (waiting.length === 0) return [context('Nothing waits for your approval.')];
  const out: KnownBlock[] = [];
  let shown = 0;
  for (const request of waiting.slice(0, HOME_WAITING_SHOWN)) {
    const blocks = waitingBlocks(request, now, approvalsShown);
    const last = shown === waiting.length - 1;
    if (out.length + blocks.length + (last ? 0 : 1) > budget) break;
    out.push(...blocks);
    shown += 1;
  }
  if (shown < waiting.length) {
    out.push(context(`…and ${waiting.length - shown} more: \`/cngn pending\` lists them all.`));
  }
  return out;
}

export function homeView(data: HomeData): HomeView {
  const { now } = data;
  const blocks: KnownBlock[] = [header(`cNGN desk · ${data.environment.toUpperCase()}`)];
  if (data.freeze) blocks.push(freezeBanner(data.freeze));
  blocks.push({
    type: 'section',
    fields: [
      mrkdwn(`*Environment*\n${environmentMarker(data.environment)}`),
      mrkdwn(balanceText(data.balance, now)),
      mrkdwn(budgetText(data.budget)),
      mrkdwn(limitsText(data.limits)),
    ],
  });
  if (data.roles) blocks.push(context(rolesText(data.roles)));
  if (data.signing) blocks.push(context(`*Passkeys*: ${escapeMrkdwn(describeSigningRule(data.signing))}`));

  blocks.push({ type: 'divider' }, header('Waiting for you'));

  const rest: KnownBlock[] = [];
  if (data.delegations?.length) {
    rest.push(context(`*Delegations in effect*\n${delegationLines(data.delegations, now)}`));
  }
  rest.push({ type: 'divider' }, header('Your requests'));
  if (data.mine.length === 0) rest.push(context('You have filed no requests lately.'));
  for (const item of data.mine.slice(0, HOME_MINE_SHOWN)) rest.push(section(mineLine(item, now)));
  rest.push({ type: 'divider' }, header('Last alerts'));
  rest.push(
    data.alerts.length === 0
      ? context('No alerts yet.')
      : section(data.alerts.map((a) => alertLine(a, now)).join('\n')),
  );
  rest.push(context(`Updated ${lagosTimeOfDay(now, now)}`));

  const budget = HOME_MAX_BLOCKS - blocks.length - rest.length;
  blocks.push(...waitingSection(data.waiting, now, budget, data.approvalsShown ?? FILED_COUNT));
  blocks.push(...rest);
  return { type: 'home', blocks: fitBlocks(blocks) };
}

/** The Home of someone who read the treasury and no longer holds the reader role: nothing of it shown. */
export function formerReaderHome(environment: string): HomeView {
  return {
    type: 'home',
    blocks: [
      header(`cNGN desk · ${environment.toUpperCase()}`),
      section(
        "You no longer hold the *reader* role, so the treasury's balances, requests and alerts are not shown here. Ask an admin of the bot if you need them.",
      ),
    ],
  };
}
