// Where the alerts of a transaction are, as `/cngn tx` shows them: posted (with a link to the message),
// waiting to be posted, or set aside. Pure: the whereabouts in, mrkdwn out.
import type { SectionBlock } from '@slack/types';
import { escapeMrkdwn, mentionChannel, slackPermalink } from '../../format/mrkdwn.js';
import type { AlertRecord } from '../../webhooks/index.js';
import { section } from '../ui/messages.js';

/** An alert's place as `/cngn tx` shows it; `permalink` when Slack gave one for its message. */
export interface AlertWhereabouts {
  event: string;
  state: 'posted' | 'waiting' | 'set-aside';
  channel?: string;
  ts?: string;
  digestPart?: number;
  permalink?: string;
  /** What the event said (webhooks/index.ts AlertRecord), for when the service cannot answer. */
  recorded?: AlertRecord;
  /** Its signed time does not vouch for it (`old`, `ahead`, or `true` when not recorded): not news. */
  stale?: boolean | 'old' | 'ahead';
}

/** `` `deposit.completed` ``: the event's name as code. */
export function eventName(alert: Pick<AlertWhereabouts, 'event' | 'stale'>): string {
  const name = `\`${escapeMrkdwn(alert.event.replace(/`/g, "'"))}\``;
  return alert.stale ? `:warning: possible replay of ${name}${staleWhy(alert.stale)}` : name;
}

/** Where the alert is: `in <permalink|the alert>`, its channel and ts, or why no message carries it. */
export function whereaboutsText(alert: AlertWhereabouts): string {
  if (alert.state === 'waiting') return 'waiting to be posted';
  if (alert.state === 'set-aside') return 'Slack refused it; set aside in the dead-letter list';
  const what = alert.digestPart ? `alert digest, part ${alert.digestPart}` : 'alert';
  const link = slackPermalink(alert.permalink, `the ${what}`);
  if (link) return `in ${link}`;
  const where = alert.channel ? mentionChannel(alert.channel) : 'the alerts channel';
  const ts = alert.ts ? `, message ts \`${escapeMrkdwn(alert.ts)}\`` : '';
  return `in the ${what} in ${where}${ts}`;
}

/** Which alert message carries each event of a transaction (a section for /cngn tx). */
export function alertWhereaboutsBlock(alerts: AlertWhereabouts[]): SectionBlock | undefined {
  if (alerts.length === 0) return undefined;
  const lines = alerts.map((alert) => `• ${eventName(alert)}: ${whereaboutsText(alert)}`);
  return section(`*Alerts*\n${lines.join('\n')}`);
}

/** Which clock is suspect, when the alert recorded it: ` (signed over 29 days ago)`, ` (dated ahead …)`. */
function staleWhy(stale: boolean | 'old' | 'ahead'): string {
  if (stale === 'old') return ' (signed longer ago than deliveries are remembered)';
  if (stale === 'ahead') return ' (dated ahead of the bot’s clock)';
  return '';
}
