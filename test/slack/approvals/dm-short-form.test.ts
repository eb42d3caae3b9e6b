// An approver's DM copy that Slack refuses for its body (msg_too_long, invalid_blocks) is sent in short,
// with its buttons, as the channel's message is, rather than lost or sent again as it was at every run.
import { expect } from 'vitest';
import { botTest as test } from '../../support/bot.js';
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

const SHORT_DM = 'Slack would not show this request’s full message here';
const isShortDm = (c: SlackCall) => JSON.stringify(c.body.blocks ?? '').includes(SHORT_DM);
const isDm = (c: SlackCall) => c.body.channel !== APPROVALS_CHANNEL && !c.body.thread_ts && !!c.body.blocks;
const dmsTo = (a: ApprovalApp, user: string) =>
  a.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === user && c.body.blocks);
const buttonsOf = (c: SlackCall | undefined) =>
  [...JSON.stringify(c?.body.blocks ?? '').matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1]);
const refuseFullDms = (c: SlackCall) =>
  isDm(c) && !isShortDm(c) ? { body: { ok: false, error: 'msg_too_long' } } : undefined;

test('sends an approver’s DM copy in short, with Approve and Reject, when Slack refuses the full one', async ({
  app,
}) => {
  app.slack.on('chat.postMessage', refuseFullDms);
  const id = await fileWithdrawal(app, '1500');
  await waitUntil(() => dmsTo(app, APPROVER_B).some(isShortDm), 'the short DM to the second approver');
  await app.approvals?.dms?.idle();
  for (const approver of [APPROVER_A, APPROVER_B]) {
    const sent = dmsTo(app, approver);
    expect(sent.map(isShortDm), approver).toEqual([false, true]);
    const short = sent[1];
    expect(JSON.stringify(short?.body.blocks)).toContain(id);
    expect(JSON.stringify(short?.body.blocks)).toContain('₦1,500.00');
    expect(buttonsOf(short)).toEqual(['approval.approve', 'approval.reject']);
  }
});

test('updates an approver’s DM copy in short when Slack refuses the full update', async ({ app }) => {
  app.slack.on('chat.update', refuseFullDms);
  const id = await fileWithdrawal(app, '1500');
  await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DM to the second approver');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.approvals?.dms?.idle();
  const updates = app.slack.callsTo('chat.update').filter(isDm);
  const copies = new Set(updates.map((c) => c.body.channel));
  expect(copies.size).toBe(2);
  for (const channel of copies) {
    const last = updates.filter((c) => c.body.channel === channel).at(-1);
    expect(last && isShortDm(last)).toBe(true);
    expect(JSON.stringify(last?.body.blocks)).toContain('Sent');
  }
});
