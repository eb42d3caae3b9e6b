// The approval message in its shortest forms, for when Slack refuses the full one (invalid_blocks,
// msg_too_long): the request's title and amount, its state, where to follow it, and the full message's
// buttons (Approve, Reject, the requester's Cancel and Extend, the stop buttons of an approved request
// held by a freeze: the requester's Cancel is offered nowhere else). Made only of the bot's own words, the request's id,
// kind and amount, those buttons (the bot's own ids and labels) and, on a delegate's copy, the mention
// and end of their place, so Slack has nothing to refuse.
import type { ActionsBlock, KnownBlock } from '@slack/types';
import type { ApprovalRequest, Freeze } from '../../../approvals/index.js';
import { lagosTime } from '../../../format/display.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { contextLine, section } from '../../ui/messages.js';
import { requestTitle } from '../../ui/words.js';
import { APPROVAL_ACTIONS_BLOCK, CANCEL_ACTION, REJECT_ACTION, stateLine } from './message.js';

/** Where a reader follows what the short form leaves out: each step is a reply in the message's thread. */
const SHORT_FORM_NOTE =
  'Slack would not show this request’s full message, so it is shown in short: each step is added in this thread, and `/cngn pending` lists the request while it waits.';

/** The same for an approver's DM copy: the whole request is on its message in the approvals channel. */
export const SHORT_DM_NOTE =
  'Slack would not show this request’s full message here, so it is shown in short: its message in the approvals channel has all of it, and `/cngn pending` lists the request while it waits.';

/** The buttons that stop a request (Reject, the requester's Cancel): the last form keeps them. */
const STOP_ACTIONS: ReadonlySet<string> = new Set([REJECT_ACTION, CANCEL_ACTION]);

/** Does the message carry the requester's Cancel? */
export const hasCancel = (message: SlackMessage): boolean =>
  message.blocks.some(
    (b) => b.type === 'actions' && b.elements.some((e) => 'action_id' in e && e.action_id === CANCEL_ACTION),
  );

/**
 * The short forms to try in turn: with the full message's buttons; then, should Slack refuse those
 * too, a minimal one of the request's id and its Reject and Cancel only; last, without buttons (the
 * one form when the full message has no buttons). `note`: where the rest is followed. `place`: a
 * delegate's copy says in every form in whose place they approve (dm.ts `placeNote`), or a click
 * there would count as someone else's without their knowing.
 */
export function shortApprovalMessages(
  request: ApprovalRequest,
  full: SlackMessage,
  freeze?: Freeze,
  note = SHORT_FORM_NOTE,
  place?: string,
): SlackMessage[] {
  // The state as the full message words it (held by a freeze, where it is).
  const line = `${escapeMrkdwn(requestTitle(request))} — ${stateLine(request, freeze)}`;
  const placed = place ? [section(place)] : [];
  const withPlace = (text: string) => (place ? `${text}. ${place}` : text);
  const bare = [section(`*${line}*`), ...placed, contextLine(note)];
  const buttons = full.blocks.filter((b): b is ActionsBlock => b.block_id === APPROVAL_ACTIONS_BLOCK);
  const shortForm = (blocks: KnownBlock[]) => ({ text: withPlace(line), blocks });
  const stops = buttons
    .flatMap((b) => b.elements)
    .filter((e) => 'action_id' in e && STOP_ACTIONS.has(e.action_id ?? ''));
  const minimal: SlackMessage[] =
    stops.length > 0
      ? [
          {
            text: withPlace(`Request ${request.id}`),
            blocks: [
              section(`*Request \`${escapeMrkdwn(request.id)}\`*`),
              ...placed,
              contextLine(note),
              { type: 'actions', block_id: APPROVAL_ACTIONS_BLOCK, elements: stops },
            ],
          },
        ]
      : [];
  return buttons.length > 0
    ? [shortForm([...bare, ...buttons]), ...minimal, shortForm(bare)]
    : [shortForm(bare)];
}

/**
 * What the requester is told by DM when Slack showed their request's message without its Cancel: no
 * command cancels a request, so it says who can still stop it.
 */
export function cancelElsewhereNotice(request: ApprovalRequest): string {
  const title = escapeMrkdwn(requestTitle(request));
  const lead = `Slack would not show the buttons on the message of your request ${title}, so its Cancel button is not there, and no command cancels a request.`;
  return request.state === 'approved'
    ? `${lead} It is approved and not sent yet: to stop it, ask an approver to reject it (Reject is on their DM copy).`
    : `${lead} To stop it, ask an approver to reject it (Reject is in their App Home and on their DM copy). Nothing moves until it is approved, and it ends on its own when it expires (${escapeMrkdwn(lagosTime(request.expiresAt))}).`;
}
