// An approval click is read with zod before anything else, and Slack's ack means it is recorded: a
// payload of the wrong type is acknowledged and answered privately, and an approval (the review
// modal's submission) is persisted before it is acknowledged, so a crash right after the ack cannot
// lose it. A final approval that waits for the figures to be re-read says so at the ack. One whose
// write deadline passes while it waits for the request's lock waits no longer, and is told where the
// request stands; so is a Reject or Cancel, and one whose deadline passed before it could read the
// request is told it is too late to stop one being sent, not to try again; a Cancel by someone other
// than the requester is told only the requester can, with nothing written.
import { describe, expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { MAYBE_NOT_RECORDED, RECHECKING } from '../../../src/slack/approvals/actions/click.js';
import { createStore } from '../../../src/store/index.js';
import { approveAsSeen } from '../../support/approve-as-seen.js';
import { botTest as test } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { redemptionDraft } from '../../support/drafts.js';
import { fileDraft } from '../../support/filing.js';
import { type ReviewView, submitReview } from '../../support/review.js';
import { interaction, newTriggerId } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  click,
  fileWithdrawal,
  openReject,
  REQUESTER,
  reviewFor,
  submitReject,
} from './support.js';

/** A block_actions payload as Slack shapes it, with the action's value as given (any JSON type). */
function clickWithValue(
  app: ApprovalApp,
  actionId: string,
  value: unknown,
  user: unknown = { id: APPROVER_A },
) {
  return interaction(app.sender, clickBody(actionId, value, user));
}

function clickBody(actionId: string, value: unknown, user: unknown) {
  return {
    type: 'block_actions',
    team: { id: 'T1', domain: 'treasury' },
    user,
    api_app_id: 'A1',
    trigger_id: newTriggerId(),
    channel: { id: APPROVALS_CHANNEL, name: 'approvals' },
    container: { type: 'message', message_ts: '1.0', channel_id: APPROVALS_CHANNEL, is_ephemeral: false },
    message: { ts: '1.0', type: 'message' },
    actions: [
      { action_id: actionId, block_id: 'block', type: 'button', value, action_ts: String(Date.now() / 1000) },
    ],
  };
}

describe('a button whose payload is not what Slack normally sends', () => {
  test.for([
    ['a number', 1500],
    ['an array', ['AR-1']],
    ['an object', { id: 'AR-1' }],
    ['null', null],
  ])('answers an Approve whose value is %s privately, and changes nothing', async ([, value], { app }) => {
    const id = await fileWithdrawal(app, '900');
    expect((await clickWithValue(app, 'approval.approve', value)).status).toBe(200);
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    expect(String(told.body.text)).toMatch(
      /^This button could not be read \(actions\.0\.value: .+\), so nothing changed\.$/,
    );
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test.for(['approval.reject', 'approval.cancel'])(
    'answers %s with a value of the wrong type too',
    async (action, { app }) => {
      expect((await clickWithValue(app, action, 42)).status).toBe(200);
      const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
      expect(String(told.body.text)).toContain('This button could not be read (actions.0.value:');
      expect(app.slack.callsTo('views.open')).toHaveLength(0);
    },
  );

  test('refuses a click whose user cannot be read before Bolt sees it, with a log line, and tells nobody', async ({
    startApp,
  }) => {
    const { logger, entries } = capturedLog('warn');
    const logged = await startApp({ logger });
    const id = await fileWithdrawal(logged, '910');
    const response = await interaction(logged.sender, clickBody('approval.approve', id, { id: 7 }));
    expect(response.status).toBe(400);
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'refused a request to /slack/events',
        reason: expect.stringMatching(/^block_actions: user\.id: /),
      }),
    );
    expect((await logged.engine.get(id))?.approvals).toEqual([]);
    expect(logged.slack.callsTo('chat.postEphemeral')).toHaveLength(0);
  });
});

