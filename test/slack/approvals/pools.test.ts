// Approver pools and roles through the bot over signed HTTP: an approver outside a kind's pool is
// refused at Approve, /cngn policy lists the roles, and Slack's subteam_members_changed makes a group
// be read again at once.
import { describe, expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { commandAnswer, eventDelivery, homeOpened } from '../../support/slack-requests.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  REQUESTER,
  startApprovalApp,
  waitUntil,
} from './support.js';

const EFE = 'UEFE';
const KEMI = 'UKEMI';
const TEAM = 'STREASURY';

function membersChanged(app: ApprovalApp, group: string) {
  return eventDelivery(app.sender, {
    type: 'subteam_members_changed',
    subteam_id: group,
    team_id: 'T1',
    added_users: ['UNEW'],
  });
}

/**
 * `fileApp`, one bot for the file with the pools and roles below; `team`, the members Slack gives for
 * the requesters' group (a test adds one).
 */
const test = botTest
  .extend('team', { scope: 'file' }, [REQUESTER])
  .extend('fileApp', { scope: 'file' }, async ({ team }, { onCleanup }) => {
    const app = await startApprovalApp({
      approvers: [APPROVER_A, APPROVER_B, REQUESTER],
      tiers: '0:1',
      config: {
        roles: {
          requesters: [TEAM],
          auditors: [KEMI],
          approversByKind: { withdraw: [APPROVER_B, EFE] },
        },
      },
    });
    onCleanup(() => app.stop());
    app.slack.on('usergroups.users.list', (call) =>
      call.body.usergroup === TEAM ? { body: { ok: true, users: team } } : undefined,
    );
    return app;
  });

describe('approver pools and roles in Slack', () => {
  test("refuses Approve from a general approver outside the withdraw pool, and takes it from the pool's", async ({
    fileApp: app,
  }) => {
    const id = await fileWithdrawal(app, '100');
    const refused = await approve(app, id, APPROVER_A);
    expect(refused.view).toBeUndefined();
    expect(String(refused.told?.body.text)).toMatch(/You are not an approver for .*AR-.*\/cngn policy/);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    const approved = await approve(app, id, APPROVER_B);
    expect(approved.view).toBeDefined();
    await waitUntil(async () => (await app.engine.get(id))?.approvals.length === 1, 'the approval');
    expect((await app.engine.get(id))?.approvals[0]?.user).toBe(APPROVER_B);
  });

  test('lists the roles and the withdraw pool in /cngn policy', async ({ fileApp: app }) => {
    const text = JSON.stringify((await commandAnswer(app, 'policy', 'UANYONE')).body.blocks);
    expect(text).toContain('Readers (read commands, App Home figures): every member who is not a guest');
    expect(text).toContain(`Requesters (file money requests): the members of <!subteam^${TEAM}>`);
    expect(text).toMatch(/Auditors \(audit commands, read only\): [^•]*<@UKEMI>[^•]*, and every approver/);
    expect(text).toMatch(
      /Withdrawals are approved by: [^•]*<@UAPPROVERB>[^•]*<@UEFE>[^•]*\(in place of the approvers below\)/,
    );
    expect(text).toContain('Every other kind: the approvers below');
  });

  test('tells each person on App Home which roles they hold', async ({ fileApp: app }) => {
    const homeOf = async (user: string) => {
      expect((await homeOpened(app.sender, user)).status).toBe(200);
      const published = await app.slack.waitFor('views.publish', (c) => c.body.user_id === user);
      return JSON.stringify(published.body.view);
    };
    expect(await homeOf(APPROVER_B)).toContain(
      '*Your roles*: reader · approver (every kind) · auditor (read only)',
    );
    expect(await homeOf(APPROVER_A)).toContain(
      '*Your roles*: reader · approver (redeem, bridge, whitelist, settlement, delegation, unfreeze, passkey) · auditor (read only)',
    );
    expect(await homeOf(KEMI)).toContain('*Your roles*: reader · auditor (read only)');
  });

  test('reads a group again when Slack says its members changed; a group only the requesters name is not recorded', async ({
    fileApp: app,
    team,
  }) => {
    const roles = app.approvals?.roles;
    if (!roles) throw new Error('roles are not wired');
    expect(await roles.holds('UNEW', { role: 'requester' })).toBe(false);
    team.splice(0, team.length, REQUESTER, 'UNEW');
    // Within the cache nothing changes until Slack says so.
    expect(await roles.holds('UNEW', { role: 'requester' })).toBe(false);
    expect((await membersChanged(app, TEAM)).status).toBe(200);
    await waitUntil(() => roles.holds('UNEW', { role: 'requester' }), 'the group re-read');
    // Who may request is not what the verifier judges: only an approver pool's groups are recorded
    // (policy-changes.test.ts records one), decided as the read answers.
    await app.engine.idle(); // a change the bot records, it records in the background
    const recorded = (await app.engine.audit(100)).filter((e) => e.policy?.group === TEAM);
    expect(recorded).toEqual([]);
  });
});
