// One readable Slack message per cNGN event: pure builders, data in, Block Kit out. Unknown event kinds
// are rendered generically with their key fields — never dropped.
import { invalidAmountOf, type WebhookData } from '../../cngn/schemas.js';
import {
  environmentMarker,
  lagosTime,
  maskAccount,
  naira,
  type ReceiverView,
  receiverView,
  shortHash,
  statusWord,
} from '../../format/display.js';
import { explorerUrl } from '../../format/explorer.js';
import { AMOUNT_MAX_INTEGER_DIGITS } from '../../format/money.js';
import {
  CUT_MARK,
  clipMrkdwn,
  clipPlain,
  escapeMrkdwn,
  explorerLink,
  inertUrl,
} from '../../format/mrkdwn.js';
import { firstTime, outsideTime } from '../../format/outside-time.js';
import type { AlertInput, AlertMessage, RefusedReport } from '../../webhooks/types.js';
import { fitBlocks } from '../ui/messages.js';

export interface WebhookMessageOptions {
  /** Bank name for a bank code (redemptions carry only the code). */
  bankName?: (code: string) => string | undefined;
}

type Block = Record<string, unknown>;

interface Parts {
  emoji: string;
  /** Plain text, escaped when assembled. */
  title: string;
  /** A word from outside shown as code after the title (an unknown event's name). */
  titleCode?: string;
  /** The notification line (unescaped; escaped when assembled). */
  text: string;
  fields: Array<[string, string | undefined]>;
  /** Extra paragraph under the fields (failure reason, explanation). */
  note?: string;
  /** Title and text are mrkdwn already, their outside text escaped where it was put in. */
  escaped?: boolean;
}

export function webhookMessage(input: AlertInput, options: WebhookMessageOptions = {}): AlertMessage {
  const parts = partsFor(input, options);
  return assemble(input, parts);
}

function partsFor(input: AlertInput, options: WebhookMessageOptions): Parts {
  const { event } = input;
  // Not the event's alert: a person must check why approvals settled nothing by it.
  if (input.refused) return refusedReport(input, input.refused);
  // Signed too long ago to be new: perhaps a recorded copy sent again. Nothing in it is announced.
  if (input.stale) return staleDelivery(input);
  // Part of the delivery could not be read: the specific layouts would mislead, so show what there is.
  if (input.unreadable?.length) return unknownEvent(input);
  // An amount that is no amount is never shown as a figure, whatever the event says happened.
  const invalid = invalidAmountOf(event.data);
  if (invalid !== undefined) return invalidAmount(input, invalid);
  switch (event.event) {
    case 'deposit.received':
      return depositReceived(event.data);
    case 'deposit.completed':
      return (event.data.trx_type ?? '').toLowerCase() === 'crypto_deposit'
        ? cryptoDepositCompleted(input)
        : depositCompleted(event.data);
    case 'withdrawal.completed':
      return withdrawalCompleted(input);
    case 'bridge.completed':
      return bridgeCompleted(input);
    case 'redemption.completed':
      return redemptionCompleted(event.data, withBank(input, options));
    case 'transaction.failed':
      return transactionFailed(event.data, withBank(input, options));
    default:
      return unknownEvent(input);
  }
}

/** A bank name already looked up (input.bankName) wins over the lookup function. */
function withBank(input: AlertInput, options: WebhookMessageOptions): WebhookMessageOptions {
  const known = input.bankName;
  return known ? { bankName: () => known } : options;
}

function depositReceived(data: WebhookData): Parts {
  const amount = naira(data.amount);
  return {
    emoji: ':inbox_tray:',
    title: `Deposit received: ${amount} — not credited yet`,
    text: `Deposit received: ${amount} (not credited yet)`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['Status', 'Fiat arrived; cNGN not yet credited'],
    ],
    note: 'The credit follows with a separate _deposit completed_ message.',
  };
}

function depositCompleted(data: WebhookData): Parts {
  const amount = naira(data.amount);
  return {
    emoji: ':white_check_mark:',
    title: `Deposit credited: ${amount}`,
    text: `Deposit credited: ${amount}`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['Type', typeWord(data.trx_type)],
    ],
  };
}

function cryptoDepositCompleted(input: AlertInput): Parts {
  const { data } = input.event;
  const amount = naira(data.amount);
  return {
    emoji: ':link:',
    title: `On-chain deposit credited: ${amount}${data.network ? ` on ${data.network}` : ''}`,
    text: `On-chain deposit credited: ${amount}`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['Network', plain(data.network)],
      ['Source-network hash', hashField(data.extl_trx_hash, input)],
      ['Mint hash', hashField(data.base_trx_hash, input)],
      [
        'Explorer',
        data.explorer_link
          ? (explorerLink(data.explorer_link, 'Open in explorer') ?? inertUrl(data.explorer_link))
          : undefined,
      ],
    ],
  };
}

