// Stopping a request a freeze of sends holds, through the real bot (signed HTTP, Bolt, the fake Slack,
// the real client against the sandbox): the held request's message carries Reject and Cancel, Reject
// opens the same reason modal a waiting request's does, and once rejected the lift of the freeze
// sends nothing. A reason submitted after the request went out is refused privately, changing nothing.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
import { commandAnswer } from '../../support/slack-requests.js';
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
  submitReject,
  waitUntil,
} from '../approvals/support.js';

const REASON = 'a look-alike address was approved; checking';
const FRAUD = 'confirmed fraud: the address is a look-alike';

/** The request's message in the approvals channel as it shows now. */
function shown(app: ApprovalApp, id: string): string {
  const message = app.slack.messages(APPROVALS_CHANNEL).find((m) => m.text.includes(id));
  return JSON.stringify(message?.blocks ?? '');
}

/** The action ids of the buttons the request's message shows now. */
function buttons(app: ApprovalApp, id: string): string[] {
  return [...shown(app, id).matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1] ?? '');
}

const withdrawCalls = (app: ApprovalApp) => app.sandbox.count('POST', '/v1/api/withdraw');

/** File a withdrawal, freeze the sends as APPROVER_B, approve it as APPROVER_A: approved and held. */
async function heldWithdrawal(app: ApprovalApp): Promise<string> {
  const id = await fileWithdrawal(app, '1500.50');
  await commandAnswer(app, `freeze ${REASON}`, APPROVER_B);
  await approve(app, id, APPROVER_A);
  await app.engine.idle();
  await waitUntil(() => shown(app, id).includes('Approved, held: sends are frozen'), 'held');
  return id;
}

/** Lift the freeze: APPROVER_B files the unfreeze, APPROVER_A approves it. */
async function unfreeze(app: ApprovalApp): Promise<void> {
  await commandAnswer(app, 'unfreeze', APPROVER_B);
  const request = (await app.engine.openRequests()).find((r) => r.kind === 'unfreeze');
  if (!request) throw new Error('no unfreeze request');
  await approve(app, request.id, APPROVER_A);
  await app.engine.idle();
  await waitUntil(async () => (await app.engine.currentFreeze()) === undefined, 'the freeze lifted');
  await app.engine.idle();
}

/** The private answer `user` was given in the approvals channel with `words` in it. */
const toldPrivately = (app: ApprovalApp, user: string, words: string) =>
  app.slack.waitFor(
    'chat.postEphemeral',
    (c) =>
      c.body.user === user && c.body.channel === APPROVALS_CHANNEL && String(c.body.text).includes(words),
  );

test('a held request shows Reject; rejected with a reason, the lift of the freeze sends nothing', async ({
  app,
}) => {
  const id = await heldWithdrawal(app);
  expect(buttons(app, id)).toEqual(['approval.reject', 'approval.cancel']);
  // The DM copy of an approver (here the one who approved it) carries Reject too.
  const dm = await app.slack.waitFor(
    'chat.update',
    (c) =>
      c.body.channel !== APPROVALS_CHANNEL && String(c.body.text).includes('You can still reject it here'),
  );
  expect([...JSON.stringify(dm.body.blocks).matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1])).toEqual([
    'approval.reject',
  ]);

  const view = await openReject(app, id, APPROVER_B);
  expect(view.callback_id).toBe('approval.reject.submit');
  expect((await submitReject(app, view, APPROVER_B, FRAUD)).status).toBe(200);
  expect(await app.engine.get(id)).toMatchObject({ state: 'rejected', reason: FRAUD });
  await waitUntil(() => shown(app, id).includes('Rejected'), 'the message shows the rejection');
  expect(shown(app, id)).toContain(`Reason: ${FRAUD}`);
  expect(buttons(app, id)).toEqual([]);
  const ts = (await app.engine.get(id))?.announcement?.ts;
  const reply = await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.thread_ts === ts && String(c.body.text).startsWith('Rejected'),
  );
  expect(reply.body.text).toBe(
    `Rejected by <@${APPROVER_B}> after approval, before sending: it will not be sent — ${FRAUD}`,
  );

  await unfreeze(app);
  await app.engine.tick();
  await app.engine.idle();
  expect((await app.engine.get(id))?.state).toBe('rejected');
  expect(withdrawCalls(app)).toBe(0);
});

test('the requester cancels a held request; their Reject is refused privately', async ({ app }) => {
  const id = await heldWithdrawal(app);
  await click(app, 'approval.reject', id, REQUESTER);
  await toldPrivately(app, REQUESTER, 'You filed');
  expect((await app.engine.get(id))?.state).toBe('approved');

  await click(app, 'approval.cancel', id, REQUESTER);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'cancelled', 'cancelled');
  await unfreeze(app);
  expect(withdrawCalls(app)).toBe(0);
});

test('a rejection submitted after the request was sent is refused as too late, and records nothing', async ({
  app,
}) => {
  const id = await heldWithdrawal(app);
  const view = await openReject(app, id, APPROVER_B);
  await unfreeze(app);
  expect((await app.engine.get(id))?.state).toBe('sent');
  expect(withdrawCalls(app)).toBe(1);

  await submitReject(app, view, APPROVER_B, FRAUD);
  const told = await toldPrivately(app, APPROVER_B, 'too late to reject');
  expect(String(told.body.text)).toContain('was already claimed for sending');
  const request = await app.engine.get(id);
  expect(request?.state).toBe('sent');
  expect(request?.history.map((h) => h.action)).not.toContain('rejected');
});
