// Limits over time as people meet them in Slack: the split that meets the higher tier says which total
// chose it on the message, the DM copies and the review; the daily limit refuses a filing under its
// amount and a final approval privately, with the figures; /cngn policy shows both.
import { describe, expect } from 'vitest';
import { createStore } from '../../../src/store/index.js';
import { botTest as test } from '../../support/bot.js';
import { refusedInModal } from '../../support/review.js';
import { commandAnswer, redeemValues, viewSubmission, withdrawValues } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  DEST,
  fileWithdrawal,
  REQUESTER,
  reviewFor,
  waitUntil,
} from './support.js';

const TOTAL_LINE = `2 approvals needed for ₦1,200,000.00 from <@${REQUESTER}> in the last 24 h, including this`;

/** Submit the withdraw form as Ada does, without waiting for a request to be posted. */
async function submitWithdrawal(app: ApprovalApp, amount: string) {
  const network = (await app.client.getNetworks()).find((n) => !n.isDisabled);
  if (!network) throw new Error('no network');
  const viewId = `V${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
  await viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    viewId,
    userId: REQUESTER,
    privateMetadata: JSON.stringify({ networks: [network.id] }),
    values: withdrawValues({ amount, network, address: DEST }),
  });
  // The last answer to this submission replaces the "One moment" view.
  const answered = await app.slack.waitFor(
    'views.update',
    (c) => c.body.view_id === viewId && !JSON.stringify(c.body.view).includes('One moment'),
  );
  return answered.body.view as { callback_id?: string; blocks: unknown[] };
}

/** What the approver was told about a refused approval: in the modal, or privately after it closed. */
async function toldApprover(app: ApprovalApp, submitted: Parameters<typeof refusedInModal>[0]) {
  const inModal = refusedInModal(submitted);
  if (inModal) return inModal;
  const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_B);
  return String(told.body.text);
}

const ELSEWHERE = '0x1111111111111111111111111111111111111111';

describe('a payment split in two', () => {
  test('needs the higher tier, and every place an approver looks says which total chose it', async ({
    startApp,
  }) => {
    const app = await startApp({ tiers: '0:1,1000000:2' });
    const first = await fileWithdrawal(app, '600000');
    // Elsewhere: the same amount to the same address would be the same payment (asked again first).
    const second = await fileWithdrawal(app, '600000', ELSEWHERE);
    expect(await app.engine.get(first)).toMatchObject({ requiredApprovals: 1 });
    expect(await app.engine.get(second)).toMatchObject({ requiredApprovals: 2 });

    const posted = app.slack
      .callsTo('chat.postMessage')
      .find((c) => c.body.channel === APPROVALS_CHANNEL && String(c.body.text).includes(second));
    const message = JSON.stringify(posted?.body.blocks);
    expect(message).toContain(TOTAL_LINE);
    expect(message).toContain('0 of 2');
    // The first was filed alone: its own amount chose its tier, and nothing more is said.
    const firstPost = app.slack
      .callsTo('chat.postMessage')
      .find((c) => c.body.channel === APPROVALS_CHANNEL && String(c.body.text).includes(first));
    expect(JSON.stringify(firstPost?.body.blocks)).not.toContain('approvals needed for');

    await waitUntil(
      () =>
        app.slack
          .callsTo('chat.postMessage')
          .some((c) => c.body.channel === APPROVER_A && JSON.stringify(c.body.blocks).includes(TOTAL_LINE)),
      'the DM copy with the total',
    );
    const review = await reviewFor(app, second, APPROVER_A);
    expect(JSON.stringify(review.view?.blocks)).toContain(TOTAL_LINE);

    await approve(app, second, APPROVER_A);
    await app.engine.idle();
    expect(await app.engine.get(second)).toMatchObject({
      state: 'pending',
      approvals: [{ user: APPROVER_A }],
    });
    await approve(app, second, APPROVER_B);
    await app.engine.idle();
    expect((await app.engine.get(second))?.state).toBe('sent');
  });
});

describe('the thread reply at filing', () => {
  test('gives the purpose, escaped, and the tier line with the checks', async ({ startApp }) => {
    const app = await startApp({ tiers: '0:1,1000000:2' });
    await fileWithdrawal(app, '600000');
    const second = await fileWithdrawal(app, '600000', ELSEWHERE, 'Rent <b> & *bold*');
    await waitUntil(async () => Boolean((await app.engine.get(second))?.announcement), 'the message');
    const where = (await app.engine.get(second))?.announcement;
    const reply = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.thread_ts === where?.ts && String(c.body.text).startsWith('*Checks at filing*'),
    );
    const text = String(reply.body.text);
    expect(text).toContain('*Purpose*\nRent &lt;b&gt; &amp; ＊bold＊');
    expect(text).toContain(TOTAL_LINE);
  });
});

describe('the daily limit', () => {
  test('refuses a filing under its amount, with the figures, and files nothing', async ({ startApp }) => {
    const app = await startApp({ tiers: '0:1', dailyLimit: '1000000.00' });
    await fileWithdrawal(app, '600000');
    const posted = app.slack.callsTo('chat.postMessage').length;
    const form = await submitWithdrawal(app, '500000');
    expect(form.callback_id).toBe('withdraw.submit');
    const shown = JSON.stringify(form.blocks);
    const under = shown.indexOf('withdraw.amount');
    const said =
      'Daily limit: ₦600,000.00 already sent, on the way, waiting or unresolved in the last 24 h; the daily limit is ₦1,000,000.00; this ₦500,000.00 would pass it.';
    expect(shown).toContain(said);
    expect(shown.indexOf(said)).toBeGreaterThan(under);
    expect(shown.indexOf(said)).toBeLessThan(shown.indexOf('withdraw.network'));
    expect(await app.engine.openRequests()).toHaveLength(1);
    const newPosts = app.slack.callsTo('chat.postMessage').slice(posted);
    expect(newPosts.filter((c) => c.body.channel === APPROVALS_CHANNEL)).toEqual([]);
  });

  test('refuses a redemption under its amount too, keeping the bank and account', async ({ startApp }) => {
    const app = await startApp({ tiers: '0:1', dailyLimit: '4999.99' });
    const viewId = 'VREDEEMLIMIT';
    await viewSubmission(app.sender, {
      callbackId: 'redeem.submit',
      viewId,
      userId: REQUESTER,
      values: redeemValues({ amount: '5000', purpose: 'Supplier payout INV-2231' }),
    });
    const form = await app.slack.waitFor(
      'views.update',
      (c) => c.body.view_id === viewId && JSON.stringify(c.body.view).includes('Daily limit'),
    );
    const shown = JSON.stringify(form.body.view);
    expect(shown).toContain('"callback_id":"redeem.submit"');
    expect(shown).toContain('this ₦5,000.00 would pass it');
    expect(shown).toContain('0123456789');
    expect(await app.engine.openRequests()).toHaveLength(0);
  });

  test('refuses a final approval past it privately, with the figures; the request stays pending', async ({
    startApp,
    sandbox,
    defer,
  }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    // Filed while no limit was set; the bot then restarts with one.
    const before = await startApp({ tiers: '0:1', store, sandbox });
    const big = await fileWithdrawal(before, '700000');
    const small = await fileWithdrawal(before, '400000');
    await before.stop();
    const app = await startApp({ tiers: '0:1', store, sandbox, dailyLimit: '1000000.00' });
    await approve(app, big, APPROVER_A);
    await app.engine.idle();
    expect((await app.engine.get(big))?.state).toBe('sent');

    const { submitted } = await approve(app, small, APPROVER_B);
    const told = await toldApprover(app, submitted);
    expect(told).toContain(
      '₦700,000.00 already approved or sent in the last 24 h; the daily limit is ₦1,000,000.00; this ₦400,000.00 would pass it',
    );
    expect(told).toContain('stays waiting for approval');
    expect(await app.engine.get(small)).toMatchObject({ state: 'pending', approvals: [] });
    await app.engine.idle();
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('shows in /cngn policy with the window and what is used now', async ({ startApp }) => {
    const app = await startApp({ tiers: '0:1', dailyLimit: '5000000.00', limitWindowMs: 12 * 3_600_000 });
    const sent = await fileWithdrawal(app, '1000000');
    await approve(app, sent, APPROVER_A);
    await app.engine.idle();
    await fileWithdrawal(app, '250000');
    const answer = JSON.stringify((await commandAnswer(app, 'policy', REQUESTER)).body.blocks);
    expect(answer).toContain("its requester's total and its destination's total in the last 12 h");
    expect(answer).toContain(
      '₦1,000,000.00 of ₦5,000,000.00 approved or sent in the last 12 h; ₦250,000.00 more waiting for approval',
    );
  });
});
