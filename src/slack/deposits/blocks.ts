// Modals that move no money: a one-time deposit account and a bridge fee quote. Pure builders.
import type { KnownBlock, ModalView } from '@slack/types';
import type { BridgeQuote, TemporaryAccount } from '../../cngn/schemas.js';
import { naira, outsideLagosTime, outsideRelative } from '../../format/display.js';
import { clipMrkdwn, clipPlain, escapeMrkdwn, markHiddenCharacters } from '../../format/mrkdwn.js';
import type { Prefill } from '../types.js';
import { fitBlocks } from '../ui/messages.js';
import {
  modal,
  type NetworkChoice,
  type NetworksMetadata,
  networkOptions,
  networksLeftOut,
  networksMetadata,
  selectInput,
  textInput,
} from '../ui/modal.js';

export const DEPOSIT_VIEW = 'deposit.submit';
export const QUOTE_VIEW = 'quote.submit';

export const DEPOSIT = {
  amount: 'deposit.amount',
  email: 'deposit.email',
  customerName: 'deposit.customer_name',
  accountName: 'deposit.account_name',
  narration: 'deposit.narration',
} as const;

export const QUOTE = {
  amount: 'quote.amount',
  origin: 'quote.origin',
  destination: 'quote.destination',
  address: 'quote.address',
} as const;

/** plain_text, shown as typed: outside text in options (network, bank names) has its hidden characters marked. */
const plain = (text: string) => ({
  type: 'plain_text' as const,
  text: clipPlain(markHiddenCharacters(text), 75),
});

export function depositModal(input: { prefill?: Prefill; environment: string }): ModalView {
  const p = input.prefill ?? {};
  const view = modal(
    DEPOSIT_VIEW,
    'Take a Naira deposit',
    [
      textInput(DEPOSIT.amount, 'Amount (₦)', {
        initial: p[DEPOSIT.amount],
        placeholder: '5000',
        hint: 'At least ₦100, at most 2 decimals. Fee and VAT are added on top.',
      }),
      textInput(DEPOSIT.email, 'Customer e-mail', {
        initial: p[DEPOSIT.email],
        placeholder: 'payer@example.com',
      }),
      textInput(DEPOSIT.customerName, 'Customer name', { optional: true, initial: p[DEPOSIT.customerName] }),
      textInput(DEPOSIT.accountName, 'Account display name', {
        optional: true,
        initial: p[DEPOSIT.accountName],
        hint: '3 to 50 characters',
      }),
      textInput(DEPOSIT.narration, 'Narration', {
        optional: true,
        initial: p[DEPOSIT.narration],
        hint: 'At most 100 characters',
      }),
    ],
    { submit: 'Create account', environment: input.environment },
  );
  return replaceFooter(view, `${input.environment} · a one-time account; no money leaves the treasury`);
}

export function quoteModal(input: {
  networks: NetworkChoice[];
  prefill?: Prefill;
  environment: string;
}): ModalView {
  const p = input.prefill ?? {};
  const options = networkOptions(input.networks);
  const view = modal(
    QUOTE_VIEW,
    'Bridge fee quote',
    [
      textInput(QUOTE.amount, 'Amount (₦)', { initial: p[QUOTE.amount], placeholder: '1500' }),
      selectInput(QUOTE.origin, 'From network', options, { initial: p[QUOTE.origin] }),
      selectInput(QUOTE.destination, 'To network', options, { initial: p[QUOTE.destination] }),
      ...networksLeftOut(input.networks, options),
      textInput(QUOTE.address, 'Destination address', {
        initial: p[QUOTE.address],
        placeholder: '0x… (or the address form of the destination network)',
        hint: 'Checked by the rules of the destination network',
      }),
    ],
    {
      submit: 'Get quote',
      metadata: JSON.stringify(networksMetadata(input.networks)),
      environment: input.environment,
    },
  );
  return replaceFooter(view, `${input.environment} · a quote only; nothing is sent`);
}

/** The quote form's metadata: the networks offered and the families of the non-EVM ones. */
export type QuoteMetadata = NetworksMetadata;

function replaceFooter(view: ModalView, text: string): ModalView {
  const blocks = [...view.blocks];
  blocks[blocks.length - 1] = {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: clipMrkdwn(escapeMrkdwn(text)) }],
  };
  return { ...view, blocks };
}

const resultView = (title: string, blocks: KnownBlock[]): ModalView => ({
  type: 'modal',
  title: plain(title),
  close: plain('Done'),
  // The service's account details and quote: cut to Slack's limits rather than refused.
  blocks: fitBlocks(blocks),
});

/**
 * `Thu 3 Dec 2026, 17:00 WAT (expires in 2 hours)`; an expiry that is no date is shown as the service
 * wrote it, since the account it belongs to is open and must be shown either way.
 */
function expiryText(expiresAt: string, now: Date): string {
  const at = outsideLagosTime(expiresAt);
  if (at) return `${at} (expires ${outsideRelative(expiresAt, now)})`;
  return expiresAt ? `${expiresAt} (as the service wrote it)` : 'not given by the service';
}

export function depositResultView(account: TemporaryAccount, now: Date, environment: string): ModalView {
  const expiry = escapeMrkdwn(expiryText(account.expiresAt, now));
  const fees = escapeMrkdwn(
    [account.fee ? `fee ${naira(account.fee)}` : '', account.vat ? `VAT ${naira(account.vat)}` : '']
      .filter(Boolean)
      .join(' + '),
  );
  return resultView('Deposit account', [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Send exactly ${escapeMrkdwn(naira(account.amountExpected))}*${fees ? ` (${escapeMrkdwn(naira(account.amount))} + ${fees})` : ''}`,
      },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Account number*\n\`${escapeMrkdwn(account.accountNumber)}\`` },
        { type: 'mrkdwn', text: `*Bank*\n${escapeMrkdwn(account.bankName)}` },
        { type: 'mrkdwn', text: `*Account name*\n${escapeMrkdwn(account.accountName)}` },
        { type: 'mrkdwn', text: `*Reference*\n\`${escapeMrkdwn(account.reference)}\`` },
      ],
    },
    { type: 'section', text: { type: 'mrkdwn', text: `:alarm_clock: *Expires* ${expiry}` } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${escapeMrkdwn(environment)} · payments after the expiry or of a different amount are not credited`,
        },
      ],
    },
  ]);
}

export function quoteResultView(
  input: { amount: string; origin: string; destination: string; address: string; quote: BridgeQuote },
  environment: string,
): ModalView {
  const q = input.quote;
  return resultView('Bridge quote', [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*${escapeMrkdwn(naira(input.amount))}* from *${escapeMrkdwn(input.origin)}* to *${escapeMrkdwn(input.destination)}*\nto \`${escapeMrkdwn(input.address)}\``,
      },
    },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*Receivable*\n${escapeMrkdwn(naira(q.amountReceivable))}` },
        { type: 'mrkdwn', text: `*Network fee*\n${escapeMrkdwn(naira(q.networkFee))}` },
        { type: 'mrkdwn', text: `*Bridge fee*\n${escapeMrkdwn(naira(q.bridgeFee))}` },
      ],
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `${escapeMrkdwn(environment)} · quotes change; \`/cngn bridge\` re-quotes before approval`,
        },
      ],
    },
  ]);
}
