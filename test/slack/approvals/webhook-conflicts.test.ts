// Reports from the service that cannot all be true, as signed webhooks through the real bot: a failure
// after a completion, a completion after a failure, a completion of another amount. None settles the
// request; each marks its message and thread, alerts a person, and is in the audit chain.
import { expect } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { custodyReport } from '../../../src/cngn/custody-gateway.js';
import { botTest as test } from '../../support/bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { postWebhook, webhookBody } from '../../support/webhook-rig.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  type ApprovalAppOptions,
  approve,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from './support.js';

const CONFLICT = 'Conflicting reports from the service:';

/** A withdrawal of `amount`, approved and sent: its id and the service's reference. */
async function sentWithdrawal(app: ApprovalApp, amount: string): Promise<{ id: string; reference: string }> {
  const id = await fileWithdrawal(app, amount);
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  const reference = (await app.engine.get(id))?.outcome?.reference ?? '';
  expect(reference).not.toBe('');
  return { id, reference };
}

/** A signed event about `reference`, through the bot's webhook route; settled once its subscribers ran. */
async function report(
  app: ApprovalApp,
  event: string,
  reference: string,
  data: Record<string, unknown>,
): Promise<void> {
  const body = webhookBody(event, { trx_ref: reference, trx_type: 'withdraw', ...data });
  const answer = await postWebhook(`${app.baseUrl}/webhooks/cngn`, body, app.sandbox.webhookSecret);
  expect(answer.status).toBe(200);
  await app.webhooks?.pipeline.settled();
}

const get = async (app: ApprovalApp, id: string) => (await app.engine.get(id)) as ApprovalRequest;

type StartApp = (options?: ApprovalAppOptions) => Promise<ApprovalApp>;

/** A bot started with `options` and a withdrawal of ₦1,600 sent on it (`sentWithdrawal`). */
async function sentOn(startApp: StartApp, options: ApprovalAppOptions) {
  const app = await startApp(options);
  return { app, ...(await sentWithdrawal(app, '1600')) };
}

/** A bot taking the service's webhooks, and a withdrawal of ₦1,600 sent on it. */
const sentWithWebhooks = (startApp: StartApp) => sentOn(startApp, { withWebhooks: true });

/** The ₦1,600 withdrawal `reference` reported completed, and the request `id` completed from it. */
async function completedByWebhook(app: ApprovalApp, id: string, reference: string): Promise<void> {
  await report(app, 'withdrawal.completed', reference, { amount: '1600.00' });
  await waitUntil(async () => (await get(app, id)).state === 'completed', 'completed');
}

/** The ₦1,600 withdrawal `reference` reported failed for `reason`. */
const failedByWebhook = (app: ApprovalApp, reference: string, reason: string) =>
  report(app, 'transaction.failed', reference, { amount: '1600.00', status: 'failed', reason });

/** Request `id` is still sent, with no `action` (completed, by default) in its history: what it is. */
async function expectStillSent(app: ApprovalApp, id: string, action = 'completed'): Promise<ApprovalRequest> {
  const request = await get(app, id);
  expect(request.state).toBe('sent');
  expect(request.history.map((step) => step.action)).not.toContain(action);
  return request;
}

/** The bot's clock, moved on by hand so a status check falls due without waiting. */
function movableClock(): { now: () => Date; advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** Two sweeps, each after the longest wait between status checks: the request is checked twice. */
async function pollTwice(app: ApprovalApp, clock: ReturnType<typeof movableClock>): Promise<void> {
  for (let i = 0; i < 2; i++) {
    clock.advance(16 * 60_000);
    await app.engine.tick();
  }
  await app.approvals?.presenter?.idle();
}

/** The request's message, its thread reply and the alert all say the conflict; the chain has it. */
async function expectFlagged(app: ApprovalApp, id: string, words: RegExp): Promise<void> {
  const request = await get(app, id);
  const where = request.announcement;
  expect(where?.channel).toBe(APPROVALS_CHANNEL);
  const isThread = (c: SlackCall) => c.body.thread_ts === where?.ts && String(c.body.text).includes(CONFLICT);
  const reply = await app.slack.waitFor('chat.postMessage', isThread);
  expect(String(reply.body.text)).toMatch(words);
  expect(String(reply.body.text)).toContain('check with the service');
  await app.slack.waitFor(
    'chat.update',
    (c) => c.body.ts === where?.ts && JSON.stringify(c.body.blocks).includes(CONFLICT),
  );
  const shown = app.slack.messages(APPROVALS_CHANNEL).find((m) => m.ts === where?.ts);
  expect(shown?.text).toContain('Conflicting reports from the service — check with the service');
  expect(JSON.stringify(shown?.blocks)).toMatch(words);
  const alert = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === 'CALERTS' && String(c.body.text).startsWith('Needs a person'),
  );
  expect(String(alert.body.text)).toContain(id);
  expect(String(alert.body.text)).toMatch(words);
  const audited = (await app.engine.audit(100)).filter(
    (entry) => entry.requestId === id && entry.action === 'conflicting-reports',
  );
  expect(audited).toHaveLength(1);
  expect(audited[0]?.note).toMatch(words);
  expect((await app.engine.verifyAudit()).ok).toBe(true);
}

