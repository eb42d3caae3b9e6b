// `/cngn deadletters`: the alerts Slack refused, with why. `/cngn deadletters repost <id|all> <channel>`:
// an approver re-posts one or all of them to a channel; each re-post (or Slack's refusal) is audited,
// and a re-posted letter leaves the list. The buttons and modal of the list end in repostLetters too.
import { escapeMrkdwn, mentionChannel } from '../../format/mrkdwn.js';
import type { DeadLetterDesk } from '../../webhooks/index.js';
import type { ApprovalSlackDeps } from '../actions/approval.js';
import type { SlackMessage } from '../blocks/approval-message.js';
import { ALL_LETTERS, deadLettersMessage, repostSummary, shortId } from '../blocks/dead-letters.js';
import { errorMessage, noticeMessage } from '../blocks/reads.js';

export interface DeadLetterSlackDeps {
  desk: DeadLetterDesk;
  approvals: ApprovalSlackDeps;
}

export const DEAD_LETTERS_USAGE =
  'Usage: `/cngn deadletters` to list them, `/cngn deadletters repost <id|all> <#channel or its ID>` to re-post (approvers).';

export const NOT_AN_APPROVER = 'Only approvers can re-post dead letters; nothing was posted.';

export async function deadLettersCommand(
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
export function channelId(text: string): string | undefined {
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
  const result = await deps.desk.repost(id, channel, user);
  const shown = `\`${shortId(id).replace(/[`<>&]/g, '')}\``;
  if (!result.ok && result.reason !== 'refused') {
    if (result.reason === 'ambiguous') return `${shown} matches several letters: give more of its id.`;
    if (result.reason === 'busy') return `${shown} is being re-posted by someone else right now.`;
    return `No open dead letter ${shown} (already re-posted?). See \`/cngn deadletters\`.`;
  }
  const letter = result.letter;
  const about =
    `${letter.event.event} ${letter.event.data.trx_ref ?? letter.event.data.transactionId ?? ''}`.trim();
  const firstRefusal = `first refused in ${letter.channel}: ${letter.reason}`;
  const at = (deps.approvals.now?.() ?? new Date()).toISOString();
  if (!result.ok) {
    await deps.approvals.engine.recordAudit({
      at,
      kind: 'alert',
      action: 'repost-refused',
      actor: user,
      subject: letter.id,
      note: `${about} to ${channel}: Slack answered ${result.slackError}; ${firstRefusal}`,
    });
    return `Slack refused ${shown} in ${mentionChannel(channel)} too (\`${escapeMrkdwn(result.slackError)}\`): invite the bot there or pick another channel. It stays in the list.`;
  }
  await deps.approvals.engine.recordAudit({
    at,
    kind: 'alert',
    action: 'reposted',
    actor: user,
    subject: letter.id,
    note: `${about} to ${channel}; ${firstRefusal}`,
  });
  return `Re-posted ${shown} to ${mentionChannel(channel)}; it left the list.`;
}
