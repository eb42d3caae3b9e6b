// Amounts no service could mean, in signed events through the real bot (Bolt over HTTP, the webhook
// route, the outbox, the alert builders): kept, posted as needing a person with the amount as sent,
// never shown as a ₦ figure, and never taken to settle an approval request.
import { describe, expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';
import { APPROVER_A, type ApprovalApp, approve, fileWithdrawal, waitUntil } from '../approvals/support.js';

/** The bot with the webhook route, taking the sandbox's events. */
const test = botTest.extend('app', async ({ startApp }) => startApp({ withWebhooks: true }));

const FOUR_HUNDRED_DIGITS = '9'.repeat(400);

/**
 * A signed body whose `data.amount` is exactly `amountJson` in the bytes sent (a JSON number such as
 * 1e309 is written as is, which JSON.parse would read as Infinity).
 */
function bodyWithAmount(event: string, amountJson: string, data: Record<string, unknown> = {}) {
  const body = webhookBody(event, { amount: '__AMOUNT__', ...data });
  const reference = String((body.data as { trx_ref: string }).trx_ref);
  return { raw: JSON.stringify(body).replace('"__AMOUNT__"', amountJson), reference };
}

const send = (app: ApprovalApp, raw: string) =>
  postWebhook(`${app.baseUrl}/webhooks/cngn`, raw, app.sandbox.webhookSecret);

const alertFor = (app: ApprovalApp, reference: string) =>
  app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === 'CALERTS' && JSON.stringify(c.body).includes(reference),
  );

const said = (call: SlackCall) => `${String(call.body.text)}\n${JSON.stringify(call.body.blocks)}`;

describe('a deposit.completed with an amount that is no amount', () => {
  test.for<[string, string]>([
    ['1e309', '1e309'],
    ['"NaN"', 'NaN'],
    ['"-500.00"', '-500.00'],
    ['"0.001"', '0.001'],
    ['1e+21', '1e+21'],
    ['-500', '-500'],
    [`"${FOUR_HUNDRED_DIGITS}"`, '9'.repeat(24)],
    [FOUR_HUNDRED_DIGITS, '9'.repeat(24)],
    ['"1,500.00"', '1,500.00'],
    ['" 12 "', ' 12 '],
  ])(
    'is stored and posted as needing a person, never as a credit: amount %s',
    async ([json, shown], { app }) => {
      const { raw, reference } = bodyWithAmount('deposit.completed', json);
      const answer = await send(app, raw);
      expect(answer.status).toBe(200);
      const post = await alertFor(app, reference);
      const text = said(post);
      expect(text).not.toContain('credited');
      expect(text).not.toMatch(/₦\s?[-\d]/);
      expect(text).not.toContain('Infinity');
      expect(String(post.body.text)).toContain('needs a person: the amount');
      expect(text).toContain(`the amount \`${shown}`);
      expect(text).toContain('is not a valid amount');
      // A 400-digit amount is cut, not pasted whole.
      expect(text).not.toContain('9'.repeat(60));
      // Kept: the outbox holds the event as it came.
      const placements = await app.webhooks?.placements([reference]);
      expect(placements?.map((p) => p.event)).toEqual(['deposit.completed']);
    },
  );

  test('still posts plain amounts as the credit they are', async ({ app }) => {
    for (const [json, figure] of [
      ['"1500.5"', '₦1,500.50'],
      ['2500', '₦2,500.00'],
      ['"0.00"', '₦0.00'],
      ['"999999999999999.99"', '₦999,999,999,999,999.99'],
    ] as const) {
      const { raw, reference } = bodyWithAmount('deposit.completed', json);
      expect((await send(app, raw)).status).toBe(200);
      const post = await alertFor(app, reference);
      expect(String(post.body.text)).toContain(`Deposit credited: ${figure}`);
    }
  });

  test('refuses a sixteenth integer digit as too long to be a real amount', async ({ app }) => {
    const { raw, reference } = bodyWithAmount('deposit.completed', '"1000000000000000.00"');
    expect((await send(app, raw)).status).toBe(200);
    const post = await alertFor(app, reference);
    expect(String(post.body.text)).toContain('needs a person: the amount');
    expect(said(post)).not.toContain('credited');
  });
});

test('never settles an approval request from an event whose amount is no amount', async ({ app }) => {
  const id = await fileWithdrawal(app, '1600');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  const reference = (await app.engine.get(id))?.outcome?.reference ?? '';
  expect(reference).not.toBe('');
  const body = webhookBody('withdrawal.completed', { trx_ref: reference, trx_type: 'withdraw' });
  const raw = JSON.stringify({ ...body, data: { ...(body.data as object), amount: '__A__' } }).replace(
    '"__A__"',
    '1e309',
  );
  expect((await send(app, raw)).status).toBe(200);
  const post = await alertFor(app, reference);
  expect(String(post.body.text)).toContain('needs a person: the amount');
  await app.webhooks?.pipeline.settled();
  const request = await app.engine.get(id);
  expect(request?.state).toBe('sent');
  expect(request?.history.map((step) => step.action)).not.toContain('completed');
});
