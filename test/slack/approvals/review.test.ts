// Approve opens a review modal with every figure in full, and only its submission approves, for the
// round and environment it showed: a submission for a request that changed or ended while the modal
// was open is refused in the modal, and nothing moves. Real Bolt over HTTP, the fake Slack, the sandbox.
import { describe, expect } from 'vitest';
import { rejectAsSeen } from '../../support/approve-as-seen.js';
import { botTest as test } from '../../support/bot.js';
import { fileDraft } from '../../support/filing.js';
import { refusedInModal, submitReview } from '../../support/review.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  DEST,
  fileWithdrawal,
  openReject,
  REQUESTER,
  reviewFor,
  submitReject,
  waitUntil,
} from './support.js';

const sends = (a: ApprovalApp, path: string) => a.sandbox.count('POST', path);

/** A redemption to account 0123456789 at GTBank, filed with `accountName` as its resolved name. */
async function fileRedemption(app: ApprovalApp, amount: string, accountName: string): Promise<string> {
  const filed = await fileDraft(app.engine, {
    kind: 'redeem',
    amount,
    payload: { amount, bankCode: '058', accountNumber: '0123456789' },
    display: { bankName: 'GTBank', accountName },
    purpose: 'Refund to customer',
    requester: REQUESTER,
  });
  return filed.id;
}

/** A's review submitted: its re-check of the account's name sends the request back (round 1). */
async function sentBackByA(app: ApprovalApp, id: string): Promise<void> {
  const a = await reviewFor(app, id, APPROVER_A);
  if (!a.view) throw new Error('the review did not open');
  await submitReview(app.sender, a.view, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.round === 1, 'sent back');
  await app.engine.idle();
}

