// Alert digests: many routine events in one message when a burst outruns Slack's rate for a channel.
// Pure builders: counts and decimal-exact totals by kind, then each event with its amount, reference
// and explorer link, in the order the events were accepted. Failures never come here (see
// webhooks/digest.ts): they are posted alone, with the single-event layout.

import type { WebhookData } from '../../cngn/schemas.js';
import { environmentMarker, naira, shortHash } from '../../format/display.js';
import { explorerUrl } from '../../format/explorer.js';
import { Money } from '../../format/money.js';
import { clipMrkdwn, clipPlain, escapeMrkdwn, explorerLink, inertUrl } from '../../format/mrkdwn.js';
import type { AlertInput, AlertMessage, DigestInput, DigestRendering } from '../../webhooks/types.js';

type Block = Record<string, unknown>;

/** A section's text stays under Slack's 3,000 characters with room to spare. */
const SECTION_BUDGET = 2_900;

// Keyed by the event's name, the service's text: a Map, where `constructor` finds nothing.
const KIND_WORDS = new Map<string, [one: string, many: string]>([
  ['deposit.received', ['deposit received', 'deposits received']],
  ['deposit.completed', ['deposit completed', 'deposits completed']],
  ['withdrawal.completed', ['withdrawal completed', 'withdrawals completed']],
  ['redemption.completed', ['redemption paid out', 'redemptions paid out']],
  ['bridge.completed', ['bridge completed', 'bridges completed']],
]);

interface KindGroup {
  name: string;
  alerts: AlertInput[];
  total: Money;
  /** Events whose amount is missing or not an exact 2-decimal amount: listed, not added up. */
  untotalled: number;
}

/** `18 deposits completed` (mrkdwn-safe: unknown kinds are escaped). */
function kindCount(name: string, count: number): string {
  const words = KIND_WORDS.get(name);
  if (words) return `${count} ${count === 1 ? words[0] : words[1]}`;
  return `${count} \`${escapeMrkdwn(name.replace(/`/g, "'"))}\` event${count === 1 ? '' : 's'}`;
}

function groupByKind(alerts: AlertInput[]): KindGroup[] {
  const groups = new Map<string, KindGroup>();
  for (const alert of alerts) {
    const name = alert.event.event;
    let group = groups.get(name);
    if (!group) {
      group = { name, alerts: [], total: Money.zero(), untotalled: 0 };
      groups.set(name, group);
    }
    group.alerts.push(alert);
    try {
      const amount = alert.event.data.amount;
      if (amount === null || amount === undefined || amount === '') throw new Error('no amount');
      group.total = group.total.plus(Money.parseDecimal(String(amount).trim()));
    } catch {
      group.untotalled += 1;
    }
  }
  return [...groups.values()];
}

/** `18 deposits completed · ₦4,210,000.00` (and what was not added up). */
function kindSummary(group: KindGroup): string {
  const counted = group.alerts.length - group.untotalled;
  const total = counted > 0 ? ` · ${escapeMrkdwn(naira(group.total.toString()))}` : '';
  const left = group.untotalled > 0 ? ` (${group.untotalled} without an exact amount, not in the total)` : '';
  return `${kindCount(group.name, group.alerts.length)}${total}${left}`;
}

/** One event: amount, reference (or transaction id), explorer link when it has a hash. */
function eventLine(alert: AlertInput): string {
  const { data } = alert.event;
  const parts = [escapeMrkdwn(naira(data.amount))];
  const reference = referenceText(data);
  if (reference) parts.push(reference);
  const link = linkText(alert);
  if (link) parts.push(link);
  if (alert.origin === 'reconciler') parts.push('_seen by reconciliation_');
  return `• ${parts.join(' · ')}`;
}

function referenceText(data: WebhookData): string | undefined {
  const code = (value: string) => `\`${escapeMrkdwn(value.replace(/`/g, "'"))}\``;
  if (data.trx_ref) return `Ref ${code(data.trx_ref)}`;
  if (data.transactionId) return `Tx ${code(data.transactionId)}`;
  return undefined;
}

function linkText(alert: AlertInput): string | undefined {
  const { data } = alert.event;
  const hash = data.base_trx_hash ?? data.extl_trx_hash;
  if (hash) {
    const url = explorerUrl(hash, data.explorer_link, data.network, alert.environment);
    return explorerLink(url, shortHash(hash)) ?? `\`${escapeMrkdwn(shortHash(hash))}\``;
  }
  return data.explorer_link
    ? (explorerLink(data.explorer_link, 'explorer') ?? inertUrl(data.explorer_link))
    : undefined;
}

function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(text) } };
}

function title(input: DigestInput): string {
  const count = input.alerts.length;
  return input.part > 1
    ? `:package: *Alert digest, continued (part ${input.part}): ${count} events*`
    : `:package: *Alert digest: ${count} events*`;
}

function textPrefix(input: DigestInput): string {
  return `[${environmentMarker(input.environment).replace(/^:[a-z_]+: /, '')}]`;
}

/** The digest message: title, counts and totals by kind, then each kind's events in order. */
export function alertDigestMessage(input: DigestInput): AlertMessage {
  const groups = groupByKind(input.alerts);
  const blocks: Block[] = [
    section(title(input)),
    section(groups.map((g) => `*${kindSummary(g)}*`).join('\n')),
  ];
  for (const group of groups) {
    let text = `*${capitalised(kindCount(group.name, group.alerts.length).replace(/^\d+ /, ''))}*`;
    for (const alert of group.alerts) {
      const line = eventLine(alert);
      if (text.length + 1 + line.length > SECTION_BUDGET) {
        blocks.push(section(text));
        text = line;
      } else {
        text = `${text}\n${line}`;
      }
    }
    blocks.push(section(text));
  }
  const footer = [
    environmentMarker(input.environment),
    input.more ? 'More events follow in the next digest message' : 'End of this digest',
    'Failures are always posted on their own',
  ];
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer.join('  ·  ') }] });
  // The notification line: the counts and totals, which say what happened without opening it.
  const summary = groups.map((g) => kindSummaryPlain(g)).join(' · ');
  const text = `${textPrefix(input)} Alert digest: ${summary}`;
  return { text: escapeMrkdwn(clipPlain(text, 2_900)), blocks };
}

function kindSummaryPlain(group: KindGroup): string {
  const words = KIND_WORDS.get(group.name);
  const count = group.alerts.length;
  const kind = words ? (count === 1 ? words[0] : words[1]) : `${group.name} event${count === 1 ? '' : 's'}`;
  const counted = count - group.untotalled;
  return `${count} ${kind}${counted > 0 ? ` · ${naira(group.total.toString())}` : ''}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * What is posted first, before the events are filled in: it names no event, so a copy left behind by
 * a crash between posting it and recording it repeats nothing.
 */
export function alertDigestPlaceholder(input: DigestInput): AlertMessage {
  return {
    text: escapeMrkdwn(`${textPrefix(input)} Alert digest: listing events…`),
    blocks: [
      section(':hourglass_flowing_sand: *Alert digest*: listing its events…'),
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: `${environmentMarker(input.environment)}  ·  If this message stays empty, its events were listed in a later digest message.`,
          },
        ],
      },
    ],
  };
}

export const alertDigest: DigestRendering = {
  message: alertDigestMessage,
  placeholder: alertDigestPlaceholder,
};
