// Review all: from `/cngn pending`, an approver with several requests waiting for them opens one modal
// listing each with its full figures (the approval message's own builder) and a checkbox carrying
// `id:round`, so each checked one is approved for the figures this modal showed, or refused if it
// changed. Pure builders: data in, Block Kit out; every outside value escaped where it enters mrkdwn.
import type { Button, KnownBlock, ModalView } from '@slack/types';
import type { ApprovalRequest, BalanceCheck, Freeze } from '../../../approvals/index.js';
import { clipMrkdwn, clipPlain, escapeMrkdwn } from '../../../format/mrkdwn.js';
import { freezeBanner } from '../../ui/freeze.js';
import { fitBlocks } from '../../ui/messages.js';
import { requestTitle } from '../../ui/words.js';
import { type ApprovalsShown, FILED_COUNT } from './approvals-shown.js';
import { checksBlocks, shortfallText } from './checks.js';
import { tierBasisNotice } from './limits.js';
import { approvalButtonValue, figuresSection, hiddenCharactersNotice } from './message.js';
import { purposeBlocks } from './purpose.js';
import type { ReviewBalance } from './review.js';
import { sameRequestNotice } from './same-request.js';

export const REVIEW_ALL_ACTION = 'approval.review_all';
export const REVIEW_ALL_VIEW = 'approval.review_all.submit';
export const REVIEW_ALL_PICK = 'review_all.pick';
/** Slack allows 10 options in one checkbox group: the modal shows the first 10 waiting. */
export const REVIEW_ALL_MAX = 10;
/** Review all is offered from this many requests waiting for the person. */
export const REVIEW_ALL_MIN = 2;

const plain = (text: string) => ({ type: 'plain_text' as const, text: clipPlain(text, 75) });

export function reviewAllButton(waiting: number): Button {
  return {
    type: 'button',
    action_id: REVIEW_ALL_ACTION,
    text: plain(`Review all (${waiting})`),
    value: 'review',
  };
}

/** The words on a checkbox: the bot's own title and amount, plain text (no mrkdwn to escape). */
function pickLabel(request: ApprovalRequest): string {
  return `${requestTitle(request)}`;
}

/** Said of a request that must be signed: Review all never approves it with a tick. */
export const NEEDS_PASSKEY = 'needs your passkey: open it to sign';

/** Why a request is left out of the boxes: the balance does not cover it, or a passkey must sign it. */
function leftOut(short: BalanceCheck | undefined, mustSign: boolean, now: Date): KnownBlock[] {
  let why: string | undefined;
  if (short) why = `:no_entry: *Not enough balance to approve:* ${escapeMrkdwn(shortfallText(short, now))}.`;
  else if (mustSign) why = `:lock: *This one ${NEEDS_PASSKEY}* from its message (Approve).`;
  if (!why) return [];
  return [{ type: 'section', text: { type: 'mrkdwn', text: `${why} It is left out of the boxes below.` } }];
}

/**
 * `balances`: each withdrawal's or redemption's balance as read when the list opened, or again once
 * open (actions/review-all.ts), as the single review shows it. One the balance does not cover says
 * why in place of its box: it cannot be ticked (the engine refuses its approval anyway). `signed`:
 * the ids of requests that must be signed with a passkey, likewise left out of the boxes. `needed`: how
 * many approvals each needs, from the engine.
 */
export function reviewAllModal(
  waiting: readonly ApprovalRequest[],
  now: Date,
  environment: string,
  metadata: string,
  freeze?: Freeze,
  balances: Readonly<Record<string, ReviewBalance>> = {},
  signed: ReadonlySet<string> = new Set(),
  needed: ApprovalsShown = FILED_COUNT,
): ModalView {
  const shown = waiting.slice(0, REVIEW_ALL_MAX);
  const short = (request: ApprovalRequest) => {
    const check = balances[request.id]?.check;
    return check && !check.enough ? check : undefined;
  };
  const pickable = shown.filter((request) => !short(request) && !signed.has(request.id));
  const blocks: KnownBlock[] = [
    ...(freeze ? [freezeBanner(freeze)] : []),
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*${shown.length} requests wait for your approval* · ${escapeMrkdwn(environment)}\nCheck each figure; only the ones you tick are approved, one by one, each for the figures shown here.${waiting.length > shown.length ? ` (The first ${shown.length} of ${waiting.length}; the rest stay in \`/cngn pending\`.)` : ''}`,
      },
    },
  ];
  for (const request of shown) {
    blocks.push(
      { type: 'divider' },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${escapeMrkdwn(requestTitle(request))}*  ·  \`${request.id}\`` },
      },
      figuresSection(request, now, needed),
      ...purposeBlocks(request),
      ...hiddenCharactersNotice(request),
      ...sameRequestNotice(request, now),
      ...tierBasisNotice(request),
      ...checksBlocks(request, now, {
        compact: true,
        balance: balances[request.id]?.check,
        balanceUnread: balances[request.id]?.unread === true,
      }),
    );
    blocks.push(...leftOut(short(request), signed.has(request.id), now));
  }
  blocks.push({ type: 'divider' });
  if (pickable.length > 0) {
    blocks.push({
      type: 'input',
      block_id: REVIEW_ALL_PICK,
      label: plain('Approve these'),
      element: {
        type: 'checkboxes',
        action_id: REVIEW_ALL_PICK,
        options: pickable.map((request) => ({
          text: plain(pickLabel(request)),
          value: approvalButtonValue(request),
        })),
      },
    });
  }
  return {
    type: 'modal',
    callback_id: REVIEW_ALL_VIEW,
    title: plain('Review all'),
    ...(pickable.length > 0 ? { submit: plain('Approve checked') } : {}),
    close: plain('Cancel'),
    private_metadata: metadata,
    blocks: fitBlocks(blocks),
  };
}

export interface ReviewOutcome {
  id: string;
  /**
   * Approved; not approved, the reason in the bot's own words (refusalText / stale round); or maybe
   * recorded: the store failed after its write started, so neither is certain.
   */
  outcome: 'approved' | 'not-approved' | 'maybe-recorded';
  text: string;
}

const MARKS: Record<ReviewOutcome['outcome'], string> = {
  approved: ':white_check_mark:',
  'not-approved': ':no_entry:',
  'maybe-recorded': ':warning:',
};

/** The per-request results, as mrkdwn lines (the texts are the bot's own words, ids and amounts). */
export function reviewAllResultText(outcomes: readonly ReviewOutcome[]): string {
  const count = (outcome: ReviewOutcome['outcome']) => outcomes.filter((o) => o.outcome === outcome).length;
  const maybe = count('maybe-recorded');
  // One that may have been recorded counts neither as approved nor as not approved.
  const unsure = maybe > 0 ? `; ${maybe} may not have been recorded` : '';
  const lines = outcomes.map((o) => `${MARKS[o.outcome]} ${escapeMrkdwn(o.text)}`);
  return clipMrkdwn(
    `*Review all: ${count('approved')} of ${outcomes.length} approved${unsure}*\n${lines.join('\n')}`,
  );
}

export function reviewAllResultView(outcomes: readonly ReviewOutcome[]): ModalView {
  return {
    type: 'modal',
    title: plain('Review all'),
    close: plain('Close'),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: reviewAllResultText(outcomes) } }],
  };
}

export const REVIEW_ALL_WORKING =
  'Approving the requests you checked, one by one, each for the figures you saw… The results appear here and privately in the channel.';
