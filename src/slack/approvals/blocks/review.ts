// The review modal an Approve click opens: every figure of the request again, in full and at full
// width (the whole address or account, the resolved name, network, fees or quote, requester, approvals
// so far, expiry, environment), and a submit button that names the amount. Only its submission
// approves, for the round it showed. Pure: request and time in, Block Kit out; every outside value is
// escaped where it enters mrkdwn.
import type { KnownBlock, ModalView } from '@slack/types';
import type { ApprovalRequest, BalanceCheck, Freeze } from '../../../approvals/index.js';
import { environmentMarker, lagosTime, naira, relative } from '../../../format/display.js';
import { escapeMrkdwn, mentionUser } from '../../../format/mrkdwn.js';
import { freezeBanner } from '../../ui/freeze.js';
import { KIND_TITLE, requestTitle } from '../../ui/words.js';
import { checksBlocks, lookAlikeSection, shortfallText } from './checks.js';
import { tierBasisNotice } from './limits.js';
import { approverWords, destinationFields, figuresSection, hiddenCharactersNotice } from './message.js';
import { purposeBlocks } from './purpose.js';
import { sameRequestNotice } from './same-request.js';

/** A Slack conversation id as the review's metadata may carry it: a channel (C, G) or a DM (D). */
export const SLACK_CHANNEL_ID = /^[CDG][A-Z0-9]{8,39}$/;

export const REVIEW_VIEW = 'approval.review.submit';

/** Slack refuses a modal whose submit text is longer than this. */
const SUBMIT_MAX = 24;

const plain = (text: string) => ({ type: 'plain_text' as const, text });
const section = (text: string): KnownBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** What the submission needs to approve exactly what was shown: the request, its round, its environment. */
export interface ReviewMetadata {
  id: string;
  round: number;
  environment: ApprovalRequest['environment'];
  /** Where the click happened, for private answers (absent for App Home). */
  channel?: string;
}

/**
 * `Approve ₦1,500.00`. A long amount is never rounded or abbreviated on the button that moves it: a
 * whole-naira amount drops its `.00` (still exact), and one that still does not fit in Slack's 24
 * characters says `Approve the amount above`, next to the exact figure in the modal's header.
 */
export function reviewSubmitText(request: ApprovalRequest): string {
  if (!request.amount) {
    if (request.kind === 'settlement') return 'Approve new account';
    return request.kind === 'delegation' ? 'Approve delegation' : 'Approve address';
  }
  const full = `Approve ${naira(request.amount)}`;
  if (full.length <= SUBMIT_MAX) return full;
  const whole = full.replace(/\.00$/, '');
  return whole.length <= SUBMIT_MAX ? whole : 'Approve the amount above';
}

function headerText(request: ApprovalRequest): string {
  const what = KIND_TITLE[request.kind];
  return (request.amount ? `${naira(request.amount)} · ${what}` : what).slice(0, 150);
}

/** Fees or quote, in words: only a bridge carries a quote; the other kinds have none to show. */
function feesLine(request: ApprovalRequest): string {
  const q = request.display.quote;
  if (q) {
    return `*Quote*\nreceivable ${escapeMrkdwn(naira(q.amountReceivable))} · network fee ${escapeMrkdwn(naira(q.networkFee))} · bridge fee ${escapeMrkdwn(naira(q.bridgeFee))}`;
  }
  return '*Fees*\nnone quoted for this request';
}

function approvalsSoFar(request: ApprovalRequest): string {
  if (request.approvals.length === 0) return `none yet (${request.requiredApprovals} needed)`;
  const who = request.approvals.map((a) => `${approverWords(a)} at ${lagosTime(a.at)}`).join(', ');
  return `${request.approvals.length} of ${request.requiredApprovals}: ${who}`;
}

/** The balance as read when the review opened (withdrawals and redemptions). */
export interface ReviewBalance {
  check?: BalanceCheck | undefined;
  /** It could not be read. */
  unread?: boolean;
}

/** Who filed the request, when, how many approvals it has and when it expires. */
function whoAndWhenSection(request: ApprovalRequest, now: Date): KnownBlock {
  return {
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: `*Requested by*\n${mentionUser(request.requester)}` },
      { type: 'mrkdwn', text: `*Filed*\n${lagosTime(request.createdAt)}` },
      { type: 'mrkdwn', text: `*Approvals so far*\n${approvalsSoFar(request)}` },
      {
        type: 'mrkdwn',
        text: `*Expires*\n${lagosTime(request.expiresAt)}\n(${relative(request.expiresAt, now)})`,
      },
    ],
  };
}

