// The approval message in its shortest form, for when Slack refuses the full one (invalid_blocks,
// msg_too_long): the request's title and amount, its state, where to follow it, and the full message's
// buttons (Approve, Reject, the requester's Cancel and Extend, the stop buttons of an approved request
// held by a freeze: the requester's Cancel is offered nowhere else). Made only of the bot's own words, the request's id,
// kind and amount, and those buttons (the bot's own ids and labels), so Slack has nothing to refuse.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, Freeze } from '../../../approvals/index.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { contextLine, section } from '../../ui/messages.js';
import { requestTitle } from '../../ui/words.js';
import { APPROVAL_ACTIONS_BLOCK, stateLine } from './message.js';

/** Where a reader follows what the short form leaves out: each step is a reply in the message's thread. */
const SHORT_FORM_NOTE =
  'Slack would not show this request’s full message, so it is shown in short: each step is added in this thread, and `/cngn pending` lists the request while it waits.';

/**
 * The short forms to try in turn: with the full message's buttons, then, should Slack refuse those
 * too, without them (the one form when the full message has no buttons).
 */
export function shortApprovalMessages(
  request: ApprovalRequest,
  full: SlackMessage,
  freeze?: Freeze,
): SlackMessage[] {
  // The state as the full message words it (held by a freeze, where it is).
  const line = `${escapeMrkdwn(requestTitle(request))} — ${stateLine(request, freeze)}`;
  const bare = [section(`*${line}*`), contextLine(SHORT_FORM_NOTE)];
  const buttons = full.blocks.filter((b) => b.block_id === APPROVAL_ACTIONS_BLOCK);
  const shortForm = (blocks: KnownBlock[]) => ({ text: line, blocks });
  return buttons.length > 0 ? [shortForm([...bare, ...buttons]), shortForm(bare)] : [shortForm(bare)];
}
