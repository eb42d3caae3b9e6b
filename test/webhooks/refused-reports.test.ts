// A signed webhook whose references name another environment's request, or two requests, settles
// nothing: a treasury person hears of it in the alerts channel, once per delivery, with every word
// from outside shown as text, never as formatting.
import { expect } from 'vitest';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { custodyReport } from '../../src/cngn/custody-gateway.js';
import type { WebhookEvent } from '../../src/cngn/schemas.js';
import { escapeMrkdwn } from '../../src/format/mrkdwn.js';
import { createStore, type Store } from '../../src/store/index.js';
import { Reconciler } from '../../src/webhooks/index.js';
import { dedupeKey, outboxIdFor, refusedOutboxId } from '../../src/webhooks/keys.js';
import {
  APPROVER_A,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  waitUntil,
} from '../slack/approvals/support.js';
import { botTest as test } from '../support/bot.js';
import { capturedLog } from '../support/captured-log.js';
import type { SlackCall } from '../support/fake-slack.js';
import { postWebhook, webhookBody } from '../support/webhook-rig.js';

/** A withdrawal of `amount`, approved and sent on `app`. */
async function sent(app: ApprovalApp, amount: string): Promise<ApprovalRequest> {
  const id = await fileWithdrawal(app, amount);
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  return (await app.engine.get(id)) as ApprovalRequest;
}

/** A signed withdrawal.completed naming `reference` and the transaction id `transactionId`. */
async function deliver(app: ApprovalApp, body: Record<string, unknown>): Promise<void> {
  const answer = await postWebhook(`${app.baseUrl}/webhooks/cngn`, body, app.sandbox.webhookSecret);
  expect(answer.status).toBe(200);
  await app.webhooks?.pipeline.settled();
}

/** A signed withdrawal.completed of `amount` whose reference names `first` and its transaction id `second`. */
const namingBoth = (first: ApprovalRequest, second: ApprovalRequest, amount: string) =>
  webhookBody('withdrawal.completed', {
    trx_ref: first.outcome?.reference,
    transactionId: second.outcome?.reference,
    trx_type: 'withdraw',
    amount,
  });

/** A message in the alerts channel asking a person to look. */
const isNeedsAPerson = (c: SlackCall) =>
  c.body.channel === 'CALERTS' && String(c.body.text).includes('Needs a person');

const needsAPerson = (app: ApprovalApp) => app.slack.callsTo('chat.postMessage').filter(isNeedsAPerson);

/** The first alert asking a person to look, once it is posted. */
const needsAPersonAlert = (app: ApprovalApp) => app.slack.waitFor('chat.postMessage', isNeedsAPerson);

test('a webhook naming another environment’s request is told in the alerts channel, once per delivery', async ({
  startApp,
}) => {
  const app = await startApp({ withWebhooks: true });
  const request = await sent(app, '2100');
  const reference = request.outcome?.reference ?? '';
  // A live request, on the same store, holds the transaction id the delivery names beside the reference.
  const otherId = 'AR-*LIVE*_<!here>';
  const live = new ApprovalRepository(app.store, 'live');
  await live.save({ ...request, id: otherId, environment: 'live' }, false);
  expect(await live.indexReference('TX-`LIVE`*bold*', otherId)).toBeUndefined();
  const body = webhookBody('withdrawal.completed', {
    trx_ref: reference,
    transactionId: 'TX-`LIVE`*bold*',
    trx_type: 'withdraw',
    amount: '2100.00',
  });
  await deliver(app, body);
  const alert = await needsAPersonAlert(app);
  const said = JSON.stringify(alert.body);
  expect(String(alert.body.text)).toContain('names a request of another environment: it settles nothing');
  expect(said).toContain(request.id);
  // The other environment's request is named, escaped, with its environment.
  expect(said).toContain(JSON.stringify(escapeMrkdwn(otherId)).slice(1, -1));
  expect(said).toMatch(/\blive\b/);
  expect(said).toContain('The bot talks to sandbox');
  // Outside text is text: no mention, no bold, no code span closed early.
  expect(said).not.toContain('<!here>');
  expect(said).not.toContain('*LIVE*');
  expect(said).not.toContain('*bold*');
  expect((await app.engine.get(request.id))?.state).toBe('sent');

  // The same delivery again (a duplicate), and its subscribers run again (a restart): told once.
  await deliver(app, body);
  const delivery = outboxIdFor('webhook', dedupeKey(body as unknown as WebhookEvent));
  expect(await app.webhooks?.outbox.has(delivery)).toBe(true);
  await app.engine.onCustodyReport(custodyReport(body as unknown as WebhookEvent, [], delivery));
  await app.webhooks?.pipeline.settled();
  await waitUntil(async () => (await app.webhooks?.outbox.pendingIds())?.length === 0, 'all posted');
  expect(needsAPerson(app)).toHaveLength(1);
});

