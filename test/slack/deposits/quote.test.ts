import { describe, expect } from 'vitest';
import type { Harness } from '../../support/harness.js';
import { harnessTest as test } from '../../support/harness-fixtures.js';
import { UNREADABLE_TIMES } from '../../support/outside-times.js';
import { selectValue, slashCommand, textValue, viewSubmission } from '../../support/slack-requests.js';

const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

const BASE_OPTS = (blocks: Array<Record<string, unknown>>, id: string) =>
  (
    (blocks.find((b) => b.block_id === id)?.element ?? {}) as {
      options: Array<{ value: string; text: { text: string } }>;
    }
  ).options;

/** `/cngn <text>` run, and the deposit modal it opened. */
async function openedDepositModal(h: Harness, text: string, responseId: string) {
  const before = h.slack.callsTo('views.open').length;
  await slashCommand(h.sender, { text, responseUrl: h.slack.responseUrl(responseId) });
  const open = await h.slack.waitFor(
    'views.open',
    (c) =>
      (c.body.view as { callback_id: string }).callback_id === 'deposit.submit' &&
      h.slack.callsTo('views.open').indexOf(c) >= before,
  );
  return open.body.view as {
    blocks: Array<{ block_id?: string; element?: { initial_value?: string } }>;
  };
}

/** The deposit modal `viewId` submitted for `amount` from payer@example.com. */
const submitDeposit = (h: Harness, viewId: string, amount: string) =>
  viewSubmission(h.sender, {
    callbackId: 'deposit.submit',
    viewId,
    values: {
      'deposit.amount': { 'deposit.amount': textValue(amount) },
      'deposit.email': { 'deposit.email': textValue('payer@example.com') },
    },
  });

