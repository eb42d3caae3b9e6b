// Every modal the bot registers answers a submission whose values have another type than Slack sends
// (a number, list, object or null where text or an option belongs) with the inline "field: reason"
// errors, at once. Before, such a value threw before ack() (`….trim is not a function`) and the person
// waited for Slack's timeout.
import { describe, expect } from 'vitest';
import { REDEEM_VIEW, SETTLEMENT_VIEW } from '../../../src/slack/approvals/blocks/bank-modal.js';
import {
  BRIDGE_VIEW,
  REJECT_VIEW,
  WHITELIST_VIEW,
  WITHDRAW_VIEW,
} from '../../../src/slack/approvals/blocks/modals.js';
import { DEPOSIT_VIEW, QUOTE_VIEW } from '../../../src/slack/deposits/blocks.js';
import { fileHarness, harnessTest } from '../../support/harness-fixtures.js';
import { textValue, viewSubmission } from '../../support/slack-requests.js';

/** One bot for the file, on which the submitter (UREQ) approves too, so the reject form is reached past the access gate. */
const test = harnessTest.extend(
  'h',
  { scope: 'file' },
  fileHarness({ config: { approvers: ['UREQ', 'UAPPROVERA'] } }),
);

const cases: Array<{
  modal: string;
  callbackId: string;
  field: string;
  element: Record<string, unknown>;
  error: RegExp;
}> = [
  {
    modal: 'withdraw',
    callbackId: WITHDRAW_VIEW,
    field: 'withdraw.amount',
    element: { type: 'plain_text_input', value: 1500 },
    error: /^Amount: expected text, not a number$/,
  },
  {
    modal: 'bridge',
    callbackId: BRIDGE_VIEW,
    field: 'bridge.sender',
    element: { type: 'plain_text_input', value: ['0xabc'] },
    error: /^Sender.*: expected text, not a list$/,
  },
  {
    modal: 'whitelist add',
    callbackId: WHITELIST_VIEW,
    field: 'whitelist.network',
    element: { type: 'static_select', selected_option: { value: 7 } },
    error: /^Network: choose an option from the list$/,
  },
  {
    modal: 'redeem',
    callbackId: REDEEM_VIEW,
    field: 'redeem.bank',
    element: { type: 'external_select', selected_option: 'gtbank' },
    error: /^Bank: choose an option from the list$/,
  },
  {
    modal: 'settlement',
    callbackId: SETTLEMENT_VIEW,
    field: 'settlement.account',
    element: { type: 'plain_text_input', value: { digits: '0123456789' } },
    error: /^Account number: expected text, not an object$/,
  },
  {
    modal: 'reject',
    callbackId: REJECT_VIEW,
    field: 'reject.reason',
    element: { type: 'plain_text_input', value: true },
    error: /^Reason: expected text, not true\/false$/,
  },
  {
    modal: 'deposit',
    callbackId: DEPOSIT_VIEW,
    field: 'deposit.narration',
    element: { type: 'plain_text_input', value: 42 },
    error: /^Narration: expected text, not a number$/,
  },
  {
    modal: 'quote',
    callbackId: QUOTE_VIEW,
    field: 'quote.address',
    element: { type: 'plain_text_input', value: -1 },
    error: /^Destination address: expected text, not a number$/,
  },
];

describe('modal values of another type than Slack sends', () => {
  test.for(cases)('the $modal form answers with the field and the reason', async (c, { h }) => {
    const answer = await viewSubmission(h.sender, {
      callbackId: c.callbackId,
      values: {
        [c.field]: { [c.field]: c.element },
        // A well-typed neighbour is read as usual.
        'deposit.amount': { 'deposit.amount': textValue('5000') },
      },
    });
    expect(answer.status).toBe(200);
    const body = answer.json() as { response_action?: string; errors?: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors?.[c.field]).toMatch(c.error);
  });

  test('answers a block that is not an object the same way', async ({ h }) => {
    const notAnObject = await viewSubmission(h.sender, {
      callbackId: WITHDRAW_VIEW,
      values: { 'withdraw.amount': 5 as unknown as Record<string, Record<string, unknown>> },
    });
    expect(notAnObject.status).toBe(200);
    expect(notAnObject.json()).toMatchObject({
      response_action: 'errors',
      errors: { 'withdraw.amount': 'Amount: not a value this form takes (a number)' },
    });
    expect(h.slack.callsTo('views.update')).toHaveLength(0);
  });
});
