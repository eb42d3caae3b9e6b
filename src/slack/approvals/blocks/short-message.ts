// The approval message in its shortest form, for when Slack refuses the full one (invalid_blocks,
// msg_too_long): the request's title and amount, its state, and where its details are. Made only of
// the bot's own words and the request's id, kind and amount, so Slack has nothing in it to refuse.
import type { ApprovalRequest } from '../../../approvals/index.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { contextLine, section } from '../../ui/messages.js';
import { requestTitle, stateWords } from '../../ui/words.js';

/** Where an approver finds what the short form leaves out (the figures, checks and buttons). */
const SHORT_FORM_NOTE =
  'Slack would not show this request’s full message: its details and buttons are in the bot’s App Home, and `/cngn pending` lists it while it waits.';

export function shortApprovalMessage(request: ApprovalRequest): SlackMessage {
  const line = `${escapeMrkdwn(requestTitle(request))} — ${stateWords(request)}`;
  return { text: line, blocks: [section(`*${line}*`), contextLine(SHORT_FORM_NOTE)] };
}
