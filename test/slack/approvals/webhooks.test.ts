// Service webhooks settle approval requests: the signed delivery goes through the webhooks route and
// pipeline to the approvals subscriber, which completes or fails the request and says so in its thread.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { APPROVALS_CHANNEL, APPROVER_A, approve, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

test('completes a withdrawal from the signed webhook and tells the requester it settled', async ({
  startApp,
}) => {
  const app = await startApp({ withWebhooks: true });
  const id = await fileWithdrawal(app, '2500');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.sandbox.settleAll();
  await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'completed');
  await app.slack.waitFor('chat.update', (c) => JSON.stringify(c.body.blocks).includes('Completed'));
  // The step is also told in the request's thread, in the approvals channel.
  const where = (await app.engine.get(id))?.announcement;
  expect(where?.channel).toBe(APPROVALS_CHANNEL);
  expect(where?.ts).toBeDefined();
  const reply = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.thread_ts === where?.ts && String(c.body.text).startsWith('Completed'),
  );
  expect(reply.body.channel).toBe(APPROVALS_CHANNEL);
  expect(String(reply.body.text)).toContain('webhook withdrawal.completed');
  const dm = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === REQUESTER && String(c.body.text).includes('settled'),
  );
  expect(String(dm.body.text)).toContain(id);
  // No poll was needed: the only withdraw reads are none.
  expect(app.sandbox.count('GET', '/v1/api/withdraw/verify')).toBe(0);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});

test('fails a withdrawal from the transaction.failed webhook with its reason', async ({ startApp }) => {
  const app = await startApp({ withWebhooks: true });
  const id = await fileWithdrawal(app, '10', '0x000000000000000000000000000000000000dEaD');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.sandbox.settleAll();
  await waitUntil(async () => (await app.engine.get(id))?.state === 'failed', 'failed');
  const request = await app.engine.get(id);
  expect(request?.history.at(-1)?.note).toContain('transaction.failed');
  expect(request?.announcement?.ts).toBeDefined();
  const reply = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.thread_ts === request?.announcement?.ts && String(c.body.text).startsWith('Failed'),
  );
  expect(reply.body.channel).toBe(APPROVALS_CHANNEL);
  expect(String(reply.body.text)).toContain('transaction.failed');
});
