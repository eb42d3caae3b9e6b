// The checks before money moves, through the bot (real Bolt over HTTP, the fake Slack, the sandbox):
// a withdrawal the balance less what is committed cannot cover is refused under the amount with the
// figures; the marks on the channel message, its thread and the review; a short balance in the review
// takes the Approve button away and the engine refuses a stale modal's approval; a look-alike address
// must be compared before filing and needs one more distinct approver; whitelist additions too.
import { describe, expect } from 'vitest';
import type { RequestDraft } from '../../../src/approvals/index.js';
import { toChecksumAddress } from '../../../src/format/evm-address.js';
import { approveAsSeen } from '../../support/approve-as-seen.js';
import { botTest as test } from '../../support/bot.js';
import { fileDraft } from '../../support/filing.js';
import { refusedInModal, submitReview } from '../../support/review.js';
import { redeemValues, selectValue, textValue, viewSubmission } from '../../support/slack-requests.js';
import {
  channelMessageOf,
  filedIdIn,
  namesARequest,
  nextViewUpdate,
  submitWithdrawForm,
} from '../../support/withdraw-form.js';
import {
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

async function firstNetwork(app: ApprovalApp): Promise<string> {
  const network = (await app.client.getNetworks()).find((n) => !n.isDisabled);
  if (!network) throw new Error('no network');
  return network.id;
}

/** The same address with its middle changed: same first six and last four characters. */
function poisoned(address: string): string {
  const body = address.slice(2).toLowerCase();
  const middle = [...body.slice(4, -4)].map((c) => (c === 'a' ? 'b' : 'a')).join('');
  return `0x${body.slice(0, 4)}${middle}${body.slice(-4)}`;
}

async function whitelisted(app: ApprovalApp): Promise<{ networkId: string; address: string }> {
  const [first] = await app.client.getWhitelisted();
  if (!first) throw new Error('the sandbox whitelists nothing');
  return { networkId: first.networkId, address: first.publicKey };
}

describe('the balance before filing', () => {
  test('refuses a withdrawal above the balance less what is committed, with the figures under the amount', async ({
    app,
  }) => {
    const networkId = await firstNetwork(app);
    // ₦300,000 approved and on its way: the service holds the call, so it is committed, not yet taken.
    const held = app.sandbox.hold('POST', '/v1/api/withdraw');
    const draft: RequestDraft = {
      kind: 'withdraw',
      amount: '300000',
      payload: { amount: '300000', address: DEST, networkId, shouldSaveAddress: false },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    };
    const first = await fileDraft(app.engine, draft);
    await approveAsSeen(app.engine, first.id, APPROVER_A);
    await held.arrived;
    try {
      const updates = app.slack.callsTo('views.update').length;
      const response = await submitWithdrawForm(app, { amount: '1000000', address: DEST, networkId });
      expect(response.json()).toMatchObject({ response_action: 'update' }); // "working", then the checks
      const form = await nextViewUpdate(app, updates, (v) => v.callback_id === 'withdraw.submit');
      const said = JSON.stringify(form.blocks);
      expect(said).toContain(
        'Amount: the balance, ₦1,250,000.00 (as of ', // the figure and when
      );
      expect(said).toContain('less ₦300,000.00 already committed, leaves ₦950,000.00');
      expect(said).toContain("less than this request's ₦1,000,000.00");
      // Nothing was filed: only the first request is open.
      expect((await app.engine.openRequests()).map((r) => r.id)).toEqual([first.id]);
    } finally {
      held.release();
      await app.engine.idle();
    }
  });

  test('answers at once, in the ack, when the balance was read moments ago', async ({ app }) => {
    const networkId = await firstNetwork(app);
    await app.client.getBalance();
    const response = await submitWithdrawForm(app, { amount: '1250000.01', address: DEST, networkId });
    expect(response.json()).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount': expect.stringContaining(
          "less ₦0.00 already committed, leaves ₦1,250,000.00 — less than this request's ₦1,250,000.01",
        ),
      },
    });
    expect(await app.engine.openRequests()).toEqual([]);
  });

  test('refuses a redemption above the balance too, under the amount, once the name is resolved', async ({
    app,
  }) => {
    const updates = app.slack.callsTo('views.update').length;
    await viewSubmission(app.sender, {
      callbackId: 'redeem.submit',
      userId: REQUESTER,
      values: redeemValues({ amount: '1300000', purpose: 'Supplier payout INV-2231' }),
    });
    const form = await nextViewUpdate(app, updates, (v) => v.callback_id === 'redeem.submit');
    expect(JSON.stringify(form.blocks)).toContain(
      "leaves ₦1,250,000.00 — less than this request's ₦1,300,000.00",
    );
    expect(await app.engine.openRequests()).toEqual([]);
  });
});