function withdrawalCompleted(input: AlertInput): Parts {
  const { data } = input.event;
  const amount = naira(data.amount);
  return {
    emoji: ':outbox_tray:',
    title: `Withdrawal completed: ${amount}`,
    text: `Withdrawal completed: ${amount}`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['To', receiverText(receiverView(data.receiver))],
      ['Network', plain(data.network)],
      ['Hash', hashField(data.base_trx_hash ?? data.extl_trx_hash, input)],
    ],
  };
}

function bridgeCompleted(input: AlertInput): Parts {
  const { data } = input.event;
  const amount = naira(data.amount);
  return {
    emoji: ':bridge_at_night:',
    title: `Bridge completed: ${amount}`,
    text: `Bridge completed: ${amount}`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['To', receiverText(receiverView(data.receiver))],
      ['Network', plain(data.network)],
      ['Source hash', hashField(data.base_trx_hash, input)],
      ['Destination hash', hashField(data.extl_trx_hash, input)],
    ],
  };
}

function redemptionCompleted(data: WebhookData, options: WebhookMessageOptions): Parts {
  const amount = naira(data.amount);
  const receiver = receiverView(data.receiver);
  return {
    emoji: ':bank:',
    title: `Redemption paid out: ${amount}`,
    text: `Redemption paid out: ${amount}`,
    fields: [['Amount', escapeMrkdwn(amount)], ...bankFields(receiver, options)],
  };
}

function transactionFailed(data: WebhookData, options: WebhookMessageOptions): Parts {
  const amount = naira(data.amount);
  const reason = data.reason ? escapeMrkdwn(data.reason) : 'no reason given';
  const receiver = receiverView(data.receiver);
  const type = (data.trx_type ?? '').toLowerCase();
  if (type.includes('redeem')) {
    return {
      emoji: ':x:',
      title: `Redemption failed: ${amount} went back to the balance`,
      text: `Redemption failed: ${amount} went back to the balance — ${data.reason ?? 'no reason given'}`,
      fields: [['Amount', escapeMrkdwn(amount)], ...bankFields(receiver, options)],
      // Cut inside its bold marks, so a long one does not lose its closing `*` to the section's cut.
      note: `The ${escapeMrkdwn(amount)} cNGN went back to the balance. Reason: *${clipMrkdwn(reason, 2_500)}*`,
    };
  }
  const what =
    type === 'swap' || type === 'bridge' ? 'Bridge' : type === 'withdraw' ? 'Withdrawal' : 'Transaction';
  return {
    emoji: ':x:',
    title: `${what} failed: ${amount}`,
    text: `${what} failed: ${amount} — ${data.reason ?? 'no reason given'}`,
    fields: [
      ['Amount', escapeMrkdwn(amount)],
      ['Type', typeWord(data.trx_type)],
      ['To', receiverText(receiver)],
      ['Network', plain(data.network)],
      ['Reason', reason],
    ],
  };
}

function unknownEvent(input: AlertInput): Parts {
  const { event } = input;
  const { data } = event;
  // The title and its code are escaped once, when the message is assembled.
  return {
    emoji: ':grey_question:',
    title: 'cNGN event',
    titleCode: event.event,
    text: `cNGN event ${event.event}${data.amount ? `: ${naira(data.amount)}` : ''}`,
    fields: [
      ['Amount', data.amount ? escapeMrkdwn(naira(data.amount)) : undefined],
      ['Status', data.status ? escapeMrkdwn(statusWord(data.status)) : undefined],
      ['Type', data.trx_type ? typeWord(data.trx_type) : undefined],
      ['Receiver', receiverText(receiverView(data.receiver))],
      ['Network', plain(data.network)],
      ['Hash', hashField(data.base_trx_hash ?? data.extl_trx_hash, input)],
      ['Reason', data.reason ? escapeMrkdwn(data.reason) : undefined],
    ],
    ...(input.unreadable?.length
      ? {
          note: `Some fields could not be read and are left out: ${input.unreadable.map((f) => `\`${escapeMrkdwn(f)}\``).join(', ')}.`,
        }
      : {}),
  };
}

function staleDelivery(input: AlertInput): Parts {
  const { event } = input;
  const { data } = event;
  const what = 'Stale or replayed delivery — a person should check';
  return {
    emoji: ':warning:',
    title: what,
    titleCode: event.event,
    text: `${what}: ${event.event}`,
    fields: [
      ['Amount named', data.amount ? escapeMrkdwn(naira(data.amount)) : undefined],
      ['Status named', data.status ? escapeMrkdwn(statusWord(data.status)) : undefined],
      ['Type', data.trx_type ? typeWord(data.trx_type) : undefined],
      ['Network', plain(data.network)],
    ],
    note: STALE_NOTES[String(input.stale)] ?? STALE_NOTES.true,
  };
}

const KEPT = 'It is kept but not announced, and no request is updated by it.';

/** What a stale delivery's note says, by which clock is suspect (`true`: not recorded). */
const STALE_NOTES: Record<string, string> = {
  old: `This delivery is signed by the service, but dated longer ago than the bot remembers the deliveries it has seen: it may be an old delivery sent again. ${KEPT} Check this transaction with the service.`,
  ahead: `This delivery is signed by the service, but dated hours ahead of the bot’s clock: one of the two clocks is wrong, and a copy of it sent again later could look new. ${KEPT} The transaction list will confirm its final state ("seen by reconciliation") once the bot’s clock passes the transaction’s time. Check both clocks, and this transaction with the service.`,
  true: `This delivery is signed by the service, but dated longer ago than the bot remembers the deliveries it has seen, or ahead of the bot’s clock: it may be an old delivery sent again, or one of the two clocks is wrong. ${KEPT} If the transaction is recent, the transaction list will confirm its final state ("seen by reconciliation") once the bot’s clock passes the transaction’s time. Check this transaction with the service.`,
};

/** Outside text in a code span: escaped, and nothing in it can close the span or break the line. */
const inCode = (value: string) => `\`${escapeMrkdwn(value.replace(/[`\r\n]/g, ' '))}\``;