describe('an Approve click', () => {
  test('is persisted before Slack gets the review submission’s ack, even when the store is slow to write', async ({
    controlledApp: { app, store },
    controls,
  }) => {
    const id = await fileWithdrawal(app, '920');
    const opened = await reviewFor(app, id, APPROVER_A);
    const fast = controls.slowWrites(`approval:${id}`, 500);
    const response = await submitReview(app.sender, opened.view as ReviewView, APPROVER_A);
    // Read the moment the ack arrives: a crash from here on can no longer lose the approval.
    const atAck = await store.get<{ approvals: Array<{ user: string }> }>(`approval:${id}`);
    fast();
    expect(response.status).toBe(200);
    expect(atAck?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    await app.engine.idle();
  });

  test('that waited out its write deadline for the request’s lock is told it is already approved, lock still held', async ({
    controlledApp: { app, store },
    controls,
  }) => {
    const id = await fileWithdrawal(app, '925');
    const opened = await reviewFor(app, id, APPROVER_A);
    expect((await partsOf(app.engine).core.approve(id, APPROVER_B)).ok).toBe(true);
    await app.engine.idle();
    // Someone holds the request's lock; the review's reads of the request wait, so it reaches the engine.
    let letGo!: () => void;
    const holding = store.withLock(`approval:${id}`, () => new Promise<void>((done) => (letGo = done)));
    const reads = controls.hangReads(`approval:${id}`);
    const response = await submitReview(app.sender, opened.view as ReviewView, APPROVER_A);
    expect(JSON.stringify(response.json())).toContain(MAYBE_NOT_RECORDED);
    reads();
    // Past its deadline it waits no longer for the lock: it reads where the request stands and says so.
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    letGo();
    await holding;
    expect(told.body.text).toContain('already approved and is being handled');
    expect((await app.engine.get(id))?.approvals.map((a) => a.user)).toEqual([APPROVER_B]);
  });

  test('still refuses self-approval privately, opening no review and recording nothing', async ({ app }) => {
    const id = await fileWithdrawal(app, '930');
    const answered = await approve(app, id, REQUESTER);
    expect(answered.clicked.status).toBe(200);
    expect(answered.view).toBeUndefined();
    expect(String(answered.told?.body.text)).toContain('cannot approve');
    expect(app.slack.callsTo('views.open').filter((c) => JSON.stringify(c.body).includes(id))).toEqual([]);
    expect((await app.engine.get(id))?.state).toBe('pending');
  });
});

/**
 * A withdrawal filed, a Reject's modal opened by approver B (for a Reject), then the request approved
 * by A and sent: `stop()` then submits the Reject or clicks the requester's Cancel.
 */
async function sentWithAStop(app: ApprovalApp, action: 'Reject' | 'Cancel', amount: string) {
  const id = await fileWithdrawal(app, amount);
  const opened = action === 'Reject' ? await openReject(app, id, APPROVER_B) : undefined;
  expect((await approveAsSeen(app.engine, id, APPROVER_A)).ok).toBe(true);
  await app.engine.idle();
  const sent = await app.engine.get(id);
  expect(sent?.state).toBe('sent');
  const who = opened ? APPROVER_B : REQUESTER;
  const stop = () =>
    opened ? submitReject(app, opened, who, 'wrong address') : click(app, 'approval.cancel', id, who);
  return { id, sent, who, stop };
}

const TOO_LATE = 'too late to reject or cancel it';

/** Click `stop` while the request's reads hang past the ack, then let them go: what `who` is told privately. */
async function toldTooLate(
  app: ApprovalApp,
  reads: () => void,
  stop: () => Promise<{ status: number }>,
  who: string,
) {
  expect((await stop()).status).toBe(200);
  reads();
  return app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === who && String(c.body.text).includes(TOO_LATE),
  );
}

describe('a Reject or Cancel click on a request being sent', () => {
  test.for(['Reject', 'Cancel'] as const)(
    '%s whose deadline passed before it could read the request is told it is too late, not to try again',
    async (action, { controlledApp: { app }, controls }) => {
      const { id, sent, who, stop } = await sentWithAStop(app, action, '940');
      // The click's read of the request, under its lock, waits past its write deadline and the ack.
      const told = await toldTooLate(app, controls.hangReads(`approval:${id}`), stop, who);
      expect(told.body.text).not.toContain('try again');
      expect(await app.engine.get(id)).toEqual(sent);
    },
  );

  test.for(['Reject', 'Cancel'] as const)(
    '%s that waited out its write deadline for the request’s lock is told it is too late, lock still held',
    async (action, { controlledApp: { app, store }, controls }) => {
      const { id, sent, who, stop } = await sentWithAStop(app, action, '950');
      let letGo!: () => void;
      const holding = store.withLock(`approval:${id}`, () => new Promise<void>((done) => (letGo = done)));
      // Its read of the request once its wait ended waits past the ack, whatever the machine's pace.
      // Past its deadline it waits no longer for the lock: it reads where the request stands and says so.
      const told = await toldTooLate(app, controls.hangReads(`approval:${id}`), stop, who);
      letGo();
      await holding;
      expect(told.body.text).toContain('claimed for sending');
      // The lock let go, nothing of the click is written.
      await store.withLock(`approval:${id}`, async () => {});
      expect(await app.engine.get(id)).toEqual(sent);
    },
  );
});

describe('a Cancel click by someone other than the requester', () => {
  test('that waited out its write deadline for the request’s lock is told only the requester can, not to try again', async ({
    startApp,
    controls,
    defer,
  }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    const app = await startApp({ store: controls.wrap(store) });
    const id = await fileWithdrawal(app, '960');
    const waiting = await app.engine.get(id);
    let letGo!: () => void;
    const holding = store.withLock(`approval:${id}`, () => new Promise<void>((done) => (letGo = done)));
    const reads = controls.hangReads(`approval:${id}`);
    expect((await click(app, 'approval.cancel', id, APPROVER_B)).status).toBe(200);
    reads();
    const told = await app.slack.waitFor(
      'chat.postEphemeral',
      (c) => c.body.user === APPROVER_B && String(c.body.text).includes('Only the requester'),
    );
    expect(told.body.text).toContain('Only the requester can cancel');
    // Said, not written: the lock is still held, and the click wrote nothing before it.
    expect(await app.engine.get(id)).toEqual(waiting);
    letGo();
    await holding;
  });
});

describe('the final Approve of a redemption', () => {
  test('tells the approver privately at the ack that the figures are being checked again', async ({
    app,
  }) => {
    app.sandbox.setAccountName('0123456789', 'ADA OBI');
    const filed = await fileDraft(app.engine, redemptionDraft(REQUESTER));
    const opened = await reviewFor(app, filed.id, APPROVER_A);
    // Opening the review asked the service nothing: the figures are re-read only on submission.
    expect(app.sandbox.count('POST', '/v1/api/account/verify')).toBe(0);
    const check = app.sandbox.hold('POST', '/v1/api/account/verify');
    const submitted = submitReview(app.sender, opened.view as ReviewView, APPROVER_A);
    await check.arrived;
    expect((await submitted).body).toBe(''); // accepted: the modal closes
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
    expect(told.body.text).toBe(RECHECKING);
    // Only the hold is saved until the service answers.
    expect((await app.engine.get(filed.id))?.approvals).toEqual([]);
    check.release();
  });
});
