// The route inside a real Bolt app (HTTP receiver, customRoutes): the raw bytes reach the signature
// check untouched, and Slack's own endpoint still answers beside it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { describe, expect } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { createWebhooksForSlack } from '../../src/wiring/webhooks.js';
import { clientFor } from '../support/cngn-client.js';
import { FakeSlack } from '../support/fake-slack.js';
import { test as base } from '../support/fixtures.js';
import { postWebhook, webhookBody } from '../support/webhook-rig.js';

/** The route in a Bolt app with its fake Slack, sandbox and store, all stopped after the test. */
const test = base.extend('bolt', async ({ defer }) => {
  const fake = await FakeSlack.start();
  defer(() => fake.stop());
  const sandbox = await startSandbox({ settleDelayMs: 60_000 });
  defer(() => sandbox.stop());
  const { client: api, store } = await clientFor(sandbox, { environment: 'sandbox' });
  defer(() => store.close());
  const webhooks = createWebhooksForSlack({
    store,
    api,
    webhookSecret: sandbox.webhookSecret,
    privateKey: sandbox.privateKey,
    slackToken: 'xoxb-test',
    slackApiUrl: fake.apiUrl,
    alertsChannel: 'CALERTS',
    reconcileGraceMs: 0,
  });
  const app = new App({
    token: 'xoxb-test',
    signingSecret: 'signing-secret',
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: fake.apiUrl },
    customRoutes: [webhooks.route],
  });
  const server = (await app.start(0)) as Server;
  defer(() => app.stop());
  await webhooks.start();
  defer(() => webhooks.stop());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/cngn`;
  sandbox.setWebhookUrl(url);
  return { url, fake, sandbox, webhooks };
});

describe('webhooks in the Bolt app', () => {
  test('verifies the raw body, refuses forgeries and posts a sandbox deposit to the alerts channel', async ({
    bolt,
  }) => {
    const { url, fake, sandbox } = bolt;
    const forged = await postWebhook(url, webhookBody('deposit.completed'), 'wrong-secret');
    expect(forged.status).toBe(401);
    // Whitespace the JSON parser would not care about still changes the signature's bytes.
    const raw = `{ "event": "deposit.completed",   ${JSON.stringify(
      webhookBody('deposit.completed', { trx_ref: 'REF-RAW' }),
    )
      .slice(1)
      .replace(/^"event":"deposit.completed",/, '')}`;
    expect((await postWebhook(url, raw, sandbox.webhookSecret)).status).toBe(200);
    await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-RAW'));
    const { trx_ref } = await sandbox.simulateCryptoDeposit({ amount: '4200', network: 'celo' });
    const post = await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(trx_ref));
    expect(post.body.channel).toBe('CALERTS');
    expect(post.body.text).toContain('[SANDBOX] On-chain deposit credited: ₦4,200.00');
    expect(fake.callsTo('chat.postMessage')).toHaveLength(2);
  });
});
