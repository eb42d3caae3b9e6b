// A refusal the service makes before acting is a refusal: the request fails at once, nothing sent,
// with the service's words on its message, in its thread and to the requester; the reconciler never
// looks it up, because there is nothing to find.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { APPROVALS_CHANNEL, APPROVER_A, approve, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

test('a withdrawal the service finds above the balance, once approved, ends failed with nothing sent and the service’s words', async ({
  startApp,
}) => {
  const app = await startApp({ tiers: '0:1' });
  expect(app.sandbox.balance()).toBe('1250000.00');
  // Filed within the balance the bot read; by the time it is sent, the balance has gone elsewhere
  // (a payment outside the bot), and the service refuses it before acting.
  const id = await fileWithdrawal(app, '1000000');
  app.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Insufficient balance');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'failed', 'failed');
  await app.engine.idle();

  const request = await app.engine.get(id);
  expect(request?.outcome).toMatchObject({ reason: 'Insufficient balance', nothingSent: true });
  const update = await app.slack.waitFor(
    'chat.update',
    (c) =>
      c.body.channel === APPROVALS_CHANNEL && JSON.stringify(c.body.blocks).includes('Failed — nothing sent'),
  );
  expect(update.body.text).toBe(`${id} · Withdrawal · ₦1,000,000.00: Failed — nothing sent`);
  expect(JSON.stringify(update.body.blocks)).toContain('Reason: Insufficient balance');
  // Never shown as an unknown outcome, not even for a moment.
  for (const call of app.slack.callsTo('chat.update')) {
    expect(JSON.stringify(call.body)).not.toMatch(/Outcome unknown|outcome unknown/);
  }
  const reply = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.thread_ts === request?.announcement?.ts && String(c.body.text).startsWith('Failed'),
  );
  expect(reply.body.text).toBe('Failed — nothing sent — Insufficient balance');
  const told = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === REQUESTER && String(c.body.text).includes('failed'),
  );
  expect(String(told.body.text)).toContain('failed, nothing was sent: Insufficient balance.');

  // The reconciler has nothing to look for: its sweep reads nothing and changes nothing.
  const reads = app.sandbox.requests.filter((r) => r.method === 'GET').length;
  await app.engine.tick();
  expect(app.sandbox.requests.filter((r) => r.method === 'GET').length).toBe(reads);
  expect((await app.engine.get(id))?.history).toEqual(request?.history);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  expect(app.sandbox.balance()).toBe('1250000.00');
});
