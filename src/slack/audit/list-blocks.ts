// `/cngn audit`: the last entries of the audit log, one line each, over as many sections as they need.
import type { KnownBlock } from '@slack/types';
import type { AuditEntry } from '../../audit/index.js';
import { lagosTime, naira } from '../../format/display.js';
import { escapeMrkdwn, escapeMrkdwnKeepingMentions, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';
import { section, sections } from '../ui/messages.js';

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
  const text = `*Audit log, last ${entries.length}* · ${escapeMrkdwn(environment)}`;
  // A section holds at most 3000 characters: the rows go over several, a row too long for one cut.
  const blocks: KnownBlock[] = [section(text), ...sections(entries.map(auditRow))];
  return { text, blocks: blocks.slice(0, 50) };
}