test('flags a failure reported after the completion, and the request no longer reads as plainly completed', async ({
  startApp,
}) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await completedByWebhook(app, id, reference);
  await failedByWebhook(app, reference, 'Provider failed to process payout');
  await expectFlagged(
    app,
    id,
    /recorded completed \(webhook withdrawal\.completed\), then transaction\.failed reported it failed: Provider failed/,
  );
  const request = await get(app, id);
  expect(request.conflicts).toHaveLength(1);
  // The requester, told it settled, hears of the conflict too.
  await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === REQUESTER && String(c.body.text).includes(CONFLICT),
  );
  // The same report again (its subscriber run again after a restart) is not a second conflict.
  const again = webhookBody('transaction.failed', {
    trx_ref: reference,
    transactionId: 'tx-again',
    trx_type: 'withdraw',
    amount: '1600.00',
    status: 'failed',
  });
  await app.engine.onCustodyReport(custodyReport(again as never));
  await app.engine.onCustodyReport(custodyReport(again as never));
  expect((await get(app, id)).conflicts).toHaveLength(2);
});

test('flags a completion reported after the failure', async ({ startApp }) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await failedByWebhook(app, reference, 'Declined');
  await waitUntil(async () => (await get(app, id)).state === 'failed', 'failed');
  await report(app, 'withdrawal.completed', reference, { amount: '1600.00' });
  await expectFlagged(
    app,
    id,
    /recorded failed \(webhook transaction\.failed: Declined\), then withdrawal\.completed reported it completed/,
  );
  expect((await get(app, id)).state).toBe('failed');
});

test('does not complete a request from a completion of another amount, and flags it', async ({
  startApp,
}) => {
  const clock = movableClock();
  const { app, id, reference } = await sentOn(startApp, { withWebhooks: true, now: clock.now });
  await report(app, 'withdrawal.completed', reference, { amount: '999999.00' });
  await expectFlagged(
    app,
    id,
    /withdrawal\.completed reports ₦999,999\.00, but the request was for ₦1,600\.00/,
  );
  await expectStillSent(app, id);
  // The service's own record says the request's ₦1,600.00 completed (its event is lost): the status
  // checks that follow agree with the request, yet settle nothing while the mark waits for a person.
  app.sandbox.setWebhookUrl(undefined);
  await app.sandbox.settleAll();
  expect(app.sandbox.transaction(reference)).toMatchObject({ status: 'completed', amount: '1600.00' });
  await pollTwice(app, clock);
  const polled = await get(app, id);
  expect(polled.state).toBe('sent');
  expect(polled.conflicts).toHaveLength(1);
  expect(polled.history.map((step) => step.action)).not.toContain('completed');
});

test('flags a status check that finds another amount completed, with no webhook at all, and settles nothing', async ({
  startApp,
}) => {
  const clock = movableClock();
  const { app, id, reference } = await sentOn(startApp, { now: clock.now });
  app.sandbox.misstateAmount(reference, '999999.00');
  await app.sandbox.settleAll();
  await pollTwice(app, clock);
  await expectFlagged(app, id, /the status check reports ₦999,999\.00, but the request was for ₦1,600\.00/);
  const request = await expectStillSent(app, id);
  // Checked again, the same answer is the same conflict, not a second one.
  expect(request.conflicts).toHaveLength(1);
  expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});

test('completes from a status check that finds the request’s amount written with more places', async ({
  startApp,
}) => {
  const clock = movableClock();
  const { app, id, reference } = await sentOn(startApp, { now: clock.now });
  await app.sandbox.settleAll();
  app.sandbox.misstateAmount(reference, '1600.000000');
  await pollTwice(app, clock);
  const request = await get(app, id);
  expect(request.state).toBe('completed');
  expect(request.conflicts).toBeUndefined();
});

