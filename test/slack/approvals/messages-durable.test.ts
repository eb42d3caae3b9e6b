// Approval messages stay true to the request through Slack errors and restarts: the client retries
// and waits out rate limits; what still failed is shown at the next start, and nothing is said twice.
import { expect } from 'vitest';
import { presenterTest } from '../../support/approvals-bot.js';
import type { FakeSlack, SlackCall } from '../../support/fake-slack.js';
import { fileDraft } from '../../support/filing.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  approve,
  click,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from './support.js';

/** `boot()` records its policy at start, as a real start does. */
const test = presenterTest.extend('bootOptions', { recordPolicy: true });

const blocksOf = (c: SlackCall) => JSON.stringify(c.body.blocks);
const dms = (slack: FakeSlack) =>
  slack.callsTo('chat.postMessage').filter((c) => c.body.channel === REQUESTER);
const threadReplies = (slack: FakeSlack) => slack.callsTo('chat.postMessage').filter((c) => c.body.thread_ts);
const updatesOf = async (app: ApprovalApp, id: string) => {
  const ts = (await app.engine.get(id))?.announcement?.ts;
  return app.slack.callsTo('chat.update').filter((c) => c.body.ts === ts);
};

test('retries a failed update and waits out a 429 before showing the step, and says each step once', async ({
  boot,
  sandbox,
  slack,
}) => {
  const app = await boot();
  const id = await fileWithdrawal(app, '250');
  let attempts = 0;
  slack.on('chat.update', () => {
    attempts += 1;
    if (attempts === 1) return { status: 500, body: { ok: false, error: 'internal_error' } };
    if (attempts === 2) return { status: 429, headers: { 'retry-after': '1' } };
    return undefined;
  });
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.presenter.idle();
  expect(attempts).toBeGreaterThanOrEqual(4); // refused twice, then approved, sending, sent
  expect(blocksOf((await updatesOf(app, id)).at(-1) as SlackCall)).toContain('Sent, waiting');
  const replies = threadReplies(slack).map((c) => String(c.body.text));
  expect(replies.filter((t) => t.startsWith('Approved by'))).toHaveLength(1);
  expect(replies.filter((t) => t.startsWith('Sent; the service gave reference'))).toHaveLength(1);
  expect(dms(slack).map((c) => String(c.body.text))).toEqual([
    expect.stringContaining('was approved'),
    expect.stringContaining('was sent'),
  ]);
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await app.stop();
});

test('after a restart, shows what Slack refused before it: stale messages re-rendered, missed notes sent once', async ({
  boot,
  sandbox,
  slack,
}) => {
  const first = await boot();
  const waiting = await fileWithdrawal(first, '100');
  const approved = await fileWithdrawal(first, '200');
  const cancelled = await fileWithdrawal(first, '300');
  // From here Slack refuses message updates and the requester's notes.
  const refuse = () => ({ body: { ok: false, error: 'internal_error' } });
  slack.on('chat.update', refuse);
  slack.on('chat.postMessage', (c) => (c.body.channel === REQUESTER ? refuse() : undefined));
  await approve(first, approved, APPROVER_A);
  await click(first, 'approval.cancel', cancelled, REQUESTER);
  await waitUntil(async () => (await first.engine.get(approved))?.state === 'sent', 'sent');
  await waitUntil(async () => (await first.engine.get(cancelled))?.state === 'cancelled', 'cancelled');
  await first.engine.idle();
  await first.presenter.idle();
  const threadBefore = threadReplies(slack).length;
  await first.stop();
  slack.reset(); // Slack answers again; count only what the next start does

  const second = await boot();
  await second.presenter.idle();
  // The approved request's message no longer offers Approve; the cancelled one says so.
  const approvedNow = (await updatesOf(second, approved)).at(-1);
  expect(approvedNow && blocksOf(approvedNow)).toContain('Sent, waiting');
  expect(approvedNow && blocksOf(approvedNow)).not.toContain('approval.approve');
  const cancelledNow = (await updatesOf(second, cancelled)).at(-1);
  expect(cancelledNow && blocksOf(cancelledNow)).toContain('Cancelled');
  expect(cancelledNow && blocksOf(cancelledNow)).not.toContain('approval.approve');
  // Every open request is rendered again, with buttons for its current round.
  const waitingNow = (await updatesOf(second, waiting)).at(-1);
  expect(waitingNow && blocksOf(waitingNow)).toContain(`"value":"${waiting}:0"`);
  // The notes the requester missed, once; the thread replies that did go out, not again.
  expect(dms(slack).map((c) => String(c.body.text))).toEqual([
    expect.stringContaining(`${approved} · Withdrawal · ₦200.00 was approved`),
    expect.stringContaining(`${approved} · Withdrawal · ₦200.00 was sent`),
  ]);
  expect(threadBefore).toBeGreaterThan(0);
  expect(threadReplies(slack)).toHaveLength(0);
  await second.stop();
  slack.reset();

  // A further restart repeats nothing and leaves the settled cancellation alone.
  const third = await boot();
  await third.presenter.idle();
  expect(dms(slack)).toHaveLength(0);
  expect(threadReplies(slack)).toHaveLength(0);
  expect(await updatesOf(third, cancelled)).toHaveLength(0);
  expect((await updatesOf(third, waiting)).length).toBe(1);
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await third.stop();
});

test('posts at start-up the message of a pending request that approvers never saw', async ({
  boot,
  slack,
}) => {
  const first = await boot();
  slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'internal_error' } }));
  const request = await fileDraft(first.engine, {
    kind: 'whitelist',
    payload: { networkId: 'net-base', address: '0x52908400098527886E0F7030069857D2E4169EE7' },
    display: { networkName: 'Base' },
    requester: REQUESTER,
  });
  await first.presenter.idle();
  expect((await first.engine.get(request.id))?.announcement).toBeUndefined();
  await first.stop();
  slack.reset();

  const second = await boot();
  await second.presenter.idle();
  // The request's message (the settings' post, which Slack also refused at the first start, follows too).
  const posted = slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === APPROVALS_CHANNEL && blocksOf(c).includes(request.id));
  expect(posted).toHaveLength(1);
  expect(blocksOf(posted[0] as SlackCall)).toContain(`"value":"${request.id}:0"`);
  expect((await second.engine.get(request.id))?.announcement).toBeDefined();
  await second.stop();
});

test('catches up without a restart once Slack is back: the periodic retry shows what an outage left stale', async ({
  boot,
  sandbox,
  slack,
}) => {
  const app = await boot();
  const id = await fileWithdrawal(app, '400');
  // Slack refuses every message update for longer than the presenter's client retries.
  slack.on('chat.update', () => ({ body: { ok: false, error: 'internal_error' } }));
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.presenter.idle();
  const refused = (await updatesOf(app, id)).length;
  expect(refused).toBeGreaterThan(0);
  slack.reset(); // Slack answers again
  await app.presenter.retryUnshown(); // what the 30 s timer runs
  await app.presenter.idle();
  const now = (await updatesOf(app, id)).at(-1);
  expect(now && blocksOf(now)).toContain('Sent, waiting');
  expect(now && blocksOf(now)).not.toContain('approval.approve');
  // Already current: another round costs no Slack call.
  slack.reset();
  await app.presenter.retryUnshown();
  await app.presenter.idle();
  expect(await updatesOf(app, id)).toHaveLength(0);
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await app.stop();
});
