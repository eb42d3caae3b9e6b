// When Slack refuses a request's message and its short form with all its buttons, the message is shown
// in a minimal form that keeps the request's id and its Reject and Cancel; only if Slack refuses that
// too is it shown without buttons, and then the requester is told by DM how the request can still be
// stopped (no command cancels a request).
import { expect } from 'vitest';
import { presenterTest as test } from '../../support/approvals-bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { APPROVALS_CHANNEL, click, fileWithdrawal, REQUESTER, waitUntil } from './support.js';

const buttonsOf = (c: SlackCall | undefined) =>
  [...JSON.stringify(c?.body.blocks ?? '').matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1]);
const isAnnouncement = (c: SlackCall) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts;
const announcements = (calls: SlackCall[]) => calls.filter(isAnnouncement);
const HOW_TO_STOP = 'its Cancel button is not there';
const cancelNotices = (calls: SlackCall[]) =>
  calls.filter((c) => c.body.channel === REQUESTER && String(c.body.text).includes(HOW_TO_STOP));

test('shows a request with its id, Reject and Cancel when Slack refuses its full and short messages', async ({
  boot,
  slack,
}) => {
  const app = await boot();
  let refused = 0;
  slack.on('chat.postMessage', (c) =>
    isAnnouncement(c) && refused++ < 2 ? { body: { ok: false, error: 'msg_too_long' } } : undefined,
  );
  const id = await fileWithdrawal(app, '250');
  await app.presenter.idle();
  const posts = announcements(slack.callsTo('chat.postMessage'));
  expect(posts).toHaveLength(3);
  const minimal = posts[2];
  expect(JSON.stringify(minimal?.body.blocks)).toContain(id);
  expect(buttonsOf(minimal)).toEqual(['approval.reject', 'approval.cancel']);
  expect((await app.engine.get(id))?.announcement?.ts).toBeTruthy();
  // Its Cancel works: the requester can still stop the request from Slack.
  await click(app, 'approval.cancel', id, REQUESTER);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'cancelled', 'cancelled');
  expect(cancelNotices(slack.callsTo('chat.postMessage'))).toEqual([]);
  await app.stop();
});

test('tells the requester by DM, once, how to stop a request whose message Slack shows only without buttons', async ({
  boot,
  slack,
}) => {
  const app = await boot();
  slack.on('chat.postMessage', (c) =>
    isAnnouncement(c) && buttonsOf(c).length > 0
      ? { body: { ok: false, error: 'invalid_blocks' } }
      : undefined,
  );
  const id = await fileWithdrawal(app, '250');
  await app.presenter.idle();
  const posts = announcements(slack.callsTo('chat.postMessage'));
  expect(posts.map((c) => buttonsOf(c).length > 0)).toEqual([true, true, true, false]);
  expect((await app.engine.get(id))?.announcement?.ts).toBeTruthy();
  const notices = cancelNotices(slack.callsTo('chat.postMessage'));
  expect(notices).toHaveLength(1);
  expect(String(notices[0]?.body.text)).toContain(id);
  expect(String(notices[0]?.body.text)).toContain('ask an approver to reject it');
  await app.presenter.retryUnshown();
  await app.presenter.recover();
  await app.presenter.idle();
  expect(cancelNotices(slack.callsTo('chat.postMessage'))).toHaveLength(1);
  await app.stop();
});
