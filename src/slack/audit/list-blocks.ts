// `/cngn audit`: the last entries of the audit log, one line each, over as many sections as they need.
import type { KnownBlock } from '@slack/types';
import type { AuditEntry } from '../../audit/index.js';
import { lagosTime, naira } from '../../format/display.js';
import { escapeMrkdwn, escapeMrkdwnKeepingMentions, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

/** One entry on one line: when, what, the amount, the action, by whom, and its note. */
function auditRow(e: AuditEntry): string {
  const amount = e.amount ? ` ${escapeMrkdwn(naira(e.amount))}` : '';
  // The name recorded with the entry, beside the mention Slack renders with today's name.
  const named = e.actorName ? ` (${escapeMrkdwn(e.actorName)})` : '';
  const by = e.actor
    ? ` by ${mentionUser(e.actor)}${named}${e.onBehalfOf ? ` on behalf of ${mentionUser(e.onBehalfOf)}` : ''}`
    : '';
  // A policy entry's lines name people and groups as mentions, which Slack shows as names.
  const note = e.note
    ? ` — ${e.kind === 'policy' ? escapeMrkdwnKeepingMentions(e.note) : escapeMrkdwn(e.note)}`
    : '';
  const what = e.requestId
    ? `${escapeMrkdwn(e.requestId)} ${escapeMrkdwn(e.kind)}`
    : `${escapeMrkdwn(e.kind)} ${escapeMrkdwn(e.subject ?? '')}`.trim();
  // A request's step with a subject went back because that approver left the pool.
  const left = e.requestId && e.subject ? ` (${mentionUser(e.subject)} left the pool)` : '';
  return `\`${escapeMrkdwn(lagosTime(e.at))}\` ${what}${amount}: *${escapeMrkdwn(e.action)}*${by}${note}${left}`;
}

export function auditList(entries: AuditEntry[], environment: string): SlackMessage {
  if (entries.length === 0)
    return { text: 'The audit log is empty.', blocks: [section('The audit log is empty.')] };
  const rows = entries.map(auditRow);
  const text = `*Audit log, last ${entries.length}* · ${escapeMrkdwn(environment)}`;
  const blocks: KnownBlock[] = [section(text)];
  // A section holds at most 3000 characters: split the rows over several.
  let chunk = '';
  for (const row of rows) {
    if (chunk.length + row.length + 1 > 2900) {
      blocks.push(section(chunk));
      chunk = '';
    }
    chunk += `${row}\n`;
  }
  if (chunk) blocks.push(section(chunk));
  return { text, blocks: blocks.slice(0, 50) };
}
