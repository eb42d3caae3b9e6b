// App Home: published for a person who opened it, listing what waits for their approval (with the
// channel's own buttons) and their own requests; a click from Home takes the engine's one path, so it
// and a channel click at the same moment approve once; re-published when the request changes.
import { describe, expect } from 'vitest';
import { Money } from '../../../../src/format/money.js';
import { RecentAlerts } from '../../../../src/webhooks/recent.js';
import { botTest as test } from '../../../support/bot.js';
import type { SlackCall } from '../../../support/fake-slack.js';
import { fileDraft } from '../../../support/filing.js';
import { epochSeconds } from '../../../support/outside-times.js';
import { openReview, type ReviewView, refusedInModal, submitReview } from '../../../support/review.js';
import { clickInHome as homeClick, homeOpened as openHome } from '../../../support/slack-requests.js';
import { postWebhook, webhookBody } from '../../../support/webhook-rig.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  click,
  DEST,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
  reviewFor,
  waitUntil,
} from '../support.js';

/** The Events API delivery Slack sends when someone opens the app's Home tab. */
const homeOpened = (a: ApprovalApp, user: string) => openHome(a.sender, user);
const clickInHome = (a: ApprovalApp, actionId: string, value: string, userId: string, triggerId?: string) =>
  homeClick(a.sender, { actionId, value, userId, ...(triggerId ? { triggerId } : {}) });

const publishesFor = (a: ApprovalApp, user: string) =>
  a.slack.callsTo('views.publish').filter((c) => c.body.user_id === user);
const homeText = (call: SlackCall | undefined) =>
  JSON.stringify((call?.body.view as { blocks?: unknown })?.blocks ?? []);
/** The Approve buttons a Home shows, by their values. */
const approveValues = (call: SlackCall | undefined) => {
  const blocks = ((call?.body.view as { blocks?: unknown[] })?.blocks ?? []) as Array<{
    elements?: Array<{ action_id?: string; value?: string }>;
  }>;
  return blocks
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.action_id === 'approval.approve')
    .map((e) => e.value);
};

const settled = async (a: ApprovalApp) => {
  await a.engine.idle();
  await a.approvals?.presenter?.idle();
  await a.approvals?.dms?.idle();
  await a.approvals?.home?.idle();
};

