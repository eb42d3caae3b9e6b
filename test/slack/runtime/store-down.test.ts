// Redis stopped or hung under a running bot: readiness says so (503 with the reason, liveness still
// 200), a signed webhook is answered 503 instead of left waiting, an Approve click is answered
// privately "try again" (no review opens), a review submitted while it hangs is refused in the modal,
// and a rejection keeps its modal open saying so, while the request stays
// exactly as it was — also once Redis answers again.
import { describe, expect } from 'vitest';
import { NOT_RECORDED } from '../../../src/slack/approvals/actions/click.js';
import { clearStore, createStore } from '../../../src/store/index.js';
import { botTest } from '../../support/bot.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../../support/redis.js';
import { openReview, type ReviewView, refusedInModal, submitReview } from '../../support/review.js';
import { blockAction, textValue, viewSubmission } from '../../support/slack-requests.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  waitUntil,
} from '../approvals/support.js';

const hasRedis = await redisAvailable();

/**
 * `app`, the bot on Redis through a proxy a test stops or freezes; `proxy`; and `direct`, the same keys
 * straight to Redis: what is really stored, whatever the bot's connection does.
 */
const test = botTest.extend('redis', async ({ startApp, defer }) => {
  const prefix = testPrefix('store-down');
  const direct = await createStore(REDIS_URL, { prefix });
  defer(async () => {
    await clearStore(direct);
    await direct.close();
  });
  const proxy = await TcpProxy.forRedis(REDIS_URL);
  const store = await createStore(proxy.url, { prefix });
  // Closed while the proxy still passes traffic (thawed by then): a stopped proxy cuts the connection
  // under a client that still counts itself ready, and its close waits out its deadline for a reply.
  defer(async () => {
    await store.close();
    await proxy.stop();
  });
  const app = await startApp({ store });
  defer(() => proxy.thaw());
  return { app, proxy, direct };
});

/** The audit trail's last check (at start): a store outage does not change it. */
const AUDIT_OK = expect.objectContaining({ checked: true, ok: true });
const BUILD = { version: expect.any(String), commit: expect.any(String) };

