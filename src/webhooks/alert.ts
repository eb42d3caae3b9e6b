// The message for an outbox entry: the injected builders with the bank name looked up, or — if a
// builder fails — the entry's key fields as plain text, so a rendering bug never loses an event.
import { clipPlain, escapeMrkdwn } from '../format/mrkdwn.js';
import type { Logger } from '../log.js';
import type { AlertMessage, OutboxEntry, RenderAlert } from './types.js';

export interface AlertRendering {
  render: RenderAlert;
  bankName?: ((code: string) => Promise<string | undefined>) | undefined;
  log: Logger;
}

/** A stale delivery's plain-text alert when its builder fails says what the builder would have. */
const STALE_DELIVERY = 'Stale or replayed delivery — a person should check:';

/** A plain-text alert's length before escaping, which can make it up to five times longer: Slack takes 40,000. */
const NOTICE_MAX = 2_900;

export async function alertFor(entry: OutboxEntry, options: AlertRendering): Promise<AlertMessage> {
  const bankName = await bankNameFor(entry, options.bankName);
  try {
    return options.render({
      event: entry.event,
      origin: entry.origin,
      environment: entry.environment,
      ...(bankName ? { bankName } : {}),
      ...(entry.unreadable?.length ? { unreadable: entry.unreadable } : {}),
      ...(entry.stale ? { stale: entry.stale } : {}),
      ...(entry.refused ? { refused: entry.refused } : {}),
    });
  } catch (error) {
    options.log.error(
      `alert for ${entry.event.event} could not be rendered: ${error instanceof Error ? error.message : String(error)}`,
      { error },
    );
    const { data } = entry.event;
    const what = entry.stale ? `${STALE_DELIVERY} ${entry.event.event}` : `cNGN event ${entry.event.event}`;
    const text = `${what}: ${data.trx_ref ?? data.transactionId ?? ''} ${data.amount ?? ''} ${data.status ?? ''}`;
    return { text: escapeMrkdwn(clipPlain(text.trim(), NOTICE_MAX)), blocks: [] };
  }
}

/** How much of an event's name or reference (outside text) the notice of a set-aside alert shows. */
const NAME_SHOWN = 200;

/** What the fallback channel is told of an alert set aside: short enough for Slack whatever the names. */
export function setAsideNotice(event: string, ref: string, channel: string, reason: string): string {
  const [name, reference] = [event, ref].map((text) => clipPlain(text, NAME_SHOWN));
  return escapeMrkdwn(
    `An alert (${name}, reference ${reference}) could not be posted to ${channel}: Slack answered ${reason}. It was set aside in the dead-letter list.`,
  );
}

/** Redemptions carry only a bank code; a failed lookup just shows the code. */
async function bankNameFor(
  entry: OutboxEntry,
  lookup: AlertRendering['bankName'],
): Promise<string | undefined> {
  const receiver = entry.event.data.receiver;
  const code =
    typeof receiver === 'string'
      ? /^([0-9A-Za-z]{3,9}):\d{6,12}:/.exec(receiver)?.[1]
      : typeof receiver?.bank === 'object'
        ? receiver.bank?.name
          ? undefined
          : (receiver.bank?.code ?? undefined)
        : undefined;
  if (!code || !lookup) return undefined;
  try {
    return await lookup(code);
  } catch {
    return undefined;
  }
}