test('a webhook naming two requests of this environment is told in the alerts channel', async ({
  startApp,
}) => {
  const app = await startApp({ withWebhooks: true });
  const first = await sent(app, '2300');
  const second = await sent(app, '2400');
  const body = namingBoth(first, second, '2300.00');
  await deliver(app, body);
  const alert = await needsAPersonAlert(app);
  expect(String(alert.body.text)).toContain('names two different requests: it settles neither');
  expect(JSON.stringify(alert.body)).toContain(first.id);
  expect(JSON.stringify(alert.body)).toContain(second.id);
  expect((await app.engine.get(first.id))?.state).toBe('sent');
  expect((await app.engine.get(second.id))?.state).toBe('sent');
});

test('a transaction the reconciler posted, refused, is told once even when its webhook comes later, the one not told is logged, and a different refusal in its thread is told', async ({
  startApp,
}) => {
  const log = capturedLog('warn');
  const app = await startApp({ withWebhooks: true, logger: log.logger });
  const request = await sent(app, '2600');
  const reference = request.outcome?.reference ?? '';
  // A reconciler on the bot's pipeline and store, with no grace period; its first pass marks where it starts.
  const reconciler = new Reconciler({
    source: app.client,
    pipeline: app.webhooks!.pipeline,
    store: app.store,
    environment: app.client.environment,
    keyId: 'refused-reports',
    graceMs: 0,
  });
  await reconciler.runOnce();
  // The withdrawal completes and its webhook is lost for now.
  app.sandbox.setWebhookUrl(undefined);
  await app.sandbox.settleAll();
  const transactionId = app.sandbox.transaction(reference)?.id ?? '';
  expect(transactionId).not.toBe('');
  const live = new ApprovalRepository(app.store, 'live');
  await live.save({ ...request, id: 'AR-LIVE-1', environment: 'live' }, false);
  expect(await live.indexReference(transactionId, 'AR-LIVE-1')).toBeUndefined();
  expect((await reconciler.runOnce()).queued).toBe(1);
  await app.webhooks?.pipeline.settled();
  await needsAPersonAlert(app);
  // The real webhook of the same final state arrives: threaded under the reconciler's post, not told again.
  const body = webhookBody('withdrawal.completed', {
    trx_ref: reference,
    transactionId,
    trx_type: 'withdraw',
    amount: '2600.00',
  });
  await deliver(app, body);
  const delivery = outboxIdFor('webhook', dedupeKey(body as unknown as WebhookEvent));
  expect(await app.webhooks?.outbox.has(delivery)).toBe(true);
  await waitUntil(async () => (await app.webhooks?.outbox.pendingIds())?.length === 0, 'all posted');
  expect(needsAPerson(app)).toHaveLength(1);
  const notTold = log.entries.filter((e) => String(e.message).startsWith('a refused report is not alerted'));
  expect(notTold).toHaveLength(1);
  expect(notTold[0]).toMatchObject({
    level: 'warn',
    delivery,
    why: 'other-environment',
    requestIds: expect.arrayContaining([request.id, 'AR-LIVE-1']),
  });
  // A different refusal in the same thread (another request named beside it) is a second alert.
  const other = await sent(app, '2650');
  await deliver(
    app,
    webhookBody('withdrawal.completed', {
      trx_ref: reference,
      transactionId: other.outcome?.reference,
      trx_type: 'withdraw',
      amount: '2600.00',
    }),
  );
  await waitUntil(async () => (await app.webhooks?.outbox.pendingIds())?.length === 0, 'all posted');
  expect(needsAPerson(app)).toHaveLength(2);
  expect(JSON.stringify(needsAPerson(app)[1]?.body)).toContain(other.id);
});

