// `/cngn policy` over signed HTTP: what it shows matches the configuration, with names resolved from
// Slack (users.info) and the approver group's members (usergroups.users.list), privately.
import { describe, expect } from 'vitest';
import { Money } from '../../../src/format/money.js';
import { botTest } from '../../support/bot.js';
import { ALERTS_CHANNEL } from '../../support/harness.js';
import { commandAnswer } from '../../support/slack-requests.js';
import { APPROVALS_CHANNEL, APPROVER_A, APPROVER_B, type ApprovalApp, startApprovalApp } from './support.js';

const GROUP = 'SAPPROVERS';
const MEMBER = 'UGROUPMEMBER';
/** Who asks: a member Slack describes plainly (the access gate looks them up first). */
const ASKER = 'UANYONE';
const NAMES: Record<string, string> = {
  [APPROVER_A]: 'Bola <Adeyemi> & Co',
  [APPROVER_B]: 'Chidi Okafor',
  [MEMBER]: 'Dayo Bello',
};

/** `fileApp`, one bot for the file, with the group and the names Slack gives for its people. */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('fileApp', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startApprovalApp({
      approvers: [APPROVER_A, APPROVER_B],
      approverGroup: GROUP,
      tiers: '0:1,1000000:2,50000000:3',
      ttlMs: 12 * 3_600_000 + 30 * 60_000 + 15_000,
    });
    onCleanup(() => app.stop());
    app.slack.on('users.info', (call) => {
      const id = String(call.body.user);
      if (id === ASKER) return undefined;
      return NAMES[id]
        ? { body: { ok: true, user: { id, real_name: NAMES[id] } } }
        : { body: { ok: false, error: 'user_not_found' } };
    });
    app.slack.on('usergroups.users.list', (call) =>
      call.body.usergroup === GROUP ? { body: { ok: true, users: [MEMBER, APPROVER_A] } } : undefined,
    );
    return app;
  });

describe('/cngn policy', () => {
  async function ask(app: ApprovalApp, text: string): Promise<{ text: string; ephemeral: unknown }> {
    const answer = await commandAnswer(app, text, ASKER);
    return { text: JSON.stringify(answer.body.blocks), ephemeral: answer.body.response_type };
  }

  test('shows the tiers, the approvers by name, the group members, lifetime, reminders, channels and environment', async ({
    fileApp: app,
  }) => {
    const { text, ephemeral } = await ask(app, 'policy');
    expect(ephemeral).toBe('ephemeral');
    expect(text).toContain('₦0.00 up to below ₦1,000,000.00: 1 approval');
    expect(text).not.toContain('up to below ₦0.00'); // no band added below a tier from ₦0
    expect(text).toContain('₦1,000,000.00 up to below ₦50,000,000.00: 2 approvals');
    expect(text).toContain('₦50,000,000.00 and above: 3 approvals');
    expect(text).toContain('Settlement account changes: 3 approvals');
    // Names from Slack profiles are escaped; ids are shown as mentions.
    expect(text).toContain('Bola &lt;Adeyemi&gt; &amp; Co (<@UAPPROVERA>)');
    expect(text).toContain('Chidi Okafor (<@UAPPROVERB>)');
    expect(text).toContain(`user group \`${GROUP}\`: Dayo Bello (<@${MEMBER}>)`);
    expect(text).toContain('Active delegations*: none');
    expect(text).toContain('Request lifetime*: 12h 30m 15s');
    expect(text).toContain('50% (6h 15m), 90% (11h 15m) of the lifetime');
    expect(text).toContain(`<#${APPROVALS_CHANNEL}>`);
    expect(text).toContain(`<#${ALERTS_CHANNEL}>`);
    expect(text).toContain('SANDBOX');
  });

  test('shows a person Slack cannot name as a mention, and says when the group cannot be read', async ({
    fileApp: app,
  }) => {
    app.slack.on('users.info', (call) =>
      call.body.user === ASKER
        ? undefined
        : call.body.user === APPROVER_B
          ? { body: { ok: true, user: { id: APPROVER_B, real_name: NAMES[APPROVER_B] } } }
          : { body: { ok: false, error: 'missing_scope' } },
    );
    app.slack.on('usergroups.users.list', () => ({ body: { ok: false, error: 'missing_scope' } }));
    const { text } = await ask(app, 'policy');
    expect(text).toContain('Named: <@UAPPROVERA>, Chidi Okafor (<@UAPPROVERB>)');
    expect(text).toContain(`user group \`${GROUP}\`: could not be read just now (missing_scope)`);
  });

  test('says no approval asks for a passkey while CNGN_SIGNED_APPROVALS is off', async ({ fileApp: app }) => {
    const { text } = await ask(app, 'policy');
    expect(text).toContain('*Passkeys*: Approvals are made with a click; no passkey is asked for.');
  });

  test('says which approvals need the approver’s passkey', async ({ startApp }) => {
    const origin = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
    const above = await startApp({
      config: { signing: { rule: { mode: 'above', amount: Money.parse('250000') }, ...origin } },
    });
    const { text } = await ask(above, 'policy');
    expect(text).toContain(
      "*Passkeys*: Approvals of withdrawals, redemptions and bridges above ₦250,000.00 are signed with the approver's passkey, and whitelist, settlement, delegation, unfreeze and passkey approvals always are.",
    );
    const all = await startApp({ config: { signing: { rule: { mode: 'all' }, ...origin } } });
    expect((await ask(all, 'policy')).text).toContain(
      "*Passkeys*: Every approval is signed with the approver's passkey (whitelist, settlement, delegation, unfreeze and passkey approvals too).",
    );
  });

  test('shows the band below a lowest tier above ₦0, joined with tiers asking alike, and where approvers are asked, in words', async ({
    startApp,
  }) => {
    const dm = await startApp({ tiers: '1000000:2', notify: 'dm' });
    const { text } = await ask(dm, 'policy');
    expect(text).toContain(
      '₦0.00 up to below ₦1,000,000.00: 1 approval\\n• ₦1,000,000.00 and above: 2 approvals\\n',
    );
    // A request with no amount takes the lowest configured tier, not the band shown below it.
    expect(text).toContain('Whitelist additions (no amount): 2 approvals');
    // A lowest tier asking one approval joins the band below it: one line, not two alike.
    const joined = (await ask(await startApp({ tiers: '500:1,1000000:2' }), 'policy')).text;
    expect(joined).toContain(
      '₦0.00 up to below ₦1,000,000.00: 1 approval\\n• ₦1,000,000.00 and above: 2 approvals\\n',
    );
    expect(text).toContain(
      '*Approvers are told*: by DM when a request is filed; Approve and Reject are in the DM and in App Home; the approvals channel shows the request without them',
    );
    const channel = await startApp({ notify: 'channel' });
    expect((await ask(channel, 'policy')).text).toContain(
      '*Approvers are told*: in the approvals channel when a request is filed; Approve and Reject are in the approvals channel and in App Home; no DM is sent when a request is filed',
    );
    const both = await startApp({ notify: 'both' });
    expect((await ask(both, 'policy')).text).toContain(
      '*Approvers are told*: by DM and in the approvals channel when a request is filed; Approve and Reject are in the DM, in the approvals channel and in App Home',
    );
  });

  test('is listed in the help', async ({ fileApp: app }) => {
    const { text } = await ask(app, 'help');
    expect(text).toContain('/cngn policy');
    expect(text).toContain('/cngn extend');
  });
});
