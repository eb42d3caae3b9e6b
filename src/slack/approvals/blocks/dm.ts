// The copy of an approval request sent by DM to each eligible approver: the same figures and the same
// Approve / Reject buttons (same action ids, same `id:round` value) as the channel message, so a click
// here takes exactly the channel's path. Updated in place as the request moves on; once it is no
// longer pending it carries no buttons. Pure: request and time in, Block Kit out.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, Freeze } from '../../../approvals/index.js';
import { lagosTime } from '../../../format/display.js';
import { escapeMrkdwn, mentionUser } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { fitBlocks } from '../../ui/messages.js';
import { requestTitle } from '../../ui/words.js';
import { approvalMessage, stateLine } from './message.js';

/** A delegate's place: whose approvals they give, and until when. */
export interface DelegatePlace {
  delegator: string;
  until: string;
}

/** A delegate's place as a line of its own, for the short forms of their copy (short-message.ts). */
export const placeNote = (place: DelegatePlace): string =>
  `You approve in ${mentionUser(place.delegator)}'s place until ${escapeMrkdwn(lagosTime(place.until))}.`;

/**
 * The copy for `approver`: once they have approved (this round), it waits for others and has no
 * buttons; once approved and until it is claimed for sending, an approver's own copy (`ownRight`)
 * carries Reject. A delegate's copy (`place`) says in whose place they approve, and until when;
 * `freeze`, when sends are frozen, puts its banner on it as on the channel's message. `needed`: how
 * many approvals it needs, from the engine (absent: its stored count).
 */
export function approvalDm(
  request: ApprovalRequest,
  now: Date,
  approver?: string,
  place?: DelegatePlace,
  freeze?: Freeze,
  ownRight = false,
  needed?: number,
): SlackMessage {
  const mine = request.approvals.find((a) => a.user === approver || a.onBehalfOf === approver);
  // Approved and not yet sent, it can still be stopped by an approver in their own right (`ownRight`),
  // even one who approved it; never in a delegate's place.
  const stoppable = request.state === 'approved' && ownRight;
  const approve = request.state === 'approved' ? stoppable : !mine;
  const shown = needed === undefined ? undefined : () => needed;
  const message = approvalMessage(request, now, { cancel: false, approve }, freeze, shown);
  const title = escapeMrkdwn(requestTitle(request));
  const inPlace =
    mine?.user === approver && mine?.onBehalfOf ? ` in ${mentionUser(mine.onBehalfOf)}'s place` : '';
  const standIn = place
    ? ` (you approve in ${mentionUser(place.delegator)}'s place until ${escapeMrkdwn(lagosTime(place.until))})`
    : '';
  // Worded as the channel message's state line: held by a freeze, it says held, not just approved.
  const state = stateLine(request, freeze);
  const lead = stoppable
    ? `${title}: ${state}, not sent yet. You can still reject it here to stop it before it is sent.`
    : request.state !== 'pending'
      ? `${title}: ${state}. Nothing is waiting for you here any more.`
      : mine
        ? `You approved ${title}${inPlace}; it waits for more approvals.`
        : `${mentionUser(request.requester)} asks for your approval${standIn}: ${title}`;
  const intro: KnownBlock = { type: 'section', text: { type: 'mrkdwn', text: lead } };
  return { text: lead, blocks: fitBlocks([intro, ...message.blocks]) };
}