test('a refused report that came in no delivery is logged with the requests it names, not alerted', async ({
  startApp,
}) => {
  const log = capturedLog('warn');
  const app = await startApp({ withWebhooks: true, logger: log.logger });
  const first = await sent(app, '2700');
  const second = await sent(app, '2800');
  const body = namingBoth(first, second, '2700.00');
  await app.engine.onCustodyReport(custodyReport(body as unknown as WebhookEvent));
  expect(await app.webhooks?.outbox.pendingIds()).toEqual([]);
  const notTold = log.entries.filter((e) => String(e.message).startsWith('a refused report is not alerted'));
  expect(notTold).toHaveLength(1);
  expect(notTold[0]).toMatchObject({
    level: 'warn',
    delivery: 'none',
    why: 'two-requests',
    requestIds: expect.arrayContaining([first.id, second.id]),
  });
});

/** A memory store whose claimAndWrite of the outbox entry `refusing.id` fails, while that is set. */
async function refusingOutbox(): Promise<{ store: Store; refusing: { id: string } }> {
  const inner = await createStore('memory://');
  const refusing = { id: '' };
  const store = new Proxy(inner, {
    get: (target, name, receiver) => {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'claimAndWrite' || typeof value !== 'function') return value;
      return (claim: { key: string }, ...rest: unknown[]) =>
        refusing.id && claim.key.endsWith(refusing.id)
          ? Promise.reject(new Error('the store refused the write'))
          : value.apply(target, [claim, ...rest]);
    },
  });
  return { store, refusing };
}

test('a refusal whose alert the outbox does not take is logged with its delivery and requests, and fails to be run again', async ({
  startApp,
}) => {
  const log = capturedLog('warn');
  const { store, refusing } = await refusingOutbox();
  const app = await startApp({ withWebhooks: true, logger: log.logger, store });
  const first = await sent(app, '2910');
  const second = await sent(app, '2920');
  const body = namingBoth(first, second, '2910.00');
  const delivery = outboxIdFor('webhook', dedupeKey(body as unknown as WebhookEvent));
  refusing.id = refusedOutboxId(delivery, 'two-requests', [first.id, second.id]);
  await deliver(app, body);
  expect(await app.webhooks?.outbox.has(delivery)).toBe(true);
  // Its subscriber failed, so it runs again (at the next start): the alert is not lost, and it is logged.
  await expect(
    app.engine.onCustodyReport(custodyReport(body as unknown as WebhookEvent, [], delivery)),
  ).rejects.toThrow('the store refused the write');
  const notTaken = log.entries.filter((e) => String(e.message).includes('the outbox did not take its alert'));
  expect(notTaken).toHaveLength(2);
  expect(notTaken[0]).toMatchObject({
    level: 'warn',
    delivery,
    why: 'two-requests',
    requestIds: expect.arrayContaining([first.id, second.id]),
  });
  refusing.id = '';
  await app.engine.onCustodyReport(custodyReport(body as unknown as WebhookEvent, [], delivery));
  await waitUntil(async () => (await app.webhooks?.outbox.pendingIds())?.length === 0, 'all posted');
  expect(needsAPerson(app)).toHaveLength(1);
});
