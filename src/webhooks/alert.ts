// The message for an outbox entry: the injected builders with the bank name looked up, or — if a
// builder fails — the entry's key fields as plain text, so a rendering bug never loses an event.
// The bank name is a read of the service, which can hang: it is looked up before the alert's claim is
// taken and waited for a few seconds at most, so no claim or post lock is ever held across it (one
// held past its lease let another replica post the alert a second time); a name not known in time
// leaves the bank code shown.
import { clipPlain, escapeMrkdwn } from '../format/mrkdwn.js';
import type { Logger } from '../log.js';
import { withinDeadline } from '../store/index.js';
import type { AlertMessage, OutboxEntry, RenderAlert } from './types.js';

/** A bank's name for its code, read from the service's bank list. */
export type BankNameLookup = (code: string) => Promise<string | undefined>;

/** How long an alert waits for its bank's name before it goes with the bank code (the read goes on). */
const BANK_NAME_WAIT_MS = 5_000;

export interface AlertRendering {
  render: RenderAlert;
  /** The receiver's bank name, looked up beforehand (bankNameWithin). */
  bankName?: string | undefined;
  log: Logger;
}

/** A stale delivery's plain-text alert when its builder fails says what the builder would have. */
const STALE_DELIVERY = 'Stale or replayed delivery — a person should check:';

/** A plain-text alert's length before escaping, which can make it up to five times longer: Slack takes 40,000. */
const NOTICE_MAX = 2_900;

export function alertFor(entry: OutboxEntry, options: AlertRendering): AlertMessage {
  const { bankName } = options;
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

/**
 * The bank name an alert of `entry` shows: redemptions carry only a bank code. Undefined (the code is
 * shown) when the lookup fails or has not answered within `waitMs`; asked before the alert is claimed.
 */
export async function bankNameWithin(
  entry: OutboxEntry,
  lookup: BankNameLookup | undefined,
  waitMs = BANK_NAME_WAIT_MS,
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
    return await withinDeadline(lookup(code), waitMs, 'the bank list');
  } catch {
    return undefined;
  }
}
