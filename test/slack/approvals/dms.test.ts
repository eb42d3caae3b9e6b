// Approvers are told by DM (CNGN_APPROVAL_NOTIFY): each eligible approver but the requester gets the
// figures with the channel's own Approve / Reject; the copies are updated in place when the request
// moves on; a click on a copy that is out of date changes nothing and is answered privately.
import { describe, expect } from 'vitest';
import { createStore } from '../../../src/store/index.js';
import { fileRedeem } from '../../support/approving.js';
import { botTest as test } from '../../support/bot.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { blockAction } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  REQUESTER,
  waitUntil,
} from './support.js';

const dmsTo = (a: ApprovalApp, user: string) =>
  a.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === user && c.body.blocks);
const buttons = (call: SlackCall): string[] =>
  JSON.stringify(call.body.blocks ?? []).match(/approval\.(approve|reject|cancel)/g) ?? [];
const settled = async (a: ApprovalApp) => {
  await a.engine.idle();
  await a.approvals?.dms?.idle();
  await a.approvals?.presenter?.idle();
};

describe('approvers told by DM', () => {
  test('sends each eligible approver, not the requester, the figures with Approve and Reject bound to the round', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1500');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DM to the second approver');
    await settled(app);
    for (const approver of [APPROVER_A, APPROVER_B]) {
      const [dm] = dmsTo(app, approver);
      expect(dm, approver).toBeDefined();
      const text = JSON.stringify(dm?.body.blocks);
      expect(text).toContain(id);
      expect(text).toContain('₦1,500.00');
      expect(text).toContain(`"value":"${id}:0"`);
      expect(buttons(dm as SlackCall)).toEqual(['approval.approve', 'approval.reject']);
    }
    // The requester is an approver too, but never asked to approve their own request.
    expect(
      dmsTo(app, REQUESTER).filter((c) => JSON.stringify(c.body.blocks).includes('approval.approve')),
    ).toEqual([]);
  });

  test('updates every copy in place when another approver approves, leaving no live button', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1600');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DMs');
    await settled(app);
    // Where each copy is, as kept durably for the request.
    const record = await app.store.get<{ copies: Array<{ user: string; channel: string; ts: string }> }>(
      `approval-dms:${id}`,
    );
    expect(record?.copies.map((c) => c.user).sort()).toEqual([APPROVER_A, APPROVER_B]);

    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => {
      await settled(app);
      return (record?.copies ?? []).every((copy) =>
        app.slack
          .callsTo('chat.update')
          .some((u) => u.body.ts === copy.ts && u.body.channel === copy.channel && buttons(u).length === 0),
      );
    }, 'both copies updated without buttons');
    const last = app.slack
      .callsTo('chat.update')
      .filter((u) => u.body.ts === record?.copies[1]?.ts)
      .at(-1);
    expect(JSON.stringify(last?.body.blocks)).toMatch(/Approved|Sent|Sending/);
  });

  test('takes the buttons off the copy of an approver once they approved, while the others still wait for theirs', async ({
    app,
  }) => {
    const id = await fileWithdrawal(app, '1100000');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DMs');
    await settled(app);
    await approve(app, `${id}:0`, APPROVER_A);
    const record = await app.store.get<{ copies: Array<{ user: string; channel: string; ts: string }> }>(
      `approval-dms:${id}`,
    );
    const lastUpdateOf = (user: string) => {
      const copy = record?.copies.find((c) => c.user === user);
      return app?.slack
        .callsTo('chat.update')
        .filter((u) => u.body.ts === copy?.ts)
        .at(-1) as SlackCall;
    };
    await waitUntil(
      () => Boolean(lastUpdateOf(APPROVER_A) && lastUpdateOf(APPROVER_B)),
      'both copies updated',
    );
    await settled(app);
    expect(buttons(lastUpdateOf(APPROVER_A))).toEqual([]);
    expect(String(lastUpdateOf(APPROVER_A).body.text)).toContain('You approved');
    expect(buttons(lastUpdateOf(APPROVER_B))).toEqual(['approval.approve', 'approval.reject']);
    expect(JSON.stringify(lastUpdateOf(APPROVER_B).body.blocks)).toContain('1 of 2');
  });

  test('answers a click on a copy that is out of date privately, and changes nothing', async ({ app }) => {
    const id = await fileWithdrawal(app, '1700');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DMs');
    await settled(app);
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app?.engine.get(id))?.state === 'sent', 'the withdrawal sent');
    const record = await app.store.get<{ copies: Array<{ user: string; channel: string; ts: string }> }>(
      `approval-dms:${id}`,
    );
    const copyB = record?.copies.find((c) => c.user === APPROVER_B);
    const opened = app.slack.callsTo('views.open').length;
    // Approver B clicks the Approve of the copy in their DM as it was before it was updated.
    const response = await blockAction(app.sender, {
      actionId: 'approval.approve',
      value: `${id}:0`,
      userId: APPROVER_B,
      channelId: copyB?.channel,
      messageTs: copyB?.ts,
    });
    expect(response.status).toBe(200);
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_B);
    expect(told.body.channel).toBe(copyB?.channel);
    expect(String(told.body.text)).toMatch(
      /already approved and is being handled .*your click changed nothing/,
    );
    // No review opens for a request that can no longer be approved.
    expect(app.slack.callsTo('views.open')).toHaveLength(opened);
    const after = await app.engine.get(id);
    expect(after?.approvals.map((a) => a.user)).toEqual([APPROVER_A]);
    expect(app.sandbox.requests.filter((r) => r.path === '/v1/api/withdraw')).toHaveLength(1);
  });

  test('sends no DM with CNGN_APPROVAL_NOTIFY=channel, and the channel message keeps its buttons', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'channel' });
    await fileWithdrawal(app, '1800');
    await settled(app);
    expect(app.approvals?.dms).toBeUndefined();
    expect([...dmsTo(app, APPROVER_A), ...dmsTo(app, APPROVER_B)]).toEqual([]);
    const posted = app.slack.callsTo('chat.postMessage').find((c) => c.body.channel === APPROVALS_CHANNEL);
    expect(buttons(posted as SlackCall)).toEqual(['approval.approve', 'approval.reject', 'approval.cancel']);
  });

  test('with CNGN_APPROVAL_NOTIFY=dm asks by DM only: the channel message keeps the requester’s Cancel and drops Approve/Reject', async ({
    startApp,
  }) => {
    const app = await startApp({ notify: 'dm' });
    await fileWithdrawal(app, '1900');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DMs');
    await settled(app);
    const posted = app.slack.callsTo('chat.postMessage').find((c) => c.body.channel === APPROVALS_CHANNEL);
    expect(buttons(posted as SlackCall)).toEqual(['approval.cancel']);
    expect(buttons(dmsTo(app, APPROVER_A)[0] as SlackCall)).toEqual(['approval.approve', 'approval.reject']);
  });

  test('re-renders the copies for the new round when a request is sent back; a click on the earlier round changes nothing', async ({
    app,
  }) => {
    const id = (await fileRedeem(app, '100')).request.id;
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DMs');
    await settled(app);
    // The account changed hands since filing: the final approval's re-check sends it back (round 1).
    const filed = await app.engine.get(id);
    await app.store.set(`approval:${id}`, {
      ...filed,
      display: { ...filed?.display, accountName: 'Old Owner' },
    });
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app?.engine.get(id))?.round === 1, 'sent back');
    const record = await app.store.get<{ copies: Array<{ user: string; channel: string; ts: string }> }>(
      `approval-dms:${id}`,
    );
    const copyB = record?.copies.find((c) => c.user === APPROVER_B);
    await waitUntil(
      () =>
        app.slack
          .callsTo('chat.update')
          .some((u) => u.body.ts === copyB?.ts && JSON.stringify(u.body.blocks).includes(`"${id}:1"`)),
      'B’s copy shows round 1',
    );
    const opened = app.slack.callsTo('views.open').length;
    // B clicks Approve on their copy as it was before (round 0): no review opens, and B is told why.
    await blockAction(app.sender, {
      actionId: 'approval.approve',
      value: `${id}:0`,
      userId: APPROVER_B,
      channelId: copyB?.channel,
      messageTs: copyB?.ts,
    });
    const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_B);
    expect(told.body.channel).toBe(copyB?.channel);
    expect(String(told.body.text)).toContain('Your click changed nothing');
    expect(app.slack.callsTo('views.open')).toHaveLength(opened);
    const after = await app.engine.get(id);
    expect(after?.state).toBe('pending');
    expect(after?.approvals).toEqual([]);
    expect(app.sandbox.requests.filter((r) => r.path === '/v1/api/redeemAsset')).toHaveLength(0);
  });

  test('tells the members of the approver group, read from Slack, except the requester', async ({
    startApp,
    defer,
  }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    slack.on('usergroups.users.list', () => ({ body: { ok: true, users: [APPROVER_B, REQUESTER] } }));
    const app = await startApp({ slack, approvers: [APPROVER_A], approverGroup: 'SAPPROVERS' });
    await fileWithdrawal(app, '2000');
    await waitUntil(() => dmsTo(app, APPROVER_B).length === 1, 'the DM to the group member');
    await settled(app);
    expect(dmsTo(app, APPROVER_A)).toHaveLength(1);
    expect(dmsTo(app, REQUESTER).filter((c) => buttons(c).includes('approval.approve'))).toEqual([]);
  });

  test('updates after a restart a copy Slack refused to update, so no stale button outlives the request', async ({
    startApp,
    sandbox,
    defer,
  }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    const store = await createStore('memory://');
    defer(() => store.close());
    const first = await startApp({ slack, store, sandbox });
    const id = await fileWithdrawal(first, '2100');
    await waitUntil(() => dmsTo(first, APPROVER_B).length === 1, 'the DMs');
    await settled(first);
    const record = await store.get<{ copies: Array<{ user: string; channel: string; ts: string }> }>(
      `approval-dms:${id}`,
    );
    const copyB = record?.copies.find((c) => c.user === APPROVER_B);
    slack.on('chat.update', (c) =>
      c.body.ts === copyB?.ts ? { body: { ok: false, error: 'internal_error' } } : undefined,
    );
    await approve(first, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await first.engine.get(id))?.state === 'sent', 'sent');
    await waitUntil(
      () => slack.callsTo('chat.update').some((u) => u.body.ts === copyB?.ts),
      'a refused update of B’s copy',
    );
    await settled(first);
    await first.stop();

    slack.reset();
    await startApp({ slack, store, sandbox });
    const updated = await slack.waitFor('chat.update', (u) => u.body.ts === copyB?.ts);
    expect(buttons(updated)).toEqual([]);
    expect(String(updated.body.text)).toContain('Nothing is waiting for you');
    expect(sandbox.requests.filter((r) => r.path === '/v1/api/withdraw')).toHaveLength(1);
  });
});
