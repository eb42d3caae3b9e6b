// When Slack refuses a request's message itself (invalid_blocks, msg_too_long), the message is shown
// once in its short form (title, amount, state, where to follow it, and the full message's buttons)
// instead of the same refused body being sent again at every retry; without the buttons only should
// Slack refuse those too.
import { expect } from 'vitest';
import { presenterTest as test } from '../../support/approvals-bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { APPROVALS_CHANNEL, APPROVER_A, APPROVER_B, approve, fileWithdrawal, waitUntil } from './support.js';

const SHORT_NOTE = 'Slack would not show this request’s full message';
const isShort = (c: SlackCall) => JSON.stringify(c.body.blocks ?? '').includes(SHORT_NOTE);
const buttonsOf = (c: SlackCall | undefined) =>
  [...JSON.stringify(c?.body.blocks ?? '').matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1]);
const announcements = (calls: SlackCall[]) =>
  calls.filter((c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts);

test('posts a request in short when Slack refuses its full message, and keeps it as the request’s message', async ({
  boot,
  slack,
}) => {
  const app = await boot();
  slack.on('chat.postMessage', (c) =>
    c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && !isShort(c)
      ? { body: { ok: false, error: 'invalid_blocks' } }
      : undefined,
  );
  const id = await fileWithdrawal(app, '250');
  await app.presenter.idle();
  const posts = announcements(slack.callsTo('chat.postMessage'));
  expect(posts.map(isShort)).toEqual([false, true]);
  const short = JSON.stringify(posts[1]?.body.blocks);
  expect(short).toContain(id);
  expect(short).toContain('₦250.00');
  expect(short).toContain('/cngn pending');
  expect((await app.engine.get(id))?.announcement?.ts).toBeTruthy();
  await app.stop();
});

test('updates a request’s message in short when Slack refuses the full one, and does not send the refused body again', async ({
  boot,
  sandbox,
  slack,
}) => {
  const app = await boot();
  const id = await fileWithdrawal(app, '250');
  slack.on('chat.update', (c) => (isShort(c) ? undefined : { body: { ok: false, error: 'msg_too_long' } }));
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.presenter.idle();
  const updates = () => slack.callsTo('chat.update');
  expect(updates().at(-1) && isShort(updates().at(-1) as SlackCall)).toBe(true);
  expect(JSON.stringify(updates().at(-1)?.body.blocks)).toContain('Sent');
  const before = updates().length;
  await app.presenter.retryUnshown();
  await app.presenter.idle();
  expect(updates()).toHaveLength(before);
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  await app.stop();
});

test('keeps the stop buttons of an approved request held by a freeze in its short message', async ({
  boot,
  slack,
}) => {
  const app = await boot();
  const id = await fileWithdrawal(app, '250');
  expect(await app.engine.freezeSends(APPROVER_B, 'checking a look-alike address')).toMatchObject({
    ok: true,
  });
  slack.on('chat.update', (c) => (isShort(c) ? undefined : { body: { ok: false, error: 'msg_too_long' } }));
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'approved', 'approved');
  const approvedInShort = () =>
    announcements(slack.callsTo('chat.update')).filter(
      (c) => isShort(c) && JSON.stringify(c.body.blocks).includes('Approved'),
    );
  await waitUntil(() => approvedInShort().length > 0, 'the short message, approved');
  await app.engine.idle();
  await app.presenter.idle();
  const last = announcements(slack.callsTo('chat.update')).at(-1);
  expect(last && isShort(last)).toBe(true);
  expect(last && approvedInShort().includes(last)).toBe(true);
  expect(buttonsOf(last)).toEqual(['approval.reject', 'approval.cancel']);
  // Its state as the full message words it: held, not only approved.
  expect(JSON.stringify(last?.body.blocks)).toContain('held: sends are frozen');
  expect((await app.engine.get(id))?.state).toBe('approved');
  await app.stop();
});

test('shows the short message without buttons only when Slack refuses them too', async ({ boot, slack }) => {
  const app = await boot();
  slack.on('chat.postMessage', (c) =>
    c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && buttonsOf(c).length > 0
      ? { body: { ok: false, error: 'invalid_blocks' } }
      : undefined,
  );
  const id = await fileWithdrawal(app, '250');
  await app.presenter.idle();
  const posts = announcements(slack.callsTo('chat.postMessage'));
  // Full, short with all its buttons, minimal with Reject and Cancel, then without buttons.
  expect(posts.map(isShort)).toEqual([false, true, true, true]);
  expect(posts.map((c) => buttonsOf(c).length > 0)).toEqual([true, true, true, false]);
  expect((await app.engine.get(id))?.announcement?.ts).toBeTruthy();
  await app.stop();
});