describe.skipIf(!hasRedis)('a bot whose Redis stops answering', () => {
  const health = async (app: ApprovalApp, path: string) => {
    const response = await fetch(`${app.adminUrl}${path}`);
    return {
      status: response.status,
      body: (await response.json()) as { ok: boolean; reason?: string; reasons?: string[] },
    };
  };

  const webhook = (app: ApprovalApp) =>
    postWebhook(
      `${app.baseUrl}/webhooks/cngn`,
      webhookBody('deposit.received', { amount: '5000' }),
      app.sandbox.webhookSecret,
    );

  test('says so on /readyz and /healthz with the reason while Redis is stopped; /livez stays 200', async ({
    redis: { app, proxy },
  }) => {
    expect(await health(app, '/healthz')).toEqual({
      status: 200,
      body: { ok: true, ready: true, ...BUILD, audit: AUDIT_OK },
    });
    await proxy.stop();
    const down = await health(app, '/healthz');
    expect(down.status).toBe(503);
    expect(down.body.ok).toBe(false);
    expect(down.body.reason).toMatch(/^the store \(redis\) failed: /);
    const readiness = await health(app, '/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.reasons).toEqual([down.body.reason]);
    expect(await health(app, '/livez')).toEqual({ status: 200, body: { ok: true } });
  });

  test('says so on /readyz and /healthz while Redis hangs', async ({ redis: { app, proxy } }) => {
    proxy.freeze();
    const reason = 'the store (redis) did not answer within 1000 ms';
    // Asked at once: each waits out the store's second on its own.
    const [healthz, readyz, livez] = await Promise.all([
      health(app, '/healthz'),
      health(app, '/readyz'),
      health(app, '/livez'),
    ]);
    expect(healthz).toEqual({
      status: 503,
      body: { ok: false, ready: false, reason, reasons: [reason], ...BUILD, audit: AUDIT_OK },
    });
    expect(readyz).toEqual({ status: 503, body: { ready: false, reasons: [reason] } });
    expect(livez.status).toBe(200);
  });

  test('answers a signed webhook 503 while Redis hangs, instead of leaving the sender waiting', async ({
    redis: { app, proxy },
  }) => {
    proxy.freeze();
    const reply = await webhook(app);
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toEqual({
      ok: false,
      error: 'could not store the event; try again later',
    });
  });

  test('answers a signed webhook 503 while Redis is stopped', async ({ redis: { app, proxy } }) => {
    await proxy.stop();
    expect((await webhook(app)).status).toBe(503);
  });

  test('tells an approver privately to try again while Redis is stopped, and changes nothing', async ({
    redis: { app, proxy, direct },
  }) => {
    const id = await fileWithdrawal(app, '1200');
    const updates = app.slack.callsTo('chat.update').length;
    await proxy.stop();
    const answered = await approve(app, id, APPROVER_A);
    expect(answered.clicked.status).toBe(200);
    // No review opens on figures the bot could not read.
    expect(answered.view).toBeUndefined();
    expect(answered.told?.body.text).toBe(NOT_RECORDED);
    const after = await direct.get<{ state: string; approvals: unknown[] }>(`approval:${id}`);
    expect(after?.state).toBe('pending');
    expect(after?.approvals).toEqual([]);
    expect(app.slack.callsTo('chat.update')).toHaveLength(updates);
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('keeps the reject modal open with the reason while Redis is stopped, and changes nothing', async ({
    redis: { app, proxy, direct },
  }) => {
    const id = await fileWithdrawal(app, '1250');
    await proxy.stop();
    const response = await viewSubmission(app.sender, {
      callbackId: 'approval.reject.submit',
      privateMetadata: JSON.stringify({ id, channel: APPROVALS_CHANNEL }),
      userId: APPROVER_A,
      values: { 'reject.reason': { 'reject.reason': textValue('wrong amount') } },
    });
    expect(response.json()).toMatchObject({
      response_action: 'errors',
      errors: { 'reject.reason': expect.stringContaining('could not be recorded just now') },
    });
    expect((await direct.get<{ state: string }>(`approval:${id}`))?.state).toBe('pending');
  });

  test('answers a review submitted while Redis hangs in the modal, and the submission never counts once it is back', async ({
    redis: { app, proxy, direct },
  }) => {
    const id = await fileWithdrawal(app, '1300');
    const opened = await openReview(app.slack, APPROVER_A, (triggerId) =>
      blockAction(app.sender, {
        actionId: 'approval.approve',
        value: id,
        userId: APPROVER_A,
        channelId: APPROVALS_CHANNEL,
        messageTs: '1.0',
        triggerId,
      }),
    );
    proxy.freeze();
    const refused = await submitReview(app.sender, opened.view as ReviewView, APPROVER_A);
    // Slack needs its answer before the store does: what the review showed cannot be read in time, so
    // nothing was approved, and the modal says so.
    expect(refused.json()).toMatchObject({ response_action: 'update' });
    expect(refusedInModal(refused)).toContain(
      'could not be checked against what it showed (the bot’s store was too slow to answer), so nothing was approved',
    );
    proxy.thaw(); // everything the hung submission sent arrives now
    // Submitting again goes through, once: the first submission was never recorded, late or otherwise.
    expect(
      refusedInModal(await submitReview(app.sender, opened.view as ReviewView, APPROVER_A)),
    ).toBeUndefined();
    await waitUntil(async () => (await direct.get<{ state: string }>(`approval:${id}`))?.state === 'sent');
    await app.engine.idle();
    const after = await direct.get<{ approvals: Array<{ user: string }> }>(`approval:${id}`);
    expect(after?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    const ephemerals = app.slack.callsTo('chat.postEphemeral').filter((c) => c.body.user === APPROVER_A);
    expect(ephemerals.map((c) => c.body.text)).toEqual([]);
  });
});
