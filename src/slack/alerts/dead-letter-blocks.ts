// `/cngn deadletters`: the alerts Slack refused, each with Slack's answer and a Re-post button, and the
// modal where an approver picks the channel to re-post to. Pure: data in, Block Kit out.
import type { KnownBlock, ModalView } from '@slack/types';
import { lagosTime, serviceAmount } from '../../format/display.js';
import { clipMrkdwn, escapeMrkdwn, mentionChannel } from '../../format/mrkdwn.js';
import type { DeadLetter } from '../../webhooks/types.js';
import type { SlackMessage } from '../types.js';

export const DEAD_LETTER_REPOST_ACTION = 'deadletters.repost' as const;
export const DEAD_LETTER_VIEW = 'deadletters.repost.submit' as const;
export const DEAD_LETTER_CHANNEL = 'deadletters.channel' as const;
/** The button value and modal target that mean every open letter. */
export const ALL_LETTERS = 'all';
const MAX_ROWS = 20;

/** The start of a letter's id that the list shows and commands accept. */
export const shortId = (id: string) => id.slice(0, 8);

export function deadLetterLine(letter: DeadLetter): string {
  const { data } = letter.event;
  const ref = data.trx_ref ?? data.transactionId;
  const amount =
    data.amount !== undefined && data.amount !== null
      ? ` · ${escapeMrkdwn(serviceAmount(String(data.amount)))}`
      : '';
  const replay = letter.stale ? ` · :warning: possible replay${STALE_WHY[String(letter.stale)] ?? ''}` : '';
  return `*${escapeMrkdwn(letter.event.event)}*${replay}${ref ? ` · ${escapeMrkdwn(String(ref))}` : ''}${amount}\nRefused in ${mentionChannel(letter.channel)} ${lagosTime(letter.at)} after ${letter.attempts} attempt(s): \`${escapeMrkdwn(letter.reason)}\` · id \`${shortId(letter.id)}\``;
}

/** Which clock is suspect, when the letter recorded it. */
const STALE_WHY: Record<string, string> = {
  old: ' (signed longer ago than deliveries are remembered)',
  ahead: ' (dated ahead of the bot’s clock)',
};

export function deadLettersMessage(letters: DeadLetter[], environment: string): SlackMessage {
  if (letters.length === 0) {
    const text = `No dead letters: Slack has taken every alert. · ${environment}`;
    return { text, blocks: [section(text)] };
  }
  const text = `*Alerts Slack refused (${letters.length})* · ${environment}`;
  const blocks: KnownBlock[] = [section(text)];
  for (const letter of letters.slice(0, MAX_ROWS)) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clipMrkdwn(deadLetterLine(letter)) },
      accessory: {
        type: 'button',
        action_id: DEAD_LETTER_REPOST_ACTION,
        text: { type: 'plain_text', text: 'Re-post…' },
        value: letter.id,
      },
    });
  }
  if (letters.length > MAX_ROWS) blocks.push(section(`…and ${letters.length - MAX_ROWS} more`));
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: DEAD_LETTER_REPOST_ACTION,
        text: { type: 'plain_text', text: `Re-post all ${letters.length}…` },
        value: ALL_LETTERS,
      },
    ],
  });
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: 'Approvers can re-post to a channel they choose, here or with `/cngn deadletters repost &lt;id|all&gt; &lt;channel ID&gt;`. A re-posted alert leaves this list; each re-post is audited.',
      },
    ],
  });
  return { text, blocks };
}

export function repostModal(
  target: DeadLetter | typeof ALL_LETTERS,
  count: number,
  environment: string,
): ModalView {
  const what =
    target === ALL_LETTERS ? `all ${count} alerts Slack refused` : deadLetterLine(target).split('\n')[0];
  return {
    type: 'modal',
    callback_id: DEAD_LETTER_VIEW,
    title: { type: 'plain_text', text: 'Re-post alerts' },
    submit: { type: 'plain_text', text: 'Re-post' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify({ target: target === ALL_LETTERS ? ALL_LETTERS : target.id }),
    blocks: [
      section(`Re-post ${what}?`),
      {
        type: 'input',
        block_id: DEAD_LETTER_CHANNEL,
        label: { type: 'plain_text', text: 'Channel' },
        element: {
          type: 'conversations_select',
          action_id: DEAD_LETTER_CHANNEL,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
          placeholder: { type: 'plain_text', text: 'Pick a channel the bot is in' },
        },
      },
      {
        type: 'context',
        elements: [{ type: 'mrkdwn', text: `${environment} · the bot must be a member of the channel` }],
      },
    ],
  };
}

/** What the approver is told after a re-post, one line per letter. */
export function repostSummary(lines: string[]): SlackMessage {
  const text = clipMrkdwn(lines.join('\n'));
  return { text, blocks: [section(text)] };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(text) } };
}