describe('App Home', () => {
  test('lists a pending request for an approver, with Approve bound to its round and its checks, and not for its requester', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel' });
    for (const user of [APPROVER_A, REQUESTER]) expect((await homeOpened(app, user)).status).toBe(200);
    await waitUntil(() => publishesFor(app as ApprovalApp, REQUESTER).length > 0, 'first publish');
    const id = await fileWithdrawal(app, '2500');
    await settled(app);
    const approver = publishesFor(app, APPROVER_A).at(-1);
    expect(approveValues(approver)).toEqual([`${id}:0`]);
    expect(homeText(approver)).toContain('₦2,500.00');
    expect(homeText(approver)).toMatch(/expires in 1 day|expires in 24 hours/);
    // The checks made at filing, and the mark of a destination never paid before.
    expect(homeText(approver)).toContain('*Checks* at filing');
    expect(homeText(approver)).toContain('First payment to this destination');
    const requester = publishesFor(app, REQUESTER).at(-1);
    expect(approveValues(requester)).toEqual([]);
    // …but it is among their own requests, with a link to its message.
    expect(homeText(requester)).toContain(id);
    expect(homeText(requester)).toContain('open the message');
    expect(homeText(requester)).toContain('SANDBOX');
  });

  test('shows the daily limit in use, and which total chose a waiting request’s approvals', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel', tiers: '0:1,1000000:2', dailyLimit: '5000000.00' });
    await homeOpened(app, APPROVER_A);
    await fileWithdrawal(app, '600000');
    // Elsewhere: to the same address it would be the same payment, asked about before filing.
    await fileWithdrawal(app, '600000', '0x1111111111111111111111111111111111111111');
    await settled(app);
    const home = homeText(publishesFor(app, APPROVER_A).at(-1));
    expect(home).toContain('*Daily limit*\\n₦0.00 of ₦5,000,000.00 approved or sent in the last 24 h');
    expect(home).toContain('₦1,200,000.00 waiting');
    expect(home).toContain(`2 approvals needed for ₦1,200,000.00 from <@${REQUESTER}> in the last 24 h`);
  });

  test('says which approvals need a passkey, and that none does while signing is off', async ({
    startApp,
  }) => {
    const off = await startApp({ notify: 'channel' });
    await homeOpened(off, APPROVER_A);
    await waitUntil(() => publishesFor(off as ApprovalApp, APPROVER_A).length > 0, 'first publish');
    expect(homeText(publishesFor(off, APPROVER_A).at(-1))).toContain(
      '*Passkeys*: Approvals are made with a click; no passkey is asked for.',
    );
    const signed = await startApp({
      notify: 'channel',
      config: {
        signing: {
          rule: { mode: 'above', amount: Money.parse('1000000') },
          rpId: 'desk.example.com',
          origin: 'https://desk.example.com',
        },
      },
    });
    await homeOpened(signed, APPROVER_A);
    await waitUntil(() => publishesFor(signed as ApprovalApp, APPROVER_A).length > 0, 'first publish');
    expect(homeText(publishesFor(signed, APPROVER_A).at(-1))).toContain(
      "*Passkeys*: Approvals of withdrawals, redemptions and bridges above ₦1,000,000.00 are signed with the approver's passkey",
    );
  });

  test('costs nothing for a person who never opened it', async ({ startApp }) => {
    const app = await startApp({ notify: 'channel' });
    await homeOpened(app, APPROVER_A);
    await fileWithdrawal(app, '2600');
    await settled(app);
    expect(publishesFor(app, APPROVER_A).length).toBeGreaterThan(0);
    expect(publishesFor(app, APPROVER_B)).toEqual([]);
    expect(publishesFor(app, REQUESTER)).toEqual([]);
  });

  test('is published again when the request changes: a cancelled request leaves the approver’s list', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel' });
    await homeOpened(app, APPROVER_A);
    const id = await fileWithdrawal(app, '2700');
    await settled(app);
    expect(approveValues(publishesFor(app, APPROVER_A).at(-1))).toEqual([`${id}:0`]);
    const before = publishesFor(app, APPROVER_A).length;
    await click(app, 'approval.cancel', id, REQUESTER);
    await waitUntil(
      () => publishesFor(app as ApprovalApp, APPROVER_A).length > before,
      'Home published again after the cancel',
    );
    await settled(app);
    expect((await app.engine.get(id))?.state).toBe('cancelled');
    expect(approveValues(publishesFor(app, APPROVER_A).at(-1))).toEqual([]);
  });

  test('coalesces a burst of changes into one publish per person', async ({ startApp }) => {
    const app = await startApp({ notify: 'channel', homeDebounceMs: 3_000 });
    await homeOpened(app, APPROVER_A);
    await waitUntil(() => publishesFor(app as ApprovalApp, APPROVER_A).length === 1, 'the publish on open');
    const engine = app.engine;
    const filed = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fileDraft(engine, {
          kind: 'withdraw',
          requester: REQUESTER,
          amount: `${100 + i}`,
          payload: { amount: `${100 + i}.00`, address: DEST, networkId: 'base', shouldSaveAddress: false },
          display: { networkName: 'Base' },
          purpose: 'Supplier payout INV-2231',
        }),
      ),
    );
    await settled(app);
    const publishes = publishesFor(app, APPROVER_A);
    expect(publishes).toHaveLength(2);
    expect(approveValues(publishes[1]).sort()).toEqual(filed.map((r) => `${r.id}:0`).sort());
  });

  test('approves exactly once when Approve is clicked in Home and in the channel at the same moment', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel' });
    await homeOpened(app, APPROVER_A);
    const id = await fileWithdrawal(app, '2800');
    await settled(app);
    const [value] = approveValues(publishesFor(app, APPROVER_A).at(-1));
    expect(value).toBe(`${id}:0`);
    // Each opens the review (Home's Approve takes the channel's path), then both submit at once.
    const [home, channel] = await Promise.all([
      openReview(app.slack, APPROVER_A, (triggerId) =>
        clickInHome(app as ApprovalApp, 'approval.approve', value as string, APPROVER_A, triggerId),
      ),
      reviewFor(app, `${id}:0`, APPROVER_B),
    ]);
    expect(home.view?.callback_id).toBe('approval.review.submit');
    expect(channel.view?.callback_id).toBe('approval.review.submit');
    const answers = await Promise.all([
      submitReview(app.sender, home.view as ReviewView, APPROVER_A),
      submitReview(app.sender, channel.view as ReviewView, APPROVER_B),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await waitUntil(async () => (await app?.engine.get(id))?.state === 'sent', 'sent');
    await settled(app);
    const request = await app.engine.get(id);
    expect(request?.approvals).toHaveLength(1);
    expect(app.sandbox.requests.filter((r) => r.path === '/v1/api/withdraw')).toHaveLength(1);
    // The one who lost is told in their modal, and nothing moved for them.
    const refusals = answers.map((a) => refusedInModal(a));
    const loserIndex = request?.approvals[0]?.user === APPROVER_A ? 1 : 0;
    expect(refusals[loserIndex]).toContain('already approved and is being handled');
    expect(refusals[1 - loserIndex]).toBeUndefined();
  });

  test('answers a refused Home click in the person’s DM: an outsider changes nothing', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel' });
    const id = await fileWithdrawal(app, '2900');
    expect((await clickInHome(app, 'approval.approve', `${id}:0`, OUTSIDER)).status).toBe(200);
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === OUTSIDER);
    expect(told.body.channel).toBe(`D${OUTSIDER}`);
    expect(app.slack.callsTo('conversations.open').map((c) => c.body.users)).toContain(OUTSIDER);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('shows the balance only as last read, and says so when it was never read', async ({ startApp }) => {
    const app = await startApp({ notify: 'channel' });
    await homeOpened(app, APPROVER_A);
    await waitUntil(() => publishesFor(app as ApprovalApp, APPROVER_A).length === 1, 'first publish');
    expect(homeText(publishesFor(app, APPROVER_A)[0])).toContain('Not read recently');
    const balanceReads = () => app?.sandbox.requests.filter((r) => r.path === '/v1/api/balance').length ?? 0;
    await app.client.getBalance();
    expect(balanceReads()).toBe(1);
    await homeOpened(app, APPROVER_A);
    await waitUntil(() => publishesFor(app as ApprovalApp, APPROVER_A).length === 2, 'second publish');
    expect(homeText(publishesFor(app, APPROVER_A)[1])).toMatch(/as of /);
    expect(balanceReads()).toBe(1);
  });

  test('shows the last alerts from the webhooks it stored, and the requester’s request as completed', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel', withWebhooks: true });
    await homeOpened(app, REQUESTER);
    const id = await fileWithdrawal(app, '3100');
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app?.engine.get(id))?.state === 'sent', 'sent');
    await app.sandbox.settleAll();
    await waitUntil(async () => (await app?.engine.get(id))?.state === 'completed', 'completed');
    await waitUntil(
      () => homeText(publishesFor(app as ApprovalApp, REQUESTER).at(-1)).includes('withdrawal.completed'),
      'the alert on Home',
    );
    await settled(app);
    const home = homeText(publishesFor(app, REQUESTER).at(-1));
    expect(home).toContain('₦3,100.00 · completed');
    expect(home).toContain('Completed · filed');
  });

  test('keeps being published after an alert signed in epoch seconds, and says how long ago it was', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel', withWebhooks: true });
    const body = webhookBody('deposit.completed', { occurredAt: undefined });
    body.timestamp = epochSeconds(new Date(Date.now() - 5 * 60_000));
    const reference = (body.data as { trx_ref: string }).trx_ref;
    const sent = await postWebhook(`${app.baseUrl}/webhooks/cngn`, body, app.sandbox.webhookSecret);
    expect(sent.status).toBe(200);
    const recent = new RecentAlerts(app.store);
    await waitUntil(
      async () => (await recent.latest()).some((a) => a.reference === reference),
      'the alert kept',
    );
    await homeOpened(app, APPROVER_A);
    await waitUntil(() => publishesFor(app, APPROVER_A).length > 0, 'a Home published');
    expect(homeText(publishesFor(app, APPROVER_A).at(-1))).toMatch(
      new RegExp(`\\\`${reference}\\\` · [56] minutes ago`),
    );
  });
});
