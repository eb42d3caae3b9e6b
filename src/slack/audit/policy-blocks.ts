// The approvals channel's notice of a policy entry: what changed (every setting, the first time), and
// where the audit chain holds it. Pure: the entry in, the message out. Its lines carry user and group
// mentions, which Slack shows as names; everything else in them is escaped.
import type { KnownBlock } from '@slack/types';
import { POLICY_RECORDED } from '../../approvals/index.js';
import type { AuditEntry } from '../../audit/index.js';
import { lagosTime } from '../../format/display.js';
import { escapeMrkdwn, escapeMrkdwnKeepingMentions } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** A section holds at most 3000 characters; lines are split over several below that. */
const SECTION_CHARS = 2900;

export function policyChangedMessage(entry: AuditEntry, environment: string): SlackMessage {
  const details = entry.policy;
  const recorded = entry.subject === POLICY_RECORDED;
  const title = details?.group
    ? 'User group members changed'
    : recorded
      ? 'Approval policy recorded'
      : 'Approval policy changed';
  const text = `:scroll: *${title}* · ${escapeMrkdwn(environment)}`;
  const lines = (details?.changes ?? []).map((line) => `• ${escapeMrkdwnKeepingMentions(line)}`);
  const blocks: KnownBlock[] = [section(text)];
  let chunk = '';
  for (const line of lines) {
    if (chunk && chunk.length + line.length + 1 > SECTION_CHARS) {
      blocks.push(section(chunk));
      chunk = '';
    }
    chunk += chunk ? `\n${line}` : line;
  }
  if (chunk) blocks.push(section(chunk));
  const seq = entry.seq !== undefined ? `#${entry.seq}` : 'an entry';
  blocks.push({
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Recorded in the audit chain as ${seq} · ${escapeMrkdwn(lagosTime(entry.at))} · \`/cngn audit\` lists it`,
      },
    ],
  });
  return {
    text: `${text}: ${lines.length} change${lines.length === 1 ? '' : 's'}`,
    blocks: blocks.slice(0, 50),
  };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}
