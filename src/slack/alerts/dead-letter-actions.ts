// The Re-post… buttons of `/cngn deadletters` and the modal behind them: an approver picks a channel
// (conversations_select), the letters are re-posted there and the approver is told how it went in the
// app's Messages tab. Thin: ack, check, hand over to repostLetters.
import type { App, BlockAction, ButtonAction, ViewSubmitAction } from '@slack/bolt';
import { z } from 'zod';
import {
  ALL_LETTERS,
  DEAD_LETTER_CHANNEL,
  DEAD_LETTER_REPOST_ACTION,
  DEAD_LETTER_VIEW,
  repostModal,
  repostSummary,
} from './dead-letter-blocks.js';
import { NOT_AN_APPROVER, repostLetters } from './dead-letter-command.js';
import type { DeadLetterSlackDeps } from './types.js';

const metadataSchema = z.object({ target: z.string().min(1) });

export function registerDeadLetterActions(app: App, deps: DeadLetterSlackDeps): void {
  app.action<BlockAction<ButtonAction>>(
    DEAD_LETTER_REPOST_ACTION,
    async ({ ack, body, action, client, respond }) => {
      await ack();
      const say = (text: string) => respond({ response_type: 'ephemeral', replace_original: false, text });
      if (!(await deps.approvals.engine.isApprover(body.user.id))) return void (await say(NOT_AN_APPROVER));
      const open = await deps.desk.open();
      const target = action.value === ALL_LETTERS ? ALL_LETTERS : open.find((l) => l.id === action.value);
      if (!target || open.length === 0)
        return void (await say('That alert was already re-posted; `/cngn deadletters` shows what is left.'));
      await client.views.open({
        trigger_id: body.trigger_id,
        view: repostModal(target, open.length, deps.approvals.environmentLabel),
      });
    },
  );

  app.view<ViewSubmitAction>(DEAD_LETTER_VIEW, async ({ ack, body, client }) => {
    const read = readChannel(body.view.state?.values);
    if ('problem' in read)
      return void (await ack({
        response_action: 'errors',
        errors: { [DEAD_LETTER_CHANNEL]: `Channel: ${read.problem}` },
      }));
    const { channel } = read;
    await ack();
    const user = body.user.id;
    const dmSummary = (lines: string[]) =>
      client.chat.postMessage({ channel: user, ...repostSummary(lines) });
    if (!(await deps.approvals.engine.isApprover(user))) return void (await dmSummary([NOT_AN_APPROVER]));
    const meta = metadataSchema.safeParse(safeJson(body.view.private_metadata));
    if (!meta.success)
      return void (await dmSummary(['That form is out of date; run `/cngn deadletters` again.']));
    await dmSummary(await repostLetters(deps, meta.data.target, channel, user));
  });
}

const channelSchema = z
  .object({
    [DEAD_LETTER_CHANNEL]: z
      .object({
        [DEAD_LETTER_CHANNEL]: z
          .object({ selected_conversation: z.string().max(40).nullish() }, 'not a channel picker')
          .optional(),
      })
      .optional(),
  })
  .optional();

/** The picked channel read with zod, or the reason it cannot be read (shown under the field). */
function readChannel(values: unknown): { channel: string } | { problem: string } {
  const parsed = channelSchema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.at(-1) === 'selected_conversation' ? 'not a channel id' : issue?.message;
    return { problem: field ?? 'not a value this form takes' };
  }
  const channel = parsed.data?.[DEAD_LETTER_CHANNEL]?.[DEAD_LETTER_CHANNEL]?.selected_conversation;
  return channel ? { channel } : { problem: 'pick the channel to re-post to' };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
