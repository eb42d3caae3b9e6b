// When Slack refuses a request's message itself (invalid_blocks, msg_too_long), the message is shown
// once in its short form (title, amount, state, where the details are) instead of the same refused
// body being sent again at every retry.
import { expect } from 'vitest';
import type { ApprovalPresenter } from '../../../src/slack/approvals/presenter.js';
import { approvalsTest } from '../../support/approvals-bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  waitUntil,
} from './support.js';

const test = approvalsTest.extend(
  'boot',
  async ({ startApp, sandbox, slack, store }) =>
    async (): Promise<ApprovalApp & { presenter: ApprovalPresenter }> => {
      const app = await startApp({
        sandbox,
        slack,
        store,
        approvers: [APPROVER_A, APPROVER_B],
        tiers: '0:1',
      });
      const presenter = app.approvals?.presenter;
      if (!presenter) throw new Error('approvals are not wired');
      return { ...app, presenter };
    },
);

const SHORT_NOTE = 'App Home';
const isShort = (c: SlackCall) => JSON.stringify(c.body.blocks ?? '').includes(SHORT_NOTE);
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
