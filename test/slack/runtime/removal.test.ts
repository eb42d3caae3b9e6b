// Slack telling the bot it was removed (app_uninstalled, tokens_revoked), as signed events through the
// real bot: from then on nothing reaches Slack (alerts stay in the outbox, approval messages are not
// updated), the log says so at error level, and /healthz says why. /readyz stays ready: webhooks are
// still stored, and their alerts wait in the outbox for a bot that may call Slack again.
import { expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { eventDelivery } from '../../support/slack-requests.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';
import { APPROVER_A, type ApprovalApp, approve, fileWithdrawal, waitUntil } from '../approvals/support.js';

const test = botTest.extend('fakeSlack', async ({ defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  return slack;
});

async function readyz(app: ApprovalApp) {
  const response = await fetch(`${app.adminUrl}/readyz`);
  return { status: response.status, body: (await response.json()) as { ready: boolean; reasons?: string[] } };
}

async function healthz(app: ApprovalApp) {
  const response = await fetch(`${app.adminUrl}/healthz`);
  return { status: response.status, body: (await response.json()) as { ok: boolean; warnings?: string[] } };
}

test('after app_uninstalled, sends nothing more to Slack and says why on /healthz, still ready', async ({
  startApp,
  fakeSlack,
}) => {
  const { logger, entries } = capturedLog('info');
  const app = await startApp({ slack: fakeSlack, logger, withWebhooks: true });
  const id = await fileWithdrawal(app, '1700');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  const reference = (await app.engine.get(id))?.outcome?.reference ?? '';
  await app.engine.idle();
  await app.approvals?.presenter?.idle();

  expect((await eventDelivery(app.sender, { type: 'app_uninstalled' })).status).toBe(200);
  const reason = 'Slack says the app was uninstalled from the workspace (app_uninstalled)';
  await waitUntil(async () => (await healthz(app)).body.ok === false, '/healthz to say so');
  expect(await healthz(app)).toMatchObject({ status: 200, body: { ok: false, warnings: [reason] } });
  expect(await readyz(app)).toEqual({ status: 200, body: { ready: true } });
  expect(entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
    `${reason}: nothing more is sent to Slack; install the app again, set its new bot token and restart`,
  ]);
  const callsBefore = fakeSlack.calls.length;

  // What would have reached Slack: the request completing (its message, thread, the requester's note)
  // and the service's webhook (an alert).
  const body = webhookBody('withdrawal.completed', {
    trx_ref: reference,
    trx_type: 'withdraw',
    amount: '1700.00',
  });
  expect((await postWebhook(`${app.baseUrl}/webhooks/cngn`, body, app.sandbox.webhookSecret)).status).toBe(
    200,
  );
  await app.webhooks?.pipeline.settled();
  await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'completed');
  await app.stop(); // everything under way is finished (or given up) before this returns

  expect(fakeSlack.calls.slice(callsBefore).map((c) => c.method)).toEqual([]);
  // The alert waits in the outbox for a bot that may call Slack again.
  expect(await app.webhooks?.outbox.pendingIds()).toHaveLength(1);
});

test('after tokens_revoked naming the bot token, says so on /healthz; user tokens alone, or none named, change nothing', async ({
  startApp,
  fakeSlack,
}) => {
  const { logger, entries } = capturedLog('info');
  const app = await startApp({ slack: fakeSlack, logger });
  await eventDelivery(app.sender, { type: 'tokens_revoked', tokens: { oauth: ['UPERSON'] } });
  await eventDelivery(app.sender, { type: 'tokens_revoked' });
  expect((await healthz(app)).body.ok).toBe(true);
  await eventDelivery(app.sender, { type: 'tokens_revoked', tokens: { bot: ['UBOT'] } });
  await waitUntil(async () => (await healthz(app)).body.ok === false, '/healthz to say so');
  expect((await healthz(app)).body.warnings).toEqual([
    "Slack says the bot's token was revoked (tokens_revoked)",
  ]);
  expect((await readyz(app)).status).toBe(200);
  // Events are handled in the order they came: the two before changed nothing, and failed nowhere.
  expect(entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
    "Slack says the bot's token was revoked (tokens_revoked): nothing more is sent to Slack; install the app again, set its new bot token and restart",
  ]);
});