/** A delivery approvals would settle nothing by, for the requests its references name. */
function refusedReport(input: AlertInput, refused: RefusedReport): Parts {
  const name = escapeMrkdwn(input.event.event);
  const what =
    refused.why === 'other-environment'
      ? `${name} names a request of another environment: it settles nothing`
      : `${name} names two different requests: it settles neither`;
  const lines = refused.named.map(
    ({ reference, requestId, environment }) =>
      `• ${inCode(reference)} → ${requestId === 'none' ? 'no request' : `${inCode(requestId)} (${escapeMrkdwn(environment)})`}`,
  );
  return {
    emoji: ':rotating_light:',
    title: `Needs a person: ${what}`,
    text: `Needs a person: ${what}`,
    escaped: true,
    fields: [],
    note: `${lines.join('\n')}\nThe bot talks to ${escapeMrkdwn(refused.ourEnvironment)}. No request is updated by this delivery; each request's own status checks still read the service. Check this transaction with the service.`,
  };
}

/** How much of an amount that is no amount is shown (a 400-digit one would fill the message). */
const RAW_AMOUNT_SHOWN = 24;

function invalidAmount(input: AlertInput, raw: string): Parts {
  const { event } = input;
  const { data } = event;
  // Cut on a character's edge; the mark goes after the code span, as the bot's words, not the amount's.
  // (The mark is put on before the cut so that one a few characters over the limit is cut too.)
  const cut = raw.length > RAW_AMOUNT_SHOWN;
  const kept = cut
    ? clipPlain(`${raw}${CUT_MARK}`, RAW_AMOUNT_SHOWN + CUT_MARK.length).slice(0, -CUT_MARK.length)
    : raw;
  // In a code span: outside text, escaped, and nothing in it can close the span or break the line.
  // A first character longer than the limit leaves nothing to show: the mark alone, no empty span.
  const span = kept ? `\`${escapeMrkdwn(kept.replace(/[`\r\n]/g, ' '))}\`` : '';
  const shown = `${span}${cut ? CUT_MARK : ''}`;
  const length = cut ? ` (${raw.length} characters)` : '';
  const what = `${escapeMrkdwn(event.event)} needs a person: the amount ${shown}${length} is not a valid amount`;
  return {
    emoji: ':rotating_light:',
    title: what,
    text: what,
    escaped: true,
    fields: [
      ['Status', data.status ? escapeMrkdwn(statusWord(data.status)) : undefined],
      ['Type', data.trx_type ? typeWord(data.trx_type) : undefined],
      ['Receiver', receiverText(receiverView(data.receiver))],
      ['Network', plain(data.network)],
      ['Hash', hashField(data.base_trx_hash ?? data.extl_trx_hash, input)],
      ['Reason', data.reason ? escapeMrkdwn(data.reason) : undefined],
    ],
    note: `An amount is a plain decimal, not negative, with at most two places and at most ${AMOUNT_MAX_INTEGER_DIGITS} digits before the point. This one is none, so the bot shows no figure for it and matches it to no approval request. Check this transaction with the service.`,
  };
}

// ---- shared pieces --------------------------------------------------------------------------------