describe('the marks where the request is shown', () => {
  test('shows the checks and the first payment on the message, its thread, the DM copies and the review', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1500');
    const message = JSON.stringify(channelMessageOf(app, id)?.body.blocks);
    expect(message).toContain('*Checks* at filing');
    expect(message).toContain('Balance ₦1,250,000.00');
    expect(message).toContain('after this ₦1,248,500.00 ✓');
    expect(message).toContain('address checksum ✓');
    expect(message).toContain(toChecksumAddress(DEST));
    expect(message).toContain('not on the whitelist');
    expect(message).toContain('First payment to this destination');

    const thread = await app.slack.waitFor(
      'chat.postMessage',
      (c) => Boolean(c.body.thread_ts) && String(c.body.text).startsWith('*Checks at filing*'),
    );
    expect(String(thread.body.text)).toContain('First payment to this destination');
    const dm = await app.slack.waitFor('chat.postMessage', (c) => c.body.channel === APPROVER_A);
    expect(JSON.stringify(dm.body.blocks)).toContain('First payment to this destination');

    const review = (await reviewFor(app, id, APPROVER_A)).view;
    const shown = JSON.stringify(review?.blocks);
    expect(shown).toContain('First payment to this destination');
    expect(shown).toMatch(/Balance ₦1,250,000\.00 \(as of \d\d:\d\d WAT, \d+ seconds? ago\)/);
    expect(review?.submit?.text).toBe('Approve ₦1,500.00');
  });

  test('does not mark a destination paid before', async ({ app }) => {
    const first = await fileWithdrawal(app, '1500');
    await approve(app, first, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(first))?.state === 'sent', 'the first sent');
    const second = await fileWithdrawal(app, '1600');
    const message = JSON.stringify(channelMessageOf(app, second)?.body.blocks);
    expect(message).toContain('*Checks* at filing');
    expect(message).not.toContain('First payment');
  });
});

describe('the balance in the review', () => {
  test('reads a figure older than the cache again once the review is open, and updates that review only', async ({
    startApp,
  }) => {
    // The bot's clock a minute ahead: the figure read at filing is a minute old when the review opens.
    const app = await startApp({ now: () => new Date(Date.now() + 60_000) });
    const id = await fileWithdrawal(app, '1500');
    const updates = app.slack.callsTo('views.update').length;
    const opened = await reviewFor(app, id, APPROVER_A);
    expect(JSON.stringify(opened.view?.blocks)).toMatch(/Balance ₦1,250,000\.00 \(as of [^)]*minute/);
    const refreshed = await app.slack.waitFor(
      'views.update',
      (c) => app.slack.callsTo('views.update').indexOf(c) >= updates && c.body.view_id === opened.view?.id,
    );
    expect(refreshed.body.hash).toBeDefined(); // never over a view that moved on
    expect((refreshed.body.view as { submit?: { text: string } }).submit?.text).toBe('Approve ₦1,500.00');
  });
});

describe('a balance that no longer covers the request at review', () => {
  test('replaces Approve with the reason, and refuses the approval of a review opened before', async ({
    app,
  }) => {
    // Filed first: after the larger one, the requester's total in the window would give it two approvers.
    const other = await fileWithdrawal(app, '400000');
    const big = await fileWithdrawal(app, '1000000'); // two approvers at this tier
    const early = (await reviewFor(app, big, APPROVER_B)).view; // opened while the balance covered it
    expect(early?.submit?.text).toBe('Approve ₦1,000,000.00');
    await approve(app, other, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(other))?.state === 'sent', 'the other sent');

    const review = (await reviewFor(app, big, APPROVER_A)).view;
    expect(review?.submit).toBeUndefined();
    const shown = JSON.stringify(review?.blocks);
    expect(shown).toContain('Not enough balance to approve');
    expect(shown).toContain('less ₦400,000.00 already committed, leaves ₦850,000.00');

    if (!early) throw new Error('no early review');
    const told = app.slack.callsTo('chat.postEphemeral').length;
    const submitted = await submitReview(app.sender, early, APPROVER_B);
    // Refused in the modal, or (when the engine's answer comes after the ack) privately.
    const said =
      refusedInModal(submitted) ??
      String(
        (
          await app.slack.waitFor(
            'chat.postEphemeral',
            (c) => app.slack.callsTo('chat.postEphemeral').indexOf(c) >= told && c.body.user === APPROVER_B,
          )
        ).body.text,
      );
    expect(said).toContain('does not cover');
    await app.engine.idle();
    expect((await app.engine.get(big))?.approvals).toEqual([]);
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });
});

