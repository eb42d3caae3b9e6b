// A review approves only what it showed: the request, round and figures recorded under its view id
// when it opened, whatever its private_metadata says on the way back (Slack's signature is all that
// vouches for that, and whoever holds the signing secret can write anything). Also for Reject and
// Review all. Real Bolt over HTTP with signed requests, the fake Slack, the sandbox.
import { describe, expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { openedViewId } from '../../support/fake-slack.js';
import { type ReviewView, refusedInModal, submitReview } from '../../support/review.js';
import { blockAction, viewSubmission } from '../../support/slack-requests.js';
import type { StoreControls } from '../../support/store-controls.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  fileWithdrawal,
  openReject,
  reviewFor,
  submitReject,
  waitUntil,
} from './support.js';

const WITHDRAW = '/v1/api/withdraw';

async function opened(a: ApprovalApp, id: string, user: string): Promise<ReviewView> {
  const review = await reviewFor(a, id, user);
  if (!review.view) throw new Error(`no review opened: ${String(review.told?.body.text)}`);
  return review.view;
}

const withMetadata = (view: ReviewView, change: Record<string, unknown>): ReviewView => ({
  ...view,
  private_metadata: JSON.stringify({ ...JSON.parse(view.private_metadata), ...change }),
});

/** Click Review all in the approvals channel as APPROVER_A: the id of the list that opened. */
async function openList(a: ApprovalApp): Promise<string> {
  const before = a.slack.callsTo('views.open').length;
  await blockAction(a.sender, {
    actionId: 'approval.review_all',
    value: 'review',
    userId: APPROVER_A,
    channelId: APPROVALS_CHANNEL,
  });
  const call = await a.slack.waitFor('views.open', (c) => a.slack.callsTo('views.open').indexOf(c) >= before);
  return openedViewId(call);
}

/** Submit the list `viewId` as APPROVER_A with `values` (`id:round`) ticked. */
function submitList(a: ApprovalApp, viewId: string, values: string[]) {
  return viewSubmission(a.sender, {
    callbackId: 'approval.review_all.submit',
    userId: APPROVER_A,
    viewId,
    privateMetadata: JSON.stringify({ channel: APPROVALS_CHANNEL }),
    values: {
      'review_all.pick': {
        'review_all.pick': {
          type: 'checkboxes',
          selected_options: values.map((value) => ({ value, text: { type: 'plain_text', text: value } })),
        },
      },
    },
  });
}