function assemble(input: AlertInput, parts: Parts): AlertMessage {
  const { data } = input.event;
  const marker = environmentMarker(input.environment);
  const fields = parts.fields
    .filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '')
    .slice(0, 10)
    .map(([label, value]) => ({ type: 'mrkdwn', text: `*${label}*\n${value}` }));
  const title = parts.escaped ? parts.title : escapeMrkdwn(parts.title);
  const code = parts.titleCode === undefined ? '' : ` \`${escapeMrkdwn(parts.titleCode)}\``;
  const blocks: Block[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `${parts.emoji} *${title}${code}*` } },
  ];
  if (fields.length > 0) blocks.push({ type: 'section', fields });
  if (parts.note) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: parts.note } });
  if (input.origin === 'reconciler') {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: ':mag: Seen by reconciliation — no webhook arrived for this.' }],
    });
  }
  const context = [
    marker,
    data.trx_ref ? `Ref \`${escapeMrkdwn(data.trx_ref)}\`` : undefined,
    data.transactionId ? `Tx \`${escapeMrkdwn(data.transactionId)}\`` : undefined,
    plain(eventTime(firstTime(data.occurredAt, input.event.timestamp))),
  ].filter((v): v is string => Boolean(v));
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: context.join('  ·  ') }] });
  const prefix = marker.replace(/^:[a-z_]+: /, '');
  const suffix = input.origin === 'reconciler' ? ' (seen by reconciliation)' : '';
  const text = parts.escaped
    ? `${escapeMrkdwn(`[${prefix}] `)}${parts.text}${escapeMrkdwn(suffix)}`
    : escapeMrkdwn(`[${prefix}] ${parts.text}${suffix}`);
  // A webhook's values are the service's: cut to Slack's limits rather than refused (and set aside).
  // The notification text too: a long reason there would be refused with the blocks and without them.
  return { text: clipMrkdwn(text), blocks: fitBlocks(blocks) };
}

/**
 * An event's time in Lagos, read as the bot judges its age by (an ISO time that names no zone is UTC,
 * whatever the host's zone); text that is no time is shown as sent.
 */
function eventTime(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  const at = outsideTime(value);
  return Number.isFinite(at) ? lagosTime(new Date(at)) : value;
}

/** Escaped text from outside, or undefined when there is none. */
function plain(value: string | null | undefined): string | undefined {
  return value ? escapeMrkdwn(value) : undefined;
}

function hashField(hash: string | null | undefined, input: AlertInput): string | undefined {
  if (!hash) return undefined;
  const { data } = input.event;
  const url = explorerUrl(hash, data.explorer_link, data.network, input.environment);
  return explorerLink(url, shortHash(hash)) ?? `\`${escapeMrkdwn(shortHash(hash))}\``;
}

function bankFields(
  receiver: ReceiverView,
  options: WebhookMessageOptions,
): Array<[string, string | undefined]> {
  const bankName =
    receiver.bankName ?? (receiver.bankCode ? options.bankName?.(receiver.bankCode) : undefined);
  const bank = bankName ?? (receiver.bankCode ? `Bank code ${receiver.bankCode}` : undefined);
  return [
    ['Bank', bank ? escapeMrkdwn(bank) : undefined],
    ['Account', receiver.accountNumber ? escapeMrkdwn(maskAccount(receiver.accountNumber)) : undefined],
    ['Account name', receiver.accountName ? escapeMrkdwn(receiver.accountName) : undefined],
    ['Receiver', receiver.text ? escapeMrkdwn(receiver.text) : undefined],
  ];
}

function receiverText(receiver: ReceiverView): string | undefined {
  if (receiver.address) return `\`${escapeMrkdwn(receiver.address)}\``;
  if (receiver.accountNumber) {
    const bank = receiver.bankName ?? (receiver.bankCode ? `bank ${receiver.bankCode}` : '');
    return escapeMrkdwn(`${maskAccount(receiver.accountNumber)} ${bank}`.trim());
  }
  return receiver.text ? escapeMrkdwn(receiver.text) : undefined;
}

// Keyed by the service's text: a Map, where `constructor` finds nothing.
const TYPE_WORDS = new Map<string, string>([
  ['fiat_buy', 'Fiat deposit'],
  ['crypto_deposit', 'On-chain deposit'],
  ['fiat_redeem', 'Redemption'],
  ['enaira_redeem', 'eNaira redemption'],
  ['withdraw', 'Withdrawal'],
  ['swap', 'Bridge'],
]);

function typeWord(type: string | null | undefined): string | undefined {
  if (!type) return undefined;
  return TYPE_WORDS.get(type.toLowerCase()) ?? escapeMrkdwn(type);
}