/** Why the request was sent back to the approvers, when it was. */
function sentBackNotice(request: ApprovalRequest): KnownBlock[] {
  if (!request.reason) return [];
  return [
    {
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: `:warning: Sent back to the approvers: ${escapeMrkdwn(request.reason)}` },
      ],
    },
  ];
}

export function reviewModal(
  request: ApprovalRequest,
  now: Date,
  metadata: ReviewMetadata,
  balance: ReviewBalance = {},
  freeze?: Freeze,
): ModalView {
  const short = balance.check && !balance.check.enough ? balance.check : undefined;
  const lead = short
    ? 'Check every figure against what you expect. The balance does not cover this request, so it cannot be approved now.'
    : `Check every figure against what you expect. Nothing moves until you press *${escapeMrkdwn(reviewSubmitText(request))}*.`;
  const blocks: KnownBlock[] = [
    { type: 'header', text: plain(headerText(request)) },
    // Sends are frozen: an approval is recorded but nothing goes out until the freeze is lifted.
    ...(freeze && request.kind !== 'unfreeze' ? [freezeBanner(freeze)] : []),
    section(`${environmentMarker(request.environment)}  ·  \`${request.id}\`\n${lead}`),
  ];
  if (short) {
    // In place of the Approve button, first thing: why it cannot be approved. Nothing is sent.
    blocks.push(
      section(
        `:no_entry: *Not enough balance to approve:* ${escapeMrkdwn(shortfallText(short, now))}. Nothing was approved or sent; open the review again once the balance covers it.`,
      ),
    );
  }
  blocks.push({ type: 'divider' });
  if (request.amount) blocks.push(section(`*Amount*\n${escapeMrkdwn(naira(request.amount))}`));
  // The destination at full width, one figure a section: a long address is not squeezed into a column.
  for (const figure of destinationFields(request)) blocks.push(section(figure.text));
  blocks.push(
    ...purposeBlocks(request),
    ...hiddenCharactersNotice(request),
    ...sameRequestNotice(request, now),
  );
  // Right under the address it speaks of.
  const lookAlike = request.preflight?.lookAlike;
  if (lookAlike) blocks.push(lookAlikeSection(lookAlike, request));
  if (request.kind === 'bridge' || request.kind === 'withdraw' || request.kind === 'redeem') {
    blocks.push(section(feesLine(request)));
  }
  blocks.push(
    ...checksBlocks(request, now, {
      balance: balance.check,
      balanceUnread: balance.unread === true,
      withoutLookAlike: true,
    }),
  );
  blocks.push({ type: 'divider' }, whoAndWhenSection(request, now));
  blocks.push(...tierBasisNotice(request), ...sentBackNotice(request));
  return {
    type: 'modal',
    callback_id: REVIEW_VIEW,
    title: plain(short ? 'Review' : 'Review and approve'),
    ...(short ? {} : { submit: plain(reviewSubmitText(request)) }),
    close: plain('Back'),
    private_metadata: JSON.stringify(metadata),
    blocks,
  };
}

/**
 * What replaces the review modal when its submission is refused: the reason, and when the request
 * is still open in a new round, its figures as they are now. Nothing to submit: nothing was approved.
 */
export function reviewRefusedView(reason: string, request?: ApprovalRequest, now?: Date): ModalView {
  const blocks: KnownBlock[] = [section(`:no_entry: ${reason}`)];
  if (request && now && request.state === 'pending') {
    blocks.push(
      { type: 'divider' },
      section(`*Now:* ${escapeMrkdwn(requestTitle(request))}`),
      figuresSection(request, now),
      ...purposeBlocks(request),
      ...hiddenCharactersNotice(request),
    );
  }
  return { type: 'modal', title: plain('Not approved'), close: plain('Close'), blocks };
}

/** Said when the figures the modal showed are no longer the request's (it was sent back meanwhile). */
export function changedWhileOpen(request: ApprovalRequest): string {
  const why = request.reason ? ` (${escapeMrkdwn(request.reason)})` : '';
  return `${escapeMrkdwn(requestTitle(request))} changed while this window was open${why}, so the figures you reviewed are no longer the ones that would be sent. Nothing moved. Review the new figures below and approve from the request message if they are right.`;
}
