// Where a click's private answers go. A click in a message has its channel. A click in a view (App
// Home) has none: the answer goes to the person's DM with the app (conversations.open, im:write), which
// Slack shows under the app's Messages tab; if that cannot be opened, the approvals channel is used.
import type { WebClient } from '@slack/web-api';
import type { Click } from './approval-click.js';

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
