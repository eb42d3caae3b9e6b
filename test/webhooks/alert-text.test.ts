// An alert's notification text (what Slack shows in a notification, and all a text-only retry or a
// dead-letter re-post sends) stays within Slack's 40,000 characters however long the service's text in
// it: a reason escaped to several times its length is cut, and says so, rather than set aside.
import { describe, expect } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { CUT_MARK } from '../../src/format/mrkdwn.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import { checkMessage } from '../../src/workbench/slack-rules.js';
import { fallbackAlert } from '../slack/builders/every-builder.js';
import { postsMentioning, waitUntil, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

/** An upstream error page as a failure's reason: 30,000 characters, each `<` escaped to four. */
const ERROR_PAGE = `<html>${'<b>gateway error</b>'.repeat(1500)}</html>`;

describe('a failure alert with a long reason', () => {
  test('is posted, its notification text cut and saying so', async ({ startRig }) => {
    const rig = await startRig({ digests: false });
    const body = webhookBody('transaction.failed', { trx_type: 'fiat_redeem', reason: ERROR_PAGE });
    expect((await rig.send(body)).status).toBe(200);
    const ref = String((body.data as { trx_ref: string }).trx_ref);
    const posted = await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(ref));
    expect(posted.answer).toMatchObject({ ok: true });
    expect(String(posted.body.text)).toContain('Redemption failed: ₦1,500.00 went back to the balance');
    expect(String(posted.body.text).endsWith(CUT_MARK)).toBe(true);
    await waitUntil(async () => (await rig.webhooks.outbox.pendingCount()) === 0);
    expect(await rig.webhooks.outbox.deadLetters()).toEqual([]);
    expect(postsMentioning(rig.fake, ref)).toHaveLength(1);
  });

  test.for(['fiat_redeem', 'withdraw'])(
    'makes a %s message Slack takes with its blocks and without',
    (type) => {
      const event = webhookEventSchema.parse(
        webhookBody('transaction.failed', { trx_type: type, amount: '250000.00', reason: ERROR_PAGE }),
      );
      const message = webhookMessage({ event, origin: 'webhook', environment: 'live' });
      expect(() => checkMessage(message)).not.toThrow();
      // A bold reason cut keeps its closing mark: no stray `*` shown.
      const note = JSON.stringify(message.blocks).match(/Reason: \*(?:[^"\\]|\\.)*"/)?.[0];
      if (type === 'fiat_redeem') expect(note?.endsWith(`${CUT_MARK}*"`)).toBe(true);
      expect(() => checkMessage({ text: message.text })).not.toThrow();
    },
  );
});

describe('the plain-text alerts of outside text', () => {
  const long = '&<'.repeat(10_000);

  test('the alert when its builder fails is cut to what Slack takes', async () => {
    const message = await fallbackAlert(long);
    expect(() => checkMessage(message)).not.toThrow();
    expect(message.text.endsWith(CUT_MARK)).toBe(true);
  });

  test('the notice of an alert set aside is posted, its reference cut', async ({ startRig }) => {
    const rig = await startRig({ digests: false, alertRoutes: 'deposit.completed:CREFUSES' });
    rig.fake.on('chat.postMessage', (call) =>
      call.body.channel === 'CREFUSES' ? { body: { ok: false, error: 'restricted_action' } } : undefined,
    );
    // Each `<` is escaped to four characters: 48,000 once escaped.
    const body = webhookBody('deposit.completed', { trx_ref: '<'.repeat(12_000) });
    expect((await rig.send(body)).status).toBe(200);
    const told = await rig.fake.waitFor('chat.postMessage', (c) => c.body.channel === 'CALERTS');
    expect(told.answer).toMatchObject({ ok: true });
    expect(String(told.body.text)).toContain('set aside in the dead-letter list');
    expect(String(told.body.text)).toContain(CUT_MARK);
  });
});
