// Where a click's private answers go. A click in a message has its channel. A click in a view (App
// Home) has none: the answer goes to the person's DM with the app (conversations.open, im:write), which
// Slack shows under the app's Messages tab; if that cannot be opened, the approvals channel is used.
import type { WebClient } from '@slack/web-api';
import type { ApprovalRequest } from '../../../approvals/index.js';
import { SLACK_CHANNEL_ID } from '../blocks/review.js';
import type { Click } from '../types.js';

export async function answerPlace(
  client: WebClient,
  click: Pick<Click, 'channel' | 'user'>,
): Promise<{ channel: string | undefined; user: string }> {
  if (click.channel) return { channel: click.channel, user: click.user };
  try {
    const opened = await client.conversations.open({ users: click.user });
    return { channel: opened.channel?.id, user: click.user };
  } catch {
    return { channel: undefined, user: click.user };
  }
}

/**
 * Whether the channel a modal carries in its private_metadata is one its button could have been clicked
 * in, so that its private answers may go there: none (App Home), a DM (D…, where only the person sees
 * an answer), the approvals channel, or the channel of one of the requests' own messages. Anything else,
 * or anything that is not a Slack conversation id, is refused: private answers never go somewhere else.
 */
export function channelFits(
  channel: string | undefined,
  approvalsChannel: string,
  requests: readonly (ApprovalRequest | undefined)[] = [],
): boolean {
  if (channel === undefined) return true;
  if (!SLACK_CHANNEL_ID.test(channel)) return false;
  if (channel.startsWith('D') || channel === approvalsChannel) return true;
  return requests.some((request) => request?.announcement?.channel === channel);
}
