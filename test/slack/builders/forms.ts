// Builders of the modals a person fills in, every field prefilled and in error with one text.
import { bridgeQuoteSchema, temporaryAccountSchema } from '../../../src/cngn/schemas.js';
import { bankOptions, redeemModal, settlementModal } from '../../../src/slack/approvals/blocks/bank-modal.js';
import {
  bridgeModal,
  rejectModal,
  whitelistModal,
  withdrawModal,
} from '../../../src/slack/approvals/blocks/modals.js';
import {
  depositModal,
  depositResultView,
  quoteModal,
  quoteResultView,
} from '../../../src/slack/deposits/blocks.js';
import { toNetworkChoices } from '../../../src/slack/ui/modal.js';
import { type Add, fieldsSetTo, networksOf } from './inputs.js';
import { NOW } from './support.js';

/**
 * The modals that file a request (withdraw, bridge, whitelist, redeem, settlement) and the reject
 * modal, every field prefilled and in error.
 */
export function requestFormBuilders(text: string, add: Add): void {
  add('reject modal', rejectModal({ requestId: text, title: text, channel: text }));

  const networks = networksOf(text);
  const choices = toNetworkChoices(networks);
  const prefill = (ids: string[]) => fieldsSetTo(ids, text);
  const errors = (ids: string[]) => fieldsSetTo(ids, text);
  const withdrawIds = [
    'withdraw.amount',
    'withdraw.network',
    'withdraw.whitelisted',
    'withdraw.address',
    'withdraw.purpose',
  ];
  add(
    'withdraw modal',
    withdrawModal({
      networks: choices,
      whitelist: [{ networkId: text, networkName: text, address: text }],
      prefill: prefill(withdrawIds),
      errors: errors(withdrawIds),
      environment: 'LIVE',
    }),
  );
  const bridgeIds = [
    'bridge.amount',
    'bridge.origin',
    'bridge.destination',
    'bridge.address',
    'bridge.sender',
    'bridge.purpose',
  ];
  add(
    'bridge modal',
    bridgeModal({
      networks: choices,
      prefill: prefill(bridgeIds),
      errors: errors(bridgeIds),
      environment: 'LIVE',
    }),
  );
  add(
    'whitelist modal',
    whitelistModal({ networks: choices, prefill: prefill(['whitelist.address']), environment: 'LIVE' }),
  );
  const bank = { code: text, name: text };
  add(
    'redeem modal',
    redeemModal({
      prefill: { amount: text, account: text, purpose: text },
      bank,
      errors: errors(['redeem.amount', 'redeem.bank', 'redeem.account', 'redeem.purpose']),
      environment: 'LIVE',
    }),
  );
  add(
    'settlement modal',
    settlementModal({
      prefill: { account: text },
      bank,
      errors: errors(['settlement.bank', 'settlement.account']),
      environment: 'LIVE',
    }),
  );
}

/** The deposit and quote modals and what they answer. */
export function depositFormBuilders(text: string, add: Add): void {
  const choices = toNetworkChoices(networksOf(text));
  const prefill = (ids: string[]) => fieldsSetTo(ids, text);
  const _errors = (ids: string[]) => fieldsSetTo(ids, text);
  add(
    'deposit modal',
    depositModal({
      prefill: prefill(['deposit.amount', 'deposit.email', 'deposit.narration']),
      environment: text,
    }),
  );
  add(
    'quote modal',
    quoteModal({ networks: choices, prefill: prefill(['quote.amount', 'quote.address']), environment: text }),
  );
  const account = (expiresAt: string) =>
    depositResultView(
      temporaryAccountSchema.parse({
        reference: text,
        amount: text,
        amountExpected: text,
        fee: text,
        vat: text,
        accountNumber: text,
        accountName: text,
        bankName: text,
        expiresAt,
      }),
      NOW,
      text,
    );
  add('deposit account', account('2026-11-23T08:30:00.000Z'));
  add('deposit account, its expiry no date', account(text));
  add(
    'bridge quote',
    quoteResultView(
      {
        amount: text,
        origin: text,
        destination: text,
        address: text,
        quote: bridgeQuoteSchema.parse({ amountReceivable: text, networkFee: text, bridgeFee: text }),
      },
      text,
    ),
  );
}

/** A bank picker's options, as the redeem and settlement modals load them. */
export function bankOptionBuilders(text: string, add: Add): void {
  // Named by the text, under a real code (offered, its text cut) and under the text as its code.
  const banks = [
    { code: '058', name: text },
    { code: '999', name: `Bank ${text}` },
    { code: text, name: text },
  ];
  add('bank options', { blocks: bankOptions(banks, '') });
}
