// The same payment twice, through the bot (real Bolt over HTTP, the fake Slack, the sandbox): a second
// ₦2,222 to the same address with the same purpose, 35 s after the first, shows the form again asking
// "file it again?" and files nothing; ticked on that form, it is filed, and the channel message, the
// DM copies, the review and the thread say "Same amount and destination as AR-… (pending, filed 35
// seconds ago)"; its first-payment mark names the earlier request instead of claiming to be first.
import { describe, expect } from 'vitest';
import { fileRedeem } from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import { redeemValues, viewSubmission } from '../../support/slack-requests.js';
import {
  channelMessageOf,
  filedIdIn,
  namesARequest,
  nextViewUpdate,
  submitWithdrawForm,
} from '../../support/withdraw-form.js';
import { slackTexts } from '../builders/support.js';
import { APPROVER_A, type ApprovalApp, DEST, REQUESTER, reviewFor, waitUntil } from './support.js';

const START = Date.UTC(2026, 10, 27, 9);

/** Submit the withdraw form for ₦2,222 to DEST; `again` ticks the "file it again" box. */
const submitWithdraw = (app: ApprovalApp, input: { again?: boolean; metadata?: string } = {}) =>
  submitWithdrawForm(app, {
    amount: '2222',
    address: DEST,
    metadata: input.metadata,
    ...(input.again ? { tick: 'again' as const } : {}),
  });

/** The next views.update (after `from` of them): the form shown again, or the view naming the filed id. */
const nextUpdate = (app: ApprovalApp, from: number) =>
  nextViewUpdate(app, from, (view) => view.callback_id === 'withdraw.submit' || namesARequest(view));

describe('the same payment filed twice', () => {
  test('asks "file it again?" before filing, then links the two wherever approvers look', async ({
    startApp,
  }) => {
    let now = START;
    const app = await startApp({ now: () => new Date(now) });
    let updates = app.slack.callsTo('views.update').length;
    await submitWithdraw(app);
    const first = filedIdIn(await nextUpdate(app, updates));
    expect(first).toMatch(/^AR-/);
    now += 35_000;

    updates = app.slack.callsTo('views.update').length;
    await submitWithdraw(app);
    const form = await nextUpdate(app, updates);
    expect(form.callback_id).toBe('withdraw.submit');
    const asked = slackTexts(form).mrkdwn.join('\n');
    expect(asked).toContain(`Same amount and destination as ${first}* (pending, filed 35 seconds ago)`);
    expect(form.blocks.map((b) => b.block_id)).toContain('withdraw.again');
    expect(JSON.parse(form.private_metadata)).toMatchObject({ sameAs: first });
    expect(await app.engine.openRequests()).toHaveLength(1);

    // A tick without the form that asked about this request counts for nothing.
    updates = app.slack.callsTo('views.update').length;
    await submitWithdraw(app, { again: true });
    expect((await nextUpdate(app, updates)).callback_id).toBe('withdraw.submit');
    expect(await app.engine.openRequests()).toHaveLength(1);

    updates = app.slack.callsTo('views.update').length;
    await submitWithdraw(app, { again: true, metadata: form.private_metadata });
    const filedView = await nextUpdate(app, updates);
    const second = filedIdIn(filedView);
    expect(second).not.toBe(first);
    const line = `Same amount and destination as ${first}* (pending, filed 35 seconds ago)`;
    expect(slackTexts(filedView).mrkdwn.join('\n')).toContain(line);

    await waitUntil(() => channelMessageOf(app, second) !== undefined, 'the message');
    const message = slackTexts(channelMessageOf(app, second)?.body).mrkdwn.join('\n');
    expect(message).toContain(line);
    expect(message).toContain('The requester was shown it and filed this one too');
    // Not a second "first payment": the first one to this destination is named instead.
    expect(message).not.toContain('First payment to this destination');
    expect(message).toContain(`Not paid yet:* ${first} to this destination was filed first`);
    expect(slackTexts(channelMessageOf(app, first)?.body).mrkdwn.join('\n')).toContain(
      'First payment to this destination',
    );

    const dm = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body).includes(second),
    );
    expect(slackTexts(dm.body).mrkdwn.join('\n')).toContain(line);
    const review = (await reviewFor(app, second, APPROVER_A)).view;
    expect(slackTexts(review).mrkdwn.join('\n')).toContain(line);
    const thread = await app.slack.waitFor(
      'chat.postMessage',
      (c) => !!c.body.thread_ts && String(c.body.text).includes('Same amount and destination'),
    );
    expect(String(thread.body.text)).toContain(line);
  });

  test('asks about a redemption to the same account too, and files it once the box is ticked', async ({
    app,
  }) => {
    const first = (await fileRedeem(app, '5000')).request;
    const redeem = (again: boolean, metadata?: string) =>
      viewSubmission(app.sender, {
        callbackId: 'redeem.submit',
        userId: REQUESTER,
        ...(metadata ? { privateMetadata: metadata } : {}),
        values: {
          ...redeemValues({ amount: '5000' }),
          ...(again
            ? {
                'redeem.again': {
                  'redeem.again': { type: 'checkboxes', selected_options: [{ value: 'again' }] },
                },
              }
            : {}),
        },
      });
    let updates = app.slack.callsTo('views.update').length;
    await redeem(false);
    const form = await nextViewUpdate(app, updates, (view) => view.callback_id === 'redeem.submit');
    expect(slackTexts(form).mrkdwn.join('\n')).toContain(`Same amount and destination as ${first.id}*`);
    expect(form.blocks.map((b) => b.block_id)).toContain('redeem.again');
    expect(await app.engine.openRequests()).toHaveLength(1);

    updates = app.slack.callsTo('views.update').length;
    await redeem(true, form.private_metadata);
    const filed = await nextViewUpdate(app, updates, (view) =>
      JSON.stringify(view).includes('Waiting for approval'),
    );
    expect((await app.engine.get(filedIdIn(filed)))?.earlier?.same).toMatchObject({
      id: first.id,
      confirmed: true,
    });
  });
});