describe('look-alike destinations', () => {
  test('asks the requester to compare the whole address, then needs one more distinct approver', async ({
    app,
  }) => {
    const known = await whitelisted(app);
    const lookalike = poisoned(known.address);
    let updates = app.slack.callsTo('views.update').length;
    await submitWithdrawForm(app, { amount: '1500', address: lookalike, networkId: known.networkId });
    const form = await nextViewUpdate(app, updates, (v) => v.callback_id === 'withdraw.submit');
    const shown = JSON.stringify(form.blocks);
    expect(shown).toContain('Address: it looks like an address paid before but is not the same');
    expect(shown).toContain(toChecksumAddress(known.address).slice(-4)); // both addresses, in full
    expect(form.blocks.map((b) => b.block_id)).toContain('withdraw.compared');
    const metadata = JSON.parse(form.private_metadata) as { lookAlike?: string };
    expect(metadata.lookAlike).toBe(toChecksumAddress(lookalike));

    // A tick without the form that showed this address counts for nothing.
    updates = app.slack.callsTo('views.update').length;
    await submitWithdrawForm(app, {
      amount: '1500',
      address: lookalike,
      networkId: known.networkId,
      tick: 'compared',
    });
    await nextViewUpdate(app, updates, (v) => v.callback_id === 'withdraw.submit');
    expect(await app.engine.openRequests()).toEqual([]);

    updates = app.slack.callsTo('views.update').length;
    await submitWithdrawForm(app, {
      amount: '1500',
      address: lookalike,
      networkId: known.networkId,
      tick: 'compared',
      metadata: form.private_metadata,
    });
    const id = filedIdIn(await nextViewUpdate(app, updates, namesARequest));
    const request = await app.engine.get(id);
    expect(request?.requiredApprovals).toBe(2); // one approver at this tier, one more for the look-alike
    expect(request?.preflight?.lookAlike).toMatchObject({ compared: true, knownAs: 'paid' });
    await waitUntil(() => channelMessageOf(app, id) !== undefined, 'the message');
    const message = JSON.stringify(channelMessageOf(app, id)?.body.blocks);
    expect(message).toContain('Look-alike address');
    expect(message).toContain('The requester confirmed comparing the whole address');
    expect(JSON.stringify((await reviewFor(app, id, APPROVER_A)).view?.blocks)).toContain(
      'Look-alike address',
    );

    await approve(app, id, APPROVER_A);
    expect((await app.engine.get(id))?.state).toBe('pending');
    const again = await approve(app, id, APPROVER_A);
    expect(String(again.told?.body.text)).toContain('already approved');
    await approve(app, id, APPROVER_B);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    expect(app.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('checks a whitelist addition the same way', async ({ app }) => {
    const known = await whitelisted(app);
    const lookalike = poisoned(known.address);
    const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled).map((n) => n.id);
    const submit = (compared: boolean, metadata: string) =>
      viewSubmission(app.sender, {
        callbackId: 'whitelist.submit',
        userId: REQUESTER,
        privateMetadata: metadata,
        values: {
          'whitelist.network': { 'whitelist.network': selectValue(known.networkId) },
          'whitelist.address': { 'whitelist.address': textValue(lookalike) },
          ...(compared
            ? {
                'whitelist.compared': {
                  'whitelist.compared': { type: 'checkboxes', selected_options: [{ value: 'compared' }] },
                },
              }
            : {}),
        },
      });
    let updates = app.slack.callsTo('views.update').length;
    await submit(false, JSON.stringify({ networks }));
    const form = await nextViewUpdate(app, updates, (v) => v.callback_id === 'whitelist.submit');
    expect(form.blocks.map((b) => b.block_id)).toContain('whitelist.compared');
    expect(JSON.stringify(form.blocks)).toContain('Look-alike address');

    updates = app.slack.callsTo('views.update').length;
    await submit(true, form.private_metadata);
    const id = filedIdIn(await nextViewUpdate(app, updates, namesARequest));
    const request = await app.engine.get(id);
    expect(request?.kind).toBe('whitelist');
    expect(request?.requiredApprovals).toBe(2);
    expect(request?.preflight).toMatchObject({ firstPayment: true, whitelisted: false });
  });
});
