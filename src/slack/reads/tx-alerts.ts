// `/cngn tx <ref>` when the service cannot answer for a reference the bot's alerts know: what each
// event said, as the alert recorded it, and a link to the alert message that carries it. Pure.
import type { KnownBlock } from '@slack/types';
import { lagosTime, serviceAmount } from '../../format/display.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';
import { contextLine as context, section } from '../ui/messages.js';
import type { AlertWhereabouts } from './alert-whereabouts.js';
import { eventName, whereaboutsText } from './alert-whereabouts.js';
import { statusLabel } from './blocks.js';

/** Slack allows 50 blocks; one reference rarely has more than a handful of events. The newest are shown. */
const MAX_ALERTS_SHOWN = 20;

const code = (value: string) => `\`${escapeMrkdwn(value.replace(/`/g, "'"))}\``;

/** One event: its name and time, then what it said, then which message carries its alert. */
function alertSection(alert: AlertWhereabouts): KnownBlock {
  const r = alert.recorded ?? {};
  const at = lagosTime(r.at);
  const lines = [`${eventName(alert)}${at ? ` · ${escapeMrkdwn(at)}` : ''}`];
  const facts: string[] = [];
  if (r.status) facts.push(`Status ${statusLabel(r.status)}`);
  if (r.amount)
    facts.push(`${escapeMrkdwn(serviceAmount(r.amount))}${r.asset ? ` ${escapeMrkdwn(r.asset)}` : ''}`);
  if (r.network) facts.push(`Network ${escapeMrkdwn(r.network)}`);
  if (facts.length > 0) lines.push(facts.join(' · '));
  const ids: string[] = [];
  if (r.reference) ids.push(`Ref ${code(r.reference)}`);
  if (r.transactionId) ids.push(`Tx ${code(r.transactionId)}`);
  if (ids.length > 0) lines.push(ids.join(' · '));
  if (r.reason) lines.push(`Reason: ${escapeMrkdwn(r.reason)}`);
  lines.push(`Alert: ${whereaboutsText(alert)}`);
  return section(lines.join('\n'));
}

/**
 * The transaction as its alerts recorded it. `problem` is the service's side in a sentence, mrkdwn
 * with its outside parts escaped; what the alerts say may be older than the service's own record.
 */
export function txFromAlertsMessage(
  reference: string,
  problem: string,
  alerts: AlertWhereabouts[],
): SlackMessage {
  const shown = alerts.slice(-MAX_ALERTS_SHOWN);
  const count = `${alerts.length} alert${alerts.length === 1 ? '' : 's'}`;
  const blocks: KnownBlock[] = [
    section(`*Transaction* ${code(reference)} · as the bot's alerts recorded it`),
    context(
      `:warning: ${problem} The bot's alerts know this reference: below is what each event said when it arrived, which may be older than the service's record.`,
    ),
    ...shown.map(alertSection),
  ];
  const earlier = alerts.length - shown.length;
  if (earlier > 0) {
    blocks.splice(2, 0, context(`${earlier} earlier alert${earlier === 1 ? '' : 's'} not listed.`));
  }
  return {
    text: `${escapeMrkdwn(reference)}: ${problem} ${count} recorded it.`,
    blocks,
  };
}