test('flags a completion whose own status says failed, and settles nothing', async ({ startApp }) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await report(app, 'withdrawal.completed', reference, {
    status: 'failed',
    reason: 'Provider failed',
    amount: '1600.00',
  });
  await expectFlagged(app, id, /withdrawal\.completed gives its own status as failed \(Provider failed\)/);
  await expectStillSent(app, id);
});

test('flags a failure whose own status says completed, and does not call the request failed', async ({
  startApp,
}) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await report(app, 'transaction.failed', reference, { status: 'completed', amount: '1600.00' });
  await expectFlagged(app, id, /transaction\.failed gives its own status as completed/);
  await expectStillSent(app, id, 'failed');
});

test('settles nothing from a completion whose amount is present but no amount', async ({ startApp }) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  for (const amount of [{ value: '1600.00' }, null, ['1600.00']]) {
    await report(app, 'withdrawal.completed', reference, {
      transactionId: `tx-${JSON.stringify(amount)}`,
      status: 'completed',
      amount,
    });
  }
  await app.approvals?.presenter?.idle();
  await expectStillSent(app, id);
  // Each is posted for a person to look at, naming the amount it could not read: posted from the
  // alerts' outbox, which the presenter does not wait for, so the test waits for the posts themselves.
  const alerts = () =>
    app.slack
      .callsTo('chat.postMessage')
      .filter((c) => c.body.channel === 'CALERTS' && JSON.stringify(c.body).includes('could not be read'));
  await waitUntil(() => alerts().length >= 3, 'the three alerts');
  expect(alerts()).toHaveLength(3);
  for (const alert of alerts()) expect(JSON.stringify(alert.body)).toContain('`amount`');
});

test('settles as before when the reports agree: no conflict, no alert', async ({ startApp }) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await completedByWebhook(app, id, reference);
  // The same completion, said again by another delivery, agrees with it.
  await report(app, 'withdrawal.completed', reference, { amount: '1600', transactionId: 'tx-other' });
  await app.approvals?.presenter?.idle();
  const request = await get(app, id);
  expect(request.conflicts).toBeUndefined();
  expect(app.slack.callsTo('chat.postMessage').some((c) => String(c.body.text).includes(CONFLICT))).toBe(
    false,
  );
});

test('clears the mark on the record when an approver resolves it as checked with the service', async ({
  startApp,
}) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await completedByWebhook(app, id, reference);
  await failedByWebhook(app, reference, 'Reversed');
  await expectFlagged(app, id, /then transaction\.failed reported it failed: Reversed/);

  const answer = JSON.stringify(
    (await commandAnswer(app, `resolve ${id} failed payout reversed, support confirmed`, APPROVER_B)).body,
  );
  expect(answer).toContain(`${id} is now marked *failed*`);
  expect(answer).toContain('The conflicting reports are marked resolved, on the record.');
  const request = await get(app, id);
  expect(request.state).toBe('failed');
  expect(request.conflicts).toBeUndefined();
  expect(request.history.at(-1)).toMatchObject({
    action: 'conflict-resolved',
    state: 'failed',
    actor: APPROVER_B,
    note: 'checked by hand: payout reversed, support confirmed',
  });
  const audited = (await app.engine.audit(100)).filter((entry) => entry.requestId === id).at(-1);
  expect(audited).toMatchObject({ action: 'conflict-resolved', state: 'failed', actor: APPROVER_B });
  expect((await app.engine.verifyAudit()).ok).toBe(true);
  const where = request.announcement;
  await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.thread_ts === where?.ts && String(c.body.text).includes('Conflicting reports resolved'),
  );
  await app.slack.waitFor(
    'chat.update',
    (c) =>
      c.body.ts === where?.ts &&
      JSON.stringify(c.body.blocks).includes('Failed') &&
      !JSON.stringify(c.body.blocks).includes(CONFLICT),
  );
});

test('clears the mark of a completion of another amount when the approver finds the request’s amount completed', async ({
  startApp,
}) => {
  const { app, id, reference } = await sentWithWebhooks(startApp);
  await report(app, 'withdrawal.completed', reference, { amount: '999999.00' });
  await expectFlagged(app, id, /reports ₦999,999\.00, but the request was for ₦1,600\.00/);
  // The requester may not settle their own request.
  expect(
    JSON.stringify((await commandAnswer(app, `resolve ${id} completed ok`, REQUESTER)).body),
  ).not.toContain('is now marked');
  await commandAnswer(app, `resolve ${id} completed dashboard shows 1,600.00 paid`, APPROVER_B);
  const request = await get(app, id);
  expect(request).toMatchObject({ state: 'completed' });
  expect(request.conflicts).toBeUndefined();
  expect(request.history.at(-1)).toMatchObject({ action: 'completed', actor: APPROVER_B });
});