describe('a review approves only what it showed', () => {
  test('refuses a review of ₦501 whose private_metadata names a ₦90,000 request; nothing is sent', async ({
    app: a,
  }) => {
    const small = await fileWithdrawal(a, '501');
    const large = await fileWithdrawal(a, '90000');
    const view = await opened(a, small, APPROVER_A);
    expect(view.submit?.text).toBe('Approve ₦501.00');

    const refusal = refusedInModal(
      await submitReview(a.sender, withMetadata(view, { id: large }), APPROVER_A),
    );
    expect(refusal).toContain('names another request, or another round, than the one it showed');
    expect(refusal).toContain('₦501.00'); // the figures of the request it did show, as they are now
    await a.engine.idle();
    for (const id of [small, large]) {
      expect(await a.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    }
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(0);
  });

  test('refuses a review whose private_metadata names another round of the request it showed', async ({
    app: a,
  }) => {
    const id = await fileWithdrawal(a, '502');
    const view = await opened(a, id, APPROVER_A);
    const filed = await a.engine.get(id);
    await a.store.set(`approval:${id}`, { ...filed, round: 1 }); // sent back meanwhile
    const refusal = refusedInModal(
      await submitReview(a.sender, withMetadata(view, { round: 1 }), APPROVER_A),
    );
    expect(refusal).toContain('than the one it showed');
    expect((await a.engine.get(id))?.approvals).toEqual([]);
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(0);
  });

  test('refuses, with the current figures, a review whose figures changed in the same round; nothing is sent', async ({
    app: a,
  }) => {
    const id = await fileWithdrawal(a, '503');
    const view = await opened(a, id, APPROVER_A);
    const filed = await a.engine.get(id);
    if (filed?.kind !== 'withdraw') throw new Error('not a withdrawal');
    // The stored request now says something else than the review showed, without a new round.
    await a.store.set(`approval:${id}`, {
      ...filed,
      amount: '90000.00',
      payload: { ...filed.payload, amount: '90000.00' },
    });
    const refusal = refusedInModal(await submitReview(a.sender, view, APPROVER_A));
    expect(refusal).toContain('changed while this window was open');
    expect(refusal).toContain('₦90,000.00');
    await a.engine.idle();
    expect((await a.engine.get(id))?.approvals).toEqual([]);
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(0);
  });

  test('still takes a review after another approver’s approval landed while it was open', async ({
    startApp,
  }) => {
    const a = await startApp({ tiers: '0:2' });
    const id = await fileWithdrawal(a, '504');
    const first = await opened(a, id, APPROVER_A);
    const second = await opened(a, id, APPROVER_B);
    expect((await submitReview(a.sender, first, APPROVER_A)).body).toBe('');
    await waitUntil(async () => (await a.engine.get(id))?.approvals.length === 1, 'the first approval');
    expect((await submitReview(a.sender, second, APPROVER_B)).body).toBe('');
    await waitUntil(async () => (await a.engine.get(id))?.state === 'sent', 'sent');
    await a.engine.idle();
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(1);
  });

  test('refuses a submission of a view the bot never opened, asking to open the review again', async ({
    app: a,
  }) => {
    const id = await fileWithdrawal(a, '505');
    const view = await opened(a, id, APPROVER_A);
    for (const forged of ['VNEVEROPENED', 'not a view id!']) {
      const refusal = refusedInModal(await submitReview(a.sender, { ...view, id: forged }, APPROVER_A));
      expect(refusal, forged).toContain('not ready yet, or no longer known');
      expect(refusal, forged).toContain('click Approve on the request message again');
    }
    await a.engine.idle();
    expect((await a.engine.get(id))?.approvals).toEqual([]);
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(0);
  });

  test('refuses a submission that arrives before the review’s record is written, and takes it once it is', async ({
    controlledApp: { app: a, store },
    controls,
  }) => {
    const id = await fileWithdrawal(a, '506');
    const release = controls.holdWrites('slack-view:');
    const view = await opened(a, id, APPROVER_A); // open in Slack; its record not yet written
    const refusal = refusedInModal(await submitReview(a.sender, view, APPROVER_A));
    expect(refusal).toContain('not ready yet, or no longer known');
    expect((await a.engine.get(id))?.approvals).toEqual([]);
    release();
    await waitUntil(async () => (await store.get(`slack-view:${view.id}`)) !== undefined, 'the record');
    expect((await submitReview(a.sender, view, APPROVER_A)).body).toBe('');
    await waitUntil(async () => (await a.engine.get(id))?.state === 'sent', 'sent');
  });

  test('replaces a review whose record could not be written with a notice, and never approves from it', async ({
    controlledApp: { app: a },
    controls,
  }) => {
    const id = await fileWithdrawal(a, '507');
    controls.failWrites('slack-view:');
    const view = await opened(a, id, APPROVER_A);
    const notice = await a.slack.waitFor('views.update', (c) => c.body.view_id === view.id);
    expect(JSON.stringify(notice.body.view)).toContain('could not be prepared');
    expect(refusedInModal(await submitReview(a.sender, view, APPROVER_A))).toContain('not ready yet');
    expect((await a.engine.get(id))?.approvals).toEqual([]);
  });

  test('tells the person when the review cannot be opened, and changes nothing', async ({ app: a }) => {
    const id = await fileWithdrawal(a, '508');
    a.slack.on('views.open', () => ({ body: { ok: false, error: 'expired_trigger_id' } }));
    const review = await reviewFor(a, id, APPROVER_A);
    expect(review.told?.body.text).toContain('could not be processed just now');
    await a.engine.idle();
    expect((await a.engine.get(id))?.approvals).toEqual([]);
  });
});

describe('a rejection rejects only what its modal showed', () => {
  test('refuses a reject modal whose private_metadata names another request; nothing is rejected', async ({
    app: a,
  }) => {
    const shown = await fileWithdrawal(a, '601');
    const other = await fileWithdrawal(a, '602');
    const view = await openReject(a, `${shown}:0`, APPROVER_A);
    const tampered = JSON.stringify({ id: other, channel: APPROVALS_CHANNEL });
    expect(
      JSON.stringify((await submitReject(a, view, APPROVER_A, 'wrong payee', tampered)).json()),
    ).toContain('names another request than the one it showed');
    const forged = await submitReject(a, { ...view, id: 'VNEVEROPENED' }, APPROVER_A, 'wrong payee');
    expect(JSON.stringify(forged.json())).toContain('not ready yet, or no longer known');
    await a.engine.idle();
    for (const id of [shown, other]) expect((await a.engine.get(id))?.state).toBe('pending');
    // The modal as it was opened rejects the request it showed.
    expect((await submitReject(a, view, APPROVER_A, 'wrong payee')).body).toBe('');
    await waitUntil(async () => (await a.engine.get(shown))?.state === 'rejected', 'rejected');
    expect((await a.engine.get(other))?.state).toBe('pending');
  });
});

describe('Review all approves only what its list showed', () => {
  test('approves none of the requests the list never showed, whatever the submission ticks', async ({
    startApp,
  }) => {
    const a = await startApp({ tiers: '0:1' });
    const first = await fileWithdrawal(a, '701');
    const second = await fileWithdrawal(a, '702');
    const viewId = await openList(a);
    const later = await fileWithdrawal(a, '90000'); // filed after the list opened: never shown
    const forged = await submitList(a, 'VNEVEROPENED', [`${first}:0`]);
    expect(JSON.stringify(forged.json())).toContain('not ready yet, or no longer known');

    await submitList(a, viewId, [`${later}:0`, `${second}:1`, `${first}:0`]);
    const results = await a.slack.waitFor(
      'chat.postEphemeral',
      (c) => c.body.user === APPROVER_A && String(c.body.text).startsWith('*Review all:'),
    );
    const text = String(results.body.text);
    expect(text).toContain('1 of 3 approved');
    expect(text).toContain(`${later} was not in the list you were shown`);
    expect(text).toContain(`${second} was not in the list you were shown`);
    await a.engine.idle();
    expect(await a.engine.get(later)).toMatchObject({ state: 'pending', approvals: [] });
    expect(await a.engine.get(second)).toMatchObject({ state: 'pending', approvals: [] });
    expect((await a.engine.get(first))?.approvals.map((x) => x.user)).toEqual([APPROVER_A]);
    expect(a.sandbox.count('POST', WITHDRAW)).toBe(1);
  });
});

describe('what a modal showed, read from a slow store', () => {
  // Longer than the wait for a record not written yet, shorter than the bound on a read under way.
  const LATE_MS = 900;

  test('takes a review whose record the store answers late', async ({
    controlledApp: { app: a },
    controls,
  }) => {
    const id = await fileWithdrawal(a, '801');
    const view = await opened(a, id, APPROVER_A);
    controls.slowReads('slack-view:', LATE_MS);
    expect((await submitReview(a.sender, view, APPROVER_A)).body).toBe('');
    await waitUntil(async () => (await a.engine.get(id))?.state === 'sent', 'sent');
    expect((await a.engine.get(id))?.approvals.map((x) => x.user)).toEqual([APPROVER_A]);
  });

  test('takes a rejection whose record the store answers late', async ({
    controlledApp: { app: a },
    controls,
  }) => {
    const id = await fileWithdrawal(a, '802');
    const view = await openReject(a, `${id}:0`, APPROVER_A);
    controls.slowReads('slack-view:', LATE_MS);
    expect((await submitReject(a, view, APPROVER_A, 'wrong payee')).body).toBe('');
    await waitUntil(async () => (await a.engine.get(id))?.state === 'rejected', 'rejected');
  });

  // A store that never answers was too slow; one whose read fails could not be reached.
  test.for([
    {
      store: 'never answers',
      make: (controls: StoreControls) => controls.hangReads('slack-view:'),
      says: 'the bot’s store was too slow to answer',
      not: 'could not reach its store',
    },
    {
      store: 'fails its read',
      make: (controls: StoreControls) => controls.failReads('slack-view:'),
      says: 'the bot could not reach its store',
      not: 'too slow',
    },
  ])(
    'a review and a rejection whose store $store say so; nothing is approved or rejected',
    async ({ make, says, not }, { controlledApp: { app: a }, controls, defer }) => {
      const id = await fileWithdrawal(a, '803');
      const review = await opened(a, id, APPROVER_A);
      const reject = await openReject(a, `${id}:0`, APPROVER_A);
      defer(make(controls));
      const refusal = refusedInModal(await submitReview(a.sender, review, APPROVER_A));
      expect(refusal).toContain(says);
      expect(refusal).not.toContain(not);
      const rejected = JSON.stringify((await submitReject(a, reject, APPROVER_A, 'wrong payee')).json());
      expect(rejected).toContain(says);
      expect(rejected).not.toContain(not);
      await a.engine.idle();
      expect(await a.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    },
  );

  test('says the store was too slow when the record of a Review all list never comes; nothing is approved', async ({
    controlledApp: { app: a },
    controls,
    defer,
  }) => {
    const first = await fileWithdrawal(a, '805');
    const second = await fileWithdrawal(a, '806');
    const viewId = await openList(a);
    defer(controls.hangReads('slack-view:'));
    const told = JSON.stringify((await submitList(a, viewId, [`${first}:0`, `${second}:0`])).json());
    expect(told).toContain('the bot’s store was too slow to answer');
    expect(told).not.toContain('could not reach its store');
    await a.engine.idle();
    for (const id of [first, second]) expect((await a.engine.get(id))?.approvals).toEqual([]);
  });
});
