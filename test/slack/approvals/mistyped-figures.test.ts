// Figures a person can mistype without noticing are refused inline, under the field, with the reason:
// an amount whose commas do not separate thousands (`1,0000` is not ₦10,000.00, `1,00,0` not
// ₦1,000.00) and the EVM zero address as a destination (no one can spend what is sent there).
import { describe, expect } from 'vitest';
import {
  BRIDGE,
  BRIDGE_VIEW,
  bridgeModal,
  WHITELIST,
  WHITELIST_VIEW,
  WITHDRAW,
  WITHDRAW_VIEW,
  whitelistModal,
  withdrawModal,
} from '../../../src/slack/approvals/blocks/modals.js';
import { parseWithdraw } from '../../../src/slack/approvals/views/forms.js';
import { DEPOSIT, DEPOSIT_VIEW, QUOTE, QUOTE_VIEW } from '../../../src/slack/deposits/blocks.js';
import type { ViewValues } from '../../../src/slack/ui/view-values.js';
import type { Harness } from '../../support/harness.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { selectValue, textValue, viewSubmission } from '../../support/slack-requests.js';

const ZERO = `0x${'0'.repeat(40)}`;
const GROUPING = 'Amount: commas go between groups of three digits, e.g. 10,000 or 1,500.50';
const ZERO_REASON = /address: is the zero address \(0x000…000\), which no one can spend from/i;
const networks = [
  { id: 'n-base', name: 'Base', shortName: 'base' },
  { id: 'n-bsc', name: 'BNB Smart Chain', shortName: 'bsc' },
];

type Fields = Record<string, Record<string, unknown>>;
const field = (id: string, value: Record<string, unknown>): Fields => ({ [id]: { [id]: value } });

async function errorsFor(
  h: Harness,
  callbackId: string,
  values: Fields,
  privateMetadata?: string,
): Promise<Record<string, string>> {
  const answer = await viewSubmission(h.sender, {
    callbackId,
    values: values as Record<string, Record<string, Record<string, unknown>>>,
    ...(privateMetadata ? { privateMetadata } : {}),
  });
  expect(answer.status).toBe(200);
  const body = answer.json() as { response_action?: string; errors?: Record<string, string> };
  expect(body.response_action).toBe('errors');
  return body.errors ?? {};
}

describe('mistyped figures are refused under their field', () => {
  const withdrawMeta = withdrawModal({ networks, whitelist: [], environment: 'SANDBOX' }).private_metadata;

  test.for(['1,0000', '1,00,0', '₦10,00,000'])('withdraw: the amount %s', async (amount, { h }) => {
    const errors = await errorsFor(
      h,
      WITHDRAW_VIEW,
      {
        ...field(WITHDRAW.amount, textValue(amount)),
        ...field(WITHDRAW.network, selectValue('n-base')),
        ...field(WITHDRAW.address, textValue(ZERO)),
      },
      withdrawMeta,
    );
    expect(errors[WITHDRAW.amount]).toBe(GROUPING);
    expect(errors[WITHDRAW.address]).toMatch(ZERO_REASON);
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(0);
  });

  test('deposit and quote: the same amount rule', async ({ h }) => {
    expect(
      (await errorsFor(h, DEPOSIT_VIEW, field(DEPOSIT.amount, textValue('1,00,0'))))[DEPOSIT.amount],
    ).toBe(GROUPING);
    expect((await errorsFor(h, QUOTE_VIEW, field(QUOTE.amount, textValue('1,0000'))))[QUOTE.amount]).toBe(
      GROUPING,
    );
  });

  test('bridge, whitelist and quote: the zero address as a destination', async ({ h }) => {
    const bridge = await errorsFor(
      h,
      BRIDGE_VIEW,
      {
        ...field(BRIDGE.amount, textValue('1500')),
        ...field(BRIDGE.origin, selectValue('n-base')),
        ...field(BRIDGE.destination, selectValue('n-bsc')),
        ...field(BRIDGE.address, textValue(ZERO)),
      },
      bridgeModal({ networks, environment: 'SANDBOX' }).private_metadata,
    );
    expect(bridge[BRIDGE.address]).toMatch(ZERO_REASON);
    const whitelist = await errorsFor(
      h,
      WHITELIST_VIEW,
      { ...field(WHITELIST.network, selectValue('n-base')), ...field(WHITELIST.address, textValue(ZERO)) },
      whitelistModal({ networks, environment: 'SANDBOX' }).private_metadata,
    );
    expect(whitelist[WHITELIST.address]).toMatch(ZERO_REASON);
    const quote = await errorsFor(h, QUOTE_VIEW, field(QUOTE.address, textValue(ZERO)));
    expect(quote[QUOTE.address]).toMatch(ZERO_REASON);
  });

  test('takes the same figures written correctly', () => {
    const values = {
      ...field(WITHDRAW.amount, textValue('10,000')),
      ...field(WITHDRAW.network, selectValue('n-base')),
      ...field(WITHDRAW.address, textValue(`0x${'0'.repeat(39)}1`)),
      ...field(WITHDRAW.purpose, textValue('Supplier payout INV-2231')),
    } as ViewValues;
    expect(parseWithdraw(values, ['n-base'])).toMatchObject({
      ok: true,
      value: { amount: '10000.00', address: `0x${'0'.repeat(39)}1` },
    });
  });
});
