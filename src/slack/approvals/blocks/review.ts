// The review modal an Approve click opens: every figure of the request again, in full and at full
// width (the whole address or account, the resolved name, network, fees or quote, requester, approvals
// so far, expiry, environment), and a submit button that names the amount. Only its submission
// approves, for the round it showed. Where the approval must be signed, a link to the signing page
// stands in place of the submit (docs/passkeys.md). Pure: request and time in, Block Kit out; every outside value is
// escaped where it enters mrkdwn.
import type { KnownBlock, ModalView } from '@slack/types';
import type { ApprovalRequest, BalanceCheck, Freeze } from '../../../approvals/index.js';
import { environmentMarker, lagosTime, naira, relative } from '../../../format/display.js';
import { clipPlain, escapeMrkdwn, mentionUser } from '../../../format/mrkdwn.js';
import { freezeBanner } from '../../ui/freeze.js';
import { fitBlocks } from '../../ui/messages.js';
import { KIND_TITLE, requestTitle } from '../../ui/words.js';
import { type ApprovalsShown, FILED_COUNT } from './approvals-shown.js';
import { checksBlocks, lookAlikeSection, shortfallText } from './checks.js';
import { tierBasisNotice } from './limits.js';
import { approverWords, destinationFields, figuresSection, hiddenCharactersNotice } from './message.js';
import { purposeBlocks } from './purpose.js';
import { sameRequestNotice } from './same-request.js';

/** A Slack conversation id as the review's metadata may carry it: a channel (C, G) or a DM (D). */
export const SLACK_CHANNEL_ID = /^[CDG][A-Z0-9]{8,39}$/;

export const REVIEW_VIEW = 'approval.review.submit';
/** The signing link's button: Slack opens its URL and still sends the click, which is acked and ignored. */
export const SIGN_LINK_ACTION = 'approval.review.sign';

/** Slack refuses a modal whose submit text is longer than this. */
const SUBMIT_MAX = 24;
/** Slack refuses a button whose text is longer than this. */
const BUTTON_MAX = 75;

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

/**
 * How this approver approves a request that must be signed (blocks in place of the submit): the link
 * to the signing page, one-time and theirs (`link`), or why there is none for them.
 */
export type ReviewSigning = { link: string } | { noPasskey: true } | { noPage: true };

/** `Sign ₦250,000.00 with your passkey`: the exact amount, never rounded; a kind without one, no amount. */
function signLinkText(request: ApprovalRequest): string {
  if (!request.amount) return 'Sign with your passkey';
  const full = `Sign ${naira(request.amount)} with your passkey`;
  return full.length <= BUTTON_MAX ? full : 'Sign the amount above with your passkey';
}

/** In place of the submit, first thing after the figures: the signing link, or why this approver has none. */
function signingBlocks(request: ApprovalRequest, signing: ReviewSigning): KnownBlock[] {
  if ('link' in signing) {
    return [
      {
        type: 'actions',
        block_id: SIGN_LINK_ACTION,
        elements: [
          {
            type: 'button',
            action_id: SIGN_LINK_ACTION,
            style: 'primary',
            text: plain(signLinkText(request)),
            url: signing.link,
          },
        ],
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'This link is yours only, for this request as shown here; it works once, for 10 minutes. Your passkey signs these exact figures.',
          },
        ],
      },
    ];
  }
  if ('noPasskey' in signing) {
    return [
      section(
        ':lock: *This request must be approved with a passkey*, and you hold none: register one with `/cngn passkey` (another approver approves it). Meanwhile an approver who holds one can approve it.',
      ),
    ];
  }
  return [
    section(
      ':lock: *This request must be approved with a passkey*, and the signing page has no address here: set CNGN_SIGNING_URL.',
    ),
  ];
}

/** The first lines: what to check, and what approves (the submit, the signing link, or nothing now). */
function leadText(request: ApprovalRequest, short: boolean, signing: ReviewSigning | undefined): string {
  if (short)
    return 'Check every figure against what you expect. The balance does not cover this request, so it cannot be approved now.';
  if (signing && 'link' in signing)
    return 'Check every figure against what you expect. Nothing moves until you sign them with your passkey (the link below).';
  if (signing) return 'Check every figure against what you expect. This request is approved with a passkey.';
  return `Check every figure against what you expect. Nothing moves until you press *${escapeMrkdwn(reviewSubmitText(request))}*.`;
}

/** Slack's limit on a header's text. */
const MAX_HEADER = 150;

/** The amount and kind; an amount too long for a header is cut so that the cut shows. */
function headerText(request: ApprovalRequest): string {
  const what = KIND_TITLE[request.kind];
  return clipPlain(request.amount ? `${naira(request.amount)} · ${what}` : what, MAX_HEADER);
}