describe('/cngn deposit', () => {
  test('opens the modal prefilled from the arguments', async ({ h }) => {
    const view = await openedDepositModal(h, 'deposit 5000 payer@example.com', 'd1');
    expect(view.blocks.find((b) => b.block_id === 'deposit.amount')?.element?.initial_value).toBe('5000');
    expect(view.blocks.find((b) => b.block_id === 'deposit.email')?.element?.initial_value).toBe(
      'payer@example.com',
    );
  });

  test('prefills the e-mail as typed when Slack sends it escaped as a mailto link', async ({ h }) => {
    // The manifest asks Slack to escape command text (for @person), which wraps e-mail addresses.
    const view = await openedDepositModal(
      h,
      'deposit 5000 <mailto:payer@example.com|payer@example.com>',
      'd-escaped',
    );
    expect(view.blocks.find((b) => b.block_id === 'deposit.email')?.element?.initial_value).toBe(
      'payer@example.com',
    );
  });

  test('refuses bad fields inline, naming each field and reason', async ({ h }) => {
    const response = await viewSubmission(h.sender, {
      callbackId: 'deposit.submit',
      values: {
        'deposit.amount': { 'deposit.amount': textValue('99.999') },
        'deposit.email': { 'deposit.email': textValue('not-an-email') },
        'deposit.account_name': { 'deposit.account_name': textValue('AB') },
        'deposit.narration': { 'deposit.narration': textValue('x'.repeat(101)) },
      },
    });
    expect(response.status).toBe(200);
    const body = response.json() as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(body.errors['deposit.amount']).toMatch(/^Amount: .*2 decimals/);
    expect(body.errors['deposit.email']).toMatch(/^Customer e-mail/);
    expect(body.errors['deposit.account_name']).toMatch(/3 to 50/);
    expect(body.errors['deposit.narration']).toMatch(/at most 100/);
    const below = await viewSubmission(h.sender, {
      callbackId: 'deposit.submit',
      values: {
        'deposit.amount': { 'deposit.amount': textValue('99') },
        'deposit.email': { 'deposit.email': textValue('a@b.co') },
      },
    });
    expect((below.json() as { errors: Record<string, string> }).errors['deposit.amount']).toContain(
      'at least ₦100',
    );
  });

  test('creates the one-time account and shows what to send, the bank and the expiry in Lagos time', async ({
    h,
  }) => {
    const requestsBefore = h.sandbox.requests.length;
    const response = await submitDeposit(h, 'VDEPOSIT', '5,000');
    expect((response.json() as { response_action: string }).response_action).toBe('update');
    const update = await h.slack.waitFor('views.update', (c) => c.body.view_id === 'VDEPOSIT');
    const text = JSON.stringify(update.body.view);
    expect(text).toMatch(/Send exactly ₦5,\d{3}\.\d{2}/);
    expect(text).toContain('WAT');
    expect(text).toMatch(/expires in \d+ minutes/);
    const sent = h.sandbox.requests
      .slice(requestsBefore)
      .find((r) => r.path === '/v1/api/virtual-account/temporary');
    expect(sent?.plainBody).toEqual({ amount: 5000, customer: { email: 'payer@example.com' } });
    // The account shown is the one the service opened: paying it credits that number at that bank.
    const accountNumber = /\*Account number\*\\n`(\d{10})`/.exec(text)?.[1];
    const reference = /\*Reference\*\\n`([^`]+)`/.exec(text)?.[1];
    expect(accountNumber).toBeDefined();
    expect(text).toContain('*Bank*\\nWema Bank');
    await h.sandbox.payTemporaryAccount(reference ?? '');
    const { data } = await h.bot.client.getTransactions({ page: 1, limit: 1 });
    expect(data[0]?.description).toBe(`Naira deposit via Wema Bank ${accountNumber}`);
  });

  test('shows the account the service opened, its expiry as written when that is no date', async ({
    harness,
  }) => {
    harness.sandbox.misstateExpiry(UNREADABLE_TIMES.spaced);
    await submitDeposit(harness, 'VUNREAD', '5000');
    const update = await harness.slack.waitFor('views.update', (c) => c.body.view_id === 'VUNREAD');
    const text = JSON.stringify(update.body.view);
    expect(text).not.toContain('No account');
    expect(text).toMatch(/\*Account number\*\\n`\d{10}`/);
    expect(text).toContain(`*Expires* ${UNREADABLE_TIMES.spaced} (as the service wrote it)`);
  });

  test('shows an expiry JavaScript would misread as a date long past ("12": 2001) as written', async ({
    harness,
  }) => {
    harness.sandbox.misstateExpiry('12');
    await submitDeposit(harness, 'VTWELVE', '5000');
    const update = await harness.slack.waitFor('views.update', (c) => c.body.view_id === 'VTWELVE');
    const text = JSON.stringify(update.body.view);
    expect(text).toContain('*Expires* 12 (as the service wrote it)');
    expect(text).not.toContain('2001');
  });

  test('acknowledges the submission while the service call is still held, then fills the modal', async ({
    h,
  }) => {
    const held = h.sandbox.hold('POST', '/v1/api/virtual-account/temporary');
    const response = await submitDeposit(h, 'VHELD', '2500');
    await held.arrived; // acked, and the account is still being created
    const ack = response.json() as { response_action: string; view: unknown };
    expect(ack.response_action).toBe('update');
    expect(JSON.stringify(ack.view)).toContain('Creating the deposit account');
    expect(h.slack.callsTo('views.update').filter((c) => c.body.view_id === 'VHELD')).toHaveLength(0);
    held.release();
    const update = await h.slack.waitFor('views.update', (c) => c.body.view_id === 'VHELD');
    expect(JSON.stringify(update.body.view)).toMatch(/Send exactly ₦2,\d{3}\.\d{2}/);
  });
});

describe('/cngn quote', () => {
  test('prefills amount, networks by code and address, and shows receivable and both fees', async ({ h }) => {
    await slashCommand(h.sender, {
      text: `quote 1500 base bsc ${DEST}`,
      responseUrl: h.slack.responseUrl('q1'),
    });
    // Opened at once as a loading modal, then filled in place with the form.
    const filled = await h.slack.waitFor(
      'views.update',
      (c) => (c.body.view as { callback_id?: string }).callback_id === 'quote.submit',
    );
    const view = filled.body.view as { blocks: Array<Record<string, unknown>>; private_metadata: string };
    const options = BASE_OPTS(view.blocks, 'quote.origin');
    expect(options.some((o) => /disabled/i.test(o.text.text))).toBe(false);
    const element = (id: string) =>
      (view.blocks.find((b) => b.block_id === id)?.element ?? {}) as {
        initial_option?: { value: string; text: { text: string } };
        initial_value?: string;
      };
    const networks = await h.bot.client.getNetworks();
    const idOf = (short: string) => networks.find((n) => n.short_name === short)?.id;
    const origin = element('quote.origin').initial_option?.value;
    const destination = element('quote.destination').initial_option?.value;
    expect(origin).toBe(idOf('base'));
    expect(element('quote.origin').initial_option?.text.text).toBe('Base (base)');
    expect(destination).toBe(idOf('bsc'));
    expect(element('quote.destination').initial_option?.text.text).toBe('BNB Smart Chain (bsc)');
    expect(element('quote.amount').initial_value).toBe('1500');
    expect(element('quote.address').initial_value).toBe(DEST);

    const same = await viewSubmission(h.sender, {
      callbackId: 'quote.submit',
      privateMetadata: view.private_metadata,
      values: {
        'quote.amount': { 'quote.amount': textValue('1500') },
        'quote.origin': { 'quote.origin': selectValue(origin ?? '') },
        'quote.destination': { 'quote.destination': selectValue(origin ?? '') },
        'quote.address': { 'quote.address': textValue('0x1234') },
      },
    });
    const errors = (same.json() as { errors: Record<string, string> }).errors;
    expect(errors['quote.destination']).toMatch(/must differ/);
    expect(errors['quote.address']).toMatch(/^Destination address/);

    await viewSubmission(h.sender, {
      callbackId: 'quote.submit',
      viewId: 'VQUOTE',
      privateMetadata: view.private_metadata,
      values: {
        'quote.amount': { 'quote.amount': textValue('1500') },
        'quote.origin': { 'quote.origin': selectValue(origin ?? '') },
        'quote.destination': { 'quote.destination': selectValue(destination ?? '') },
        'quote.address': { 'quote.address': textValue(DEST) },
      },
    });
    const update = await h.slack.waitFor('views.update', (c) => c.body.view_id === 'VQUOTE');
    const text = JSON.stringify(update.body.view);
    for (const label of ['Receivable', 'Network fee', 'Bridge fee']) expect(text).toContain(label);
    expect(text).toContain('SANDBOX');
  });
});
