// `/cngn deadletters`: the alerts Slack refused, with why. `/cngn deadletters repost <id|all> <channel>`:
// an approver re-posts one or all of them to a channel; each re-post (or Slack's refusal) is audited,
// and a re-posted letter leaves the list. The buttons and modal of the list end in repostLetters too.

import { escapeMrkdwn, mentionChannel } from '../../format/mrkdwn.js';
import type { DeadLetter, RepostOutcome, RepostResult } from '../../webhooks/index.js';
import { type FeatureSubcommand, READERS, type SlackMessage } from '../types.js';
import { errorMessage, noticeMessage } from '../ui/messages.js';
import { ALL_LETTERS, deadLettersMessage, repostSummary, shortId } from './dead-letter-blocks.js';
import type { DeadLetterSlackDeps } from './types.js';

const DEAD_LETTERS_USAGE =
  'Usage: `/cngn deadletters` to list them, `/cngn deadletters repost &lt;id|all&gt; &lt;#channel or its ID&gt;` to re-post (approvers).';

export const NOT_AN_APPROVER = 'Only approvers can re-post dead letters; nothing was posted.';

async function deadLettersCommand(
  args: string[],
  userId: string,
  deps: DeadLetterSlackDeps,
): Promise<SlackMessage> {
  const sub = args[0]?.toLowerCase();
  if (!sub) return deadLettersMessage(await deps.desk.open(), deps.approvals.environmentLabel);
  if (sub !== 'repost' || !args[1] || !args[2]) return errorMessage(DEAD_LETTERS_USAGE);
  if (!(await deps.approvals.engine.isApprover(userId))) return noticeMessage(NOT_AN_APPROVER);
  const channel = channelId(args.slice(2).join(' '));
  if (!channel)
    return errorMessage(
      "Channel: type # and pick the channel from Slack's list (it then comes with its ID), or give its ID (channel name → About: C… or G…); a #name typed without picking it reaches the bot as plain text. The Re-post… button in `/cngn deadletters` lets you pick the channel instead.",
    );
  return repostSummary(await repostLetters(deps, args[1], channel, userId));
}

/** `<#C123|name>`, `<#C123>` or a bare `C123` / `G123`. */
function channelId(text: string): string | undefined {
  const word = text.trim();
  const mention = /^<#([CG][A-Z0-9]{2,})(\|[^>]*)?>$/.exec(word);
  if (mention) return mention[1];
  return /^[CG][A-Z0-9]{2,}$/.test(word) ? word : undefined;
}

/** Re-post one letter (id or its start) or all of them; one line per letter for the approver. */
export async function repostLetters(
  deps: DeadLetterSlackDeps,
  target: string,
  channel: string,
  user: string,
): Promise<string[]> {
  const ids =
    target.toLowerCase() === ALL_LETTERS ? (await deps.desk.open()).map((letter) => letter.id) : [target];
  if (ids.length === 0) return ['No dead letters to re-post.'];
  const lines: string[] = [];
  for (const id of ids) lines.push(await repostOne(deps, id, channel, user));
  return lines.length > 20 ? [...lines.slice(0, 20), `…and ${lines.length - 20} more`] : lines;
}

async function repostOne(
  deps: DeadLetterSlackDeps,
  id: string,
  channel: string,
  user: string,
): Promise<string> {
  const about = (letter: DeadLetter) =>
    `${letter.event.event} ${letter.event.data.trx_ref ?? letter.event.data.transactionId ?? ''}`.trim();
  const firstRefusal = (letter: DeadLetter) => `first refused in ${letter.channel}: ${letter.reason}`;
  const shown = `\`${escapeMrkdwn(shortId(id))}\``;
  // Written before the letter leaves the list (see DeadLetterDesk.repost): no re-post goes unrecorded.
  let unrecorded: { posted: boolean } | undefined;
  const record = (outcome: RepostOutcome) =>
    deps.approvals.engine
      .recordAudit({
        at: (deps.approvals.now?.() ?? new Date()).toISOString(),
        kind: 'alert',
        action: outcome.ok ? 'reposted' : 'repost-refused',
        actor: user,
        subject: outcome.letter.id,
        note: outcome.ok
          ? `${about(outcome.letter)} to ${channel}; ${firstRefusal(outcome.letter)}`
          : `${about(outcome.letter)} to ${channel}: Slack answered ${outcome.slackError}; ${firstRefusal(outcome.letter)}`,
      })
      .then(
        () => undefined,
        (error: unknown) => {
          unrecorded = { posted: outcome.ok };
          throw error;
        },
      );
  let result: RepostResult;
  try {
    result = await deps.desk.repost(id, channel, user, record);
  } catch (error) {
    if (!unrecorded) throw error;
    deps.approvals.log?.error?.('a dead-letter re-post could not be recorded in the audit log', {
      letter: id,
      channel,
      error: error instanceof Error ? error.message : String(error),
    });
    return unrecorded.posted
      ? `Posted ${shown} to ${mentionChannel(channel)}, but the audit log could not record it, so it stays in the list: re-post it once the store answers again (that post is recorded).`
      : `Slack refused ${shown} in ${mentionChannel(channel)}, and the audit log could not record that. It stays in the list.`;
  }
  if (!result.ok && result.reason !== 'refused') {
    if (result.reason === 'ambiguous') return `${shown} matches several letters: give more of its id.`;
    if (result.reason === 'busy') return `${shown} is being re-posted by someone else right now.`;
    return `No open dead letter ${shown} (already re-posted?). See \`/cngn deadletters\`.`;
  }
  if (!result.ok) {
    return `Slack refused ${shown} in ${mentionChannel(channel)} too (\`${escapeMrkdwn(result.slackError)}\`): invite the bot there or pick another channel. It stays in the list.`;
  }
  return `Re-posted ${shown} to ${mentionChannel(channel)}; it left the list.`;
}

/** Anyone may list them; re-posting is for approvers (checked in deadLettersCommand). */
export const DEAD_LETTERS_SUBCOMMAND: FeatureSubcommand<'deadLetters', DeadLetterSlackDeps> = {
  name: 'deadletters',
  usage: 'deadletters [repost <id|all> <#channel or its ID>]',
  summary: 'alerts Slack refused, with why; approvers re-post one or all to a channel',
  who: READERS,
  example: 'deadletters',
  needs: 'deadLetters',
  run: (command, deps) => deadLettersCommand(command.args, command.userId, deps),
};
