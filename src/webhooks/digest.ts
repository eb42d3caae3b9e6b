// What the deliverer decides about digests without I/O: which events never wait in one, and how many
// events one message can carry within Slack's limits.
import { classifyStatus, invalidAmountOf } from '../cngn/schemas.js';
import { escapeMrkdwn } from '../format/mrkdwn.js';
import type { Logger } from '../log.js';
import type { AlertInput, AlertMessage, DigestInput, DigestRendering, OutboxEntry } from './types.js';

/** Slack: at most 50 blocks a message, 3,000 characters a text object, 10 fields a section. */
const SLACK_MAX_BLOCKS = 50;
const SLACK_MAX_TEXT = 3_000;
const SLACK_MAX_FIELDS = 10;

/** The routine kinds a digest may group; anything else (failures, kinds we do not know) goes alone. */
const ROUTINE_EVENTS: ReadonlySet<string> = new Set([
  'deposit.received',
  'deposit.completed',
  'withdrawal.completed',
  'redemption.completed',
  'bridge.completed',
]);

/**
 * A failure, or an event a person must look at (a kind we do not know, part of it could not be read,
 * its amount is no amount, or it was signed too long ago to be new): posted first and on its own, never folded into a digest behind routine
 * events.
 */
export function needsPerson(entry: OutboxEntry): boolean {
  if (entry.stale || entry.refused) return true;
  if (!ROUTINE_EVENTS.has(entry.event.event)) return true;
  if (classifyStatus(entry.event.data.status) === 'failed') return true;
  if (invalidAmountOf(entry.event.data) !== undefined) return true;
  return (entry.unreadable?.length ?? 0) > 0;
}

export function alertInputOf(entry: OutboxEntry): AlertInput {
  return {
    event: entry.event,
    origin: entry.origin,
    environment: entry.environment,
    ...(entry.unreadable?.length ? { unreadable: entry.unreadable } : {}),
    ...(entry.stale ? { stale: entry.stale } : {}),
  };
}

/** Whether Slack takes this message as it is (blocks, text objects, fields, notification text). */
export function fitsSlack(message: AlertMessage): boolean {
  if (message.blocks.length > SLACK_MAX_BLOCKS || message.text.length > SLACK_MAX_TEXT) return false;
  return message.blocks.every((block) => {
    const text = (block.text as { text?: string } | undefined)?.text;
    if (text !== undefined && text.length > SLACK_MAX_TEXT) return false;
    const parts = [
      ...((block.fields as Array<{ text?: string }> | undefined) ?? []),
      ...((block.elements as Array<{ text?: string }> | undefined) ?? []),
    ];
    if (Array.isArray(block.fields) && block.fields.length > SLACK_MAX_FIELDS) return false;
    return parts.every((part) => (part.text ?? '').length <= SLACK_MAX_TEXT);
  });
}

/** The largest n ≤ max for which the first n events rendered fit (at least 1: one event always goes). */
export function digestCapacity(max: number, fits: (n: number) => boolean): number {
  let low = 1;
  let high = Math.max(1, max);
  if (fits(high)) return high;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/** The message's text objects joined, for when Slack refuses the blocks: every event stays listed. */
export function blocksAsText(message: AlertMessage): string {
  const texts = message.blocks.flatMap((block) => [
    (block.text as { text?: string } | undefined)?.text,
    ...((block.fields as Array<{ text?: string }> | undefined) ?? []).map((f) => f.text),
    ...((block.elements as Array<{ text?: string }> | undefined) ?? []).map((e) => e.text),
  ]);
  return texts.filter((t): t is string => Boolean(t)).join('\n');
}

/**
 * The digest builders, made safe: a builder that throws gives a plain listing of the events instead,
 * so a rendering bug never holds a channel's queue or hides an event (like alertFor for one alert).
 */
export function safeDigestRendering(render: DigestRendering, log: Logger): DigestRendering {
  const failed = (what: string, error: unknown) =>
    log.error(
      `alert digest ${what} could not be rendered: ${error instanceof Error ? error.message : String(error)}`,
      { error },
    );
  return {
    message(input) {
      try {
        return render.message(input);
      } catch (error) {
        failed('message', error);
        return plainDigest(input);
      }
    },
    placeholder(input) {
      try {
        return render.placeholder(input);
      } catch (error) {
        failed('placeholder', error);
        return { text: 'Alert digest: listing its events…', blocks: [] };
      }
    },
  };
}

function plainDigest(input: DigestInput): AlertMessage {
  const blocks: Array<Record<string, unknown>> = [];
  let text = `*Alert digest: ${input.alerts.length} events*`;
  for (const alert of input.alerts) {
    const { data } = alert.event;
    const line = escapeMrkdwn(
      `• ${alert.event.event} ${data.trx_ref ?? data.transactionId ?? ''} ${data.amount ?? ''}`.trim(),
    );
    if (text.length + 1 + line.length > SLACK_MAX_TEXT - 100) {
      blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
      text = line;
    } else {
      text = `${text}\n${line}`;
    }
  }
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
  return { text: `Alert digest: ${input.alerts.length} events`, blocks };
}