/** Fees or quote, in words: only a bridge carries a quote; the other kinds have none to show. */
function feesLine(request: ApprovalRequest): string {
  const q = request.display.quote;
  if (q) {
    return `*Quote*\nreceivable ${escapeMrkdwn(naira(q.amountReceivable))} · network fee ${escapeMrkdwn(naira(q.networkFee))} · bridge fee ${escapeMrkdwn(naira(q.bridgeFee))}`;
  }
  return '*Fees*\nnone quoted for this request';
}

function approvalsSoFar(request: ApprovalRequest, needed: number): string {
  if (request.approvals.length === 0) return `none yet (${needed} needed)`;
  const who = request.approvals.map((a) => `${approverWords(a)} at ${lagosTime(a.at)}`).join(', ');
  return `${request.approvals.length} of ${needed}: ${who}`;
}

/** The balance as read when the review opened (withdrawals and redemptions). */
export interface ReviewBalance {
  check?: BalanceCheck | undefined;
  /** It could not be read. */
  unread?: boolean;
}

/** Who filed the request, when, how many approvals it has and when it expires. */
function whoAndWhenSection(request: ApprovalRequest, now: Date, needed: number): KnownBlock {
  return {
    type: 'section',
    fields: [
      { type: 'mrkdwn', text: `*Requested by*\n${mentionUser(request.requester)}` },
      { type: 'mrkdwn', text: `*Filed*\n${lagosTime(request.createdAt)}` },
      { type: 'mrkdwn', text: `*Approvals so far*\n${approvalsSoFar(request, needed)}` },
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

/** The figures: amount, destination at full width, purpose and its notices, look-alike, fees or quote. */
function figureBlocks(request: ApprovalRequest, now: Date): KnownBlock[] {
  const blocks: KnownBlock[] = [];
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
  return blocks;
}

/**
 * `signing`: the request must be signed by this approver (actions/review-signing.ts): no submit, the
 * signing link (or why there is none) first thing after the figures. `shown`: how many approvals it
 * needs, from the engine.
 */
export function reviewModal(
  request: ApprovalRequest,
  now: Date,
  metadata: ReviewMetadata,
  balance: ReviewBalance = {},
  freeze?: Freeze,
  signing?: ReviewSigning,
  shown: ApprovalsShown = FILED_COUNT,
): ModalView {
  const short = balance.check && !balance.check.enough ? balance.check : undefined;
  const lead = leadText(request, Boolean(short), signing);
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
  blocks.push({ type: 'divider' }, ...figureBlocks(request, now));
  if (signing && !short) blocks.push(...signingBlocks(request, signing));
  blocks.push(
    ...checksBlocks(request, now, {
      balance: balance.check,
      balanceUnread: balance.unread === true,
      withoutLookAlike: true,
    }),
  );
  blocks.push({ type: 'divider' }, whoAndWhenSection(request, now, shown(request)));
  blocks.push(...tierBasisNotice(request), ...sentBackNotice(request));
  return {
    type: 'modal',
    callback_id: REVIEW_VIEW,
    title: plain(short || (signing && !('link' in signing)) ? 'Review' : 'Review and approve'),
    ...(short || signing ? {} : { submit: plain(reviewSubmitText(request)) }),
    close: plain('Back'),
    private_metadata: JSON.stringify(metadata),
    blocks: fitBlocks(blocks),
  };
}

/**
 * What replaces the review modal when its submission is refused: the reason, and when the request
 * is still open in a new round, its figures as they are now. Nothing to submit: nothing was approved.
 */
export function reviewRefusedView(
  reason: string,
  request?: ApprovalRequest,
  now?: Date,
  shown: ApprovalsShown = FILED_COUNT,
): ModalView {
  const blocks: KnownBlock[] = [section(`:no_entry: ${reason}`)];
  if (request && now && request.state === 'pending') {
    blocks.push(
      { type: 'divider' },
      section(`*Now:* ${escapeMrkdwn(requestTitle(request))}`),
      figuresSection(request, now, shown),
      ...purposeBlocks(request),
      ...hiddenCharactersNotice(request),
    );
  }
  return { type: 'modal', title: plain('Not approved'), close: plain('Close'), blocks: fitBlocks(blocks) };
}

/** Said when the figures the modal showed are no longer the request's (it was sent back meanwhile). */
export function changedWhileOpen(request: ApprovalRequest): string {
  const why = request.reason ? ` (${escapeMrkdwn(request.reason)})` : '';
  return `${escapeMrkdwn(requestTitle(request))} changed while this window was open${why}, so the figures you reviewed are no longer the ones that would be sent. Nothing moved. Review the new figures below and approve from the request message if they are right.`;
}