describe('the review modal', () => {
  test('opens on Approve with every figure in full, and nothing moves until it is submitted', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1500');
    const updates = app.slack.callsTo('chat.update').length;
    const opened = await reviewFor(app, id, APPROVER_A);
    const view = opened.view;
    if (!view) throw new Error(`no review opened: ${String(opened.told?.body.text)}`);
    expect(view.callback_id).toBe('approval.review.submit');
    expect(view.submit?.text).toBe('Approve ₦1,500.00');
    expect(JSON.parse(view.private_metadata)).toEqual({
      id,
      round: 0,
      environment: 'sandbox',
      channel: APPROVALS_CHANNEL,
    });
    const shown = JSON.stringify(view.blocks);
    const request = await app.engine.get(id);
    for (const figure of [
      '₦1,500.00', // amount
      DEST, // the whole address, not shortened
      request?.display.networkName ?? 'network', // network
      'Fees', // fees or quote
      `<@${REQUESTER}>`, // requester
      'none yet (1 needed)', // approvals so far
      'WAT', // expiry, absolute
      'SANDBOX', // environment
    ]) {
      expect(shown).toContain(figure);
    }
    expect(shown).toMatch(/\(in (24 hours|1 day)\)/); // the expiry as a countdown too
    // Opening it changed nothing: no approval, no message update, no call to the service.
    await app.engine.idle();
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    expect(app.slack.callsTo('chat.update')).toHaveLength(updates);
    expect(sends(app, '/v1/api/withdraw')).toBe(0);

    const submitted = await submitReview(app.sender, view, APPROVER_A);
    expect(submitted.status).toBe(200);
    expect(submitted.body).toBe(''); // accepted: the modal closes
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    await app.engine.idle();
    expect((await app.engine.get(id))?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    expect(sends(app, '/v1/api/withdraw')).toBe(1);
  });

  test('shows a redemption’s whole bank account with the resolved name, and asks the service nothing to open', async ({
    app,
  }) => {
    const id = await fileRedemption(app, '250000', 'ADA OBI');
    const reads = app.sandbox.requests.length;
    const { view } = await reviewFor(app, id, APPROVER_B);
    const shown = JSON.stringify(view?.blocks);
    expect(shown).toContain('0123456789');
    expect(shown).toContain('ADA OBI');
    expect(shown).toContain('GTBank');
    expect(view?.submit?.text).toBe('Approve ₦250,000.00');
    // Nothing asked of the service to open it: only once open is its balance figure read, to show it fresh.
    const asked = app.sandbox.requests.slice(reads).map((r) => `${r.method} ${r.path}`);
    expect(asked.filter((r) => r !== 'GET /v1/api/balance')).toEqual([]);
  });

  test('refuses a submission for a round that changed while it was open, in the modal, and nothing moves', async ({
    app,
  }) => {
    app.sandbox.setAccountName('0123456789', 'ADA OBI');
    // The account changed hands since filing: the name resolved then is no longer the account's.
    const id = await fileRedemption(app, '5000', 'Old Owner');
    // Both approvers open the review of round 0; A's submission re-checks the name and sends it back.
    const b = await reviewFor(app, id, APPROVER_B);
    if (!b.view) throw new Error('the review did not open');
    await sentBackByA(app, id);

    const answer = await submitReview(app.sender, b.view, APPROVER_B);
    const refusal = refusedInModal(answer);
    expect(refusal).toContain('changed while this window was open');
    expect(refusal).toContain('Nothing moved');
    expect(refusal).toContain('ADA OBI'); // the new figures, shown with the refusal
    await app.engine.idle();
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', round: 1, approvals: [] });
    expect(sends(app, '/v1/api/redeemAsset')).toBe(0);
  });

  test('refuses a rejection of a round that changed while its modal was open, in the modal, and nothing changes', async ({
    app,
  }) => {
    app.sandbox.setAccountName('0123456789', 'ADA OBI');
    const id = await fileRedemption(app, '5000', 'Old Owner');
    // B opens the reject modal on round 0; A's review re-checks the name and sends it back (round 1).
    const rejecting = await openReject(app, id, APPROVER_B);
    await sentBackByA(app, id);

    const answer = (await submitReject(app, rejecting, APPROVER_B, 'Wrong account')).json() as {
      response_action?: string;
      view?: unknown;
    };
    expect(answer.response_action).toBe('update');
    expect(JSON.stringify(answer.view)).toContain(
      'changed while this window was open, so nothing was rejected',
    );
    await app.engine.idle();
    expect(await app.engine.get(id)).toMatchObject({ state: 'pending', round: 1 });
  });

  test('refuses a submission once the request expired while it was open, in the modal, and nothing moves', async ({
    startApp,
  }) => {
    let offset = 0;
    const app = await startApp({ now: () => new Date(Date.now() + offset) });
    const id = await fileWithdrawal(app, '700');
    const { view } = await reviewFor(app, id, APPROVER_A);
    if (!view) throw new Error('the review did not open');
    offset = 25 * 3_600_000;
    const refusal = refusedInModal(await submitReview(app.sender, view, APPROVER_A));
    expect(refusal).toContain('expired before it was approved; nothing was sent');
    await app.engine.idle();
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    expect(sends(app, '/v1/api/withdraw')).toBe(0);
  });

  test('refuses a submission once someone rejected the request while it was open', async ({ app }) => {
    const id = await fileWithdrawal(app, '800');
    const { view } = await reviewFor(app, id, APPROVER_A);
    if (!view) throw new Error('the review did not open');
    await rejectAsSeen(app.engine, id, APPROVER_B, 'wrong address');
    const refusal = refusedInModal(await submitReview(app.sender, view, APPROVER_A));
    expect(refusal).toContain('is no longer waiting for approval');
    expect((await app.engine.get(id))?.state).toBe('rejected');
    expect(sends(app, '/v1/api/withdraw')).toBe(0);
  });

  test('refuses a review opened for another environment than the one the bot now uses', async ({ app }) => {
    const id = await fileWithdrawal(app, '900');
    const { view } = await reviewFor(app, id, APPROVER_A);
    if (!view) throw new Error('the review did not open');
    const forLive = { ...view, private_metadata: JSON.stringify({ id, round: 0, environment: 'live' }) };
    const refusal = refusedInModal(await submitReview(app.sender, forLive, APPROVER_A));
    expect(refusal).toContain('opened for LIVE; the bot now uses SANDBOX credentials');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    expect(sends(app, '/v1/api/withdraw')).toBe(0);
  });

  test('refuses a review whose channel is no Slack id, or a channel its request is not in; nothing moves', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '975');
    const { view } = await reviewFor(app, id, APPROVER_A);
    if (!view) throw new Error('the review did not open');
    const ephemerals = app.slack.callsTo('chat.postEphemeral').length;
    for (const channel of ['#general', 'UAPPROVERA', 'c-lowercase-1', 'CELSEWHERE1', 'GPRIVATE01']) {
      const meta = { id, round: 0, environment: 'sandbox', channel };
      const tampered = { ...view, private_metadata: JSON.stringify(meta) };
      const refusal = refusedInModal(await submitReview(app.sender, tampered, APPROVER_A));
      expect(refusal, channel).toMatch(/could not be read|never posted in/);
    }
    await app.engine.idle();
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    expect(sends(app, '/v1/api/withdraw')).toBe(0);
    // Nothing was said anywhere on the strength of those channels.
    expect(app.slack.callsTo('chat.postEphemeral').slice(ephemerals)).toEqual([]);
    // The request's own channel, and a DM, are where Approve is clicked: those are taken.
    const dm = {
      ...view,
      private_metadata: JSON.stringify({ id, round: 0, environment: 'sandbox', channel: 'DAPPROVERA1' }),
    };
    expect((await submitReview(app.sender, dm, APPROVER_A)).body).toBe('');
    await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
    expect(JSON.parse(view.private_metadata).channel).toBe(APPROVALS_CHANNEL);
  });

  test('still refuses the requester’s own submission, should one arrive', async ({ app }) => {
    const id = await fileWithdrawal(app, '950');
    const { view } = await reviewFor(app, id, APPROVER_A);
    if (!view) throw new Error('the review did not open');
    const refusal = refusedInModal(await submitReview(app.sender, view, REQUESTER));
    expect(refusal).toContain('cannot approve');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });
});
