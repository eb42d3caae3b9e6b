// Through the whole bot (startBot: Bolt over HTTP, real client, embedded sandbox, fake Slack): the
// sandbox's signed deliveries reach the alerts channel, forgeries and junk are refused with nothing
// posted, duplicates are posted once, and a deposit whose webhook was lost is found by the reconciler.

import { describe, expect } from 'vitest';
import { keyId } from '../../src/cngn/credentials.js';
import { Money } from '../../src/format/money.js';
import { Reconciler } from '../../src/webhooks/index.js';
import { ALERTS_CHANNEL, type Harness } from '../support/harness.js';
import { postsMentioning, postWebhook, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

async function payDeposit(harness: Harness, naira: string) {
  const account = await harness.bot.client.createTemporaryAccount({
    amount: Money.parse(naira),
    customer: { email: 'ops@example.com' },
  });
  await harness.sandbox.payTemporaryAccount(account.reference);
  const page = await harness.bot.client.getTransactions({ page: 1, limit: 10 });
  const tx = page.data.find((t) => t.trx_type === 'fiat_buy' && t.status === 'completed');
  if (!tx) throw new Error('the paid deposit is not in the list');
  return tx;
}

describe('webhooks through the bot', () => {
  test('posts a deposit paid in the sandbox to the alerts channel: received, then credited', async ({
    startHarness,
  }) => {
    const h = await startHarness();
    const tx = await payDeposit(h, '75000');
    const received = await h.slack.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Deposit received'),
    );
    const credited = await h.slack.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Deposit credited'),
    );
    expect(received.body.channel).toBe(ALERTS_CHANNEL);
    expect(received.body.text).toBe('[SANDBOX] Deposit received: ₦75,000.00 (not credited yet)');
    expect(credited.body.text).toBe('[SANDBOX] Deposit credited: ₦75,000.00');
    expect(JSON.stringify(credited.body.blocks)).toContain(tx.trx_ref);
    expect(h.slack.calls.indexOf(received)).toBeLessThan(h.slack.calls.indexOf(credited));
  });

  test('refuses bad and missing signatures, malformed and oversized bodies, posting nothing', async ({
    startHarness,
  }) => {
    const h = await startHarness();
    const url = `${h.bot.url}/webhooks/cngn`;
    const secret = h.sandbox.webhookSecret;
    const body = webhookBody('deposit.completed', { trx_ref: 'REF-APP-REFUSED' });
    expect((await postWebhook(url, body, 'not-the-secret')).status).toBe(401);
    expect((await postWebhook(url, body, secret, null)).status).toBe(401);
    expect((await postWebhook(url, '{"event":', secret)).status).toBe(400);
    expect((await postWebhook(url, { event: '', data: {} }, secret)).status).toBe(400);
    expect((await postWebhook(url, { ...body, padding: 'x'.repeat(70_000) }, secret)).status).toBe(413);
    expect(await h.bot.webhooks.outbox.pendingCount()).toBe(0);
    // Still running: a genuine delivery goes through and is the only post.
    const good = webhookBody('withdrawal.completed', { trx_ref: 'REF-APP-GOOD', trx_type: 'withdraw' });
    expect((await postWebhook(url, good, secret)).status).toBe(200);
    expect((await postWebhook(url, good, secret)).body).toContain('duplicate');
    await h.slack.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-APP-GOOD'));
    expect(h.slack.callsTo('chat.postMessage')).toHaveLength(1);
  });

  test('posts a deposit whose webhook never arrived once, from reconciliation', async ({ startHarness }) => {
    const h = await startHarness();
    h.sandbox.setWebhookUrl(undefined);
    // The bot's own reconciler runs every few minutes; this one shares its store, pipeline and outbox
    // but has no grace period, so the fresh deposit counts now.
    const reconciler = new Reconciler({
      source: h.bot.client,
      pipeline: h.bot.webhooks.pipeline,
      store: h.store,
      environment: h.bot.client.environment,
      // The bot keeps its reconciler's bookkeeping under its API key; sharing it needs the same key.
      keyId: keyId(h.sandbox.apiKey),
      graceMs: 0,
    });
    const tx = await payDeposit(h, '5000');
    expect(h.sandbox.webhookDeliveries).toHaveLength(0);
    expect((await reconciler.runOnce()).queued).toBe(1);
    expect((await reconciler.runOnce()).queued).toBe(0);
    expect((await h.bot.webhooks.reconciler!.runOnce()).queued).toBe(0);
    const post = await h.slack.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes(tx.trx_ref),
    );
    expect(post.body.text).toBe('[SANDBOX] Deposit credited: ₦5,000.00 (seen by reconciliation)');
    // One list read per run (three runs) besides the test's own.
    expect(h.sandbox.count('GET', '/v1/api/transactions')).toBe(4);
    expect(postsMentioning(h.slack, tx.trx_ref)).toHaveLength(1);
  });
});
