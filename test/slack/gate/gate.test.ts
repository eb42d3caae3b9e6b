// The access gate over signed HTTP with the real Bolt app and the fake Slack: on every surface (the
// command, a button in a channel, in a DM and in App Home, a modal submission, the type-ahead, App Home
// opening) someone without the role is refused privately, with the role named and who holds it, and
// nothing changes; someone with it goes on. Guests and bots are refused even when a list names them.
import { describe, expect } from 'vitest';
import type { Role, Roles } from '../../../src/access/roles.js';
import { APPROVE_ACTION } from '../../../src/slack/approvals/blocks/message.js';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { BOT_USER, GUEST } from '../../support/fake-slack.js';
import {
  blockAction,
  clickInHome,
  homeOpened,
  interaction,
  newTriggerId,
  optionsRequest,
  textValue,
  userChanged,
  viewSubmission,
} from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
  slashCommand,
  waitUntil,
} from '../approvals/support.js';

const DAYO = 'UDAYO'; // reads, files nothing, approves nothing
const GONE = 'UGONE'; // a deactivated account, still named in a list
const EFE = 'UEFE'; // reads and audits
const NOBODY = 'UNOBODY'; // a member holding no role at all

/**
 * Roles as lists, handed to the bot directly, so each case names exactly who holds what without
 * configuring the role variables.
 */
function listedRoles(lists: Record<Role, string[]>): Roles {
  return {
    holds: async (user, need) => lists[need.role].includes(user),
    holders: async (need) => ({ everyone: false, users: lists[need.role], groups: [] }),
  };
}

const LISTS: Record<Role, string[]> = {
  reader: [DAYO, EFE, REQUESTER, APPROVER_A],
  requester: [REQUESTER, GUEST],
  auditor: [EFE],
  approver: [APPROVER_A, GUEST, BOT_USER, GONE],
};

let asked = 0;

/** `/cngn <text>` as `userId`: the text of its private answer. */
async function cngn(app: ApprovalApp, text: string, userId: string): Promise<string> {
  const name = `gate-${++asked}`;
  await slashCommand(app.sender, { text, userId, responseUrl: app.slack.responseUrl(name) });
  return String((await app.slack.waitFor(`response_url:${name}`)).body.text);
}

/** `/cngn <text>` as `userId`, which answers with a modal: the views.open that opened it. */
async function cngnModal(app: ApprovalApp, text: string, userId: string) {
  const triggerId = newTriggerId();
  await slashCommand(app.sender, { text, userId, responseUrl: app.slack.responseUrl('modal'), triggerId });
  return app.slack.waitFor('views.open', (c) => c.body.trigger_id === triggerId);
}

/** The withdrawal form as submitted by `userId`, with good values: Slack's answer to the submission. */
async function submitWithdrawal(app: ApprovalApp, userId: string) {
  const [network] = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  if (!network) throw new Error('no network');
  return viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    userId,
    privateMetadata: JSON.stringify({ networks: [network.id] }),
    values: {
      'withdraw.amount': { 'withdraw.amount': textValue('1500') },
      'withdraw.network': {
        'withdraw.network': {
          type: 'static_select',
          selected_option: { value: network.id, text: { type: 'plain_text', text: network.name } },
        },
      },
      'withdraw.address': { 'withdraw.address': textValue('0x52908400098527886E0F7030069857D2E4169EE7') },
      'withdraw.purpose': { 'withdraw.purpose': textValue('Supplier payout INV-2231') },
    },
  });
}

const ephemeralTo = (app: ApprovalApp, user: string) =>
  app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === user);

/** Where an Approve button is: a message in a channel or DM, or App Home. */
type Place = { channel: string } | 'home';

function clickApprove(app: ApprovalApp, id: string, userId: string, place: Place, triggerId?: string) {
  const click = {
    actionId: APPROVE_ACTION,
    value: `${id}:0`,
    userId,
    triggerId: triggerId ?? newTriggerId(),
  };
  return place === 'home'
    ? clickInHome(app.sender, click)
    : blockAction(app.sender, { ...click, channelId: place.channel, messageTs: '1.0' });
}

/** Approve on request `id`, clicked by someone the gate refuses: where the private answer went, and what it said. */
async function refusedApprove(app: ApprovalApp, id: string, userId: string, place: Place) {
  await clickApprove(app, id, userId, place);
  const told = await ephemeralTo(app, userId);
  return { channel: told.body.channel, text: String(told.body.text) };
}

/** Approve on request `id`, clicked by someone the gate lets by: the review modal it opened. */
async function reviewOpened(app: ApprovalApp, id: string, userId: string, place: Place) {
  const triggerId = newTriggerId();
  await clickApprove(app, id, userId, place, triggerId);
  return app.slack.waitFor('views.open', (c) => c.body.trigger_id === triggerId);
}

describe('the access gate, with roles as lists', () => {
  const test = botTest.extend('gated', async ({ startApp }) => {
    const { logger, entries } = capturedLog('warn');
    const app = await startApp({ roles: listedRoles(LISTS), logger });
    app.slack.on('users.info', (call) =>
      call.body.user === GONE ? { body: { ok: true, user: { id: GONE, deleted: true } } } : undefined,
    );
    return { app, entries };
  });

  test('refuses a command to someone without its role, naming it and its holders; opens nothing', async ({
    gated: { app, entries },
  }) => {
    expect(await cngn(app, 'withdraw', DAYO)).toBe(
      '`/cngn withdraw` needs the *requester* role, held by <@UREQ>. Nothing was done.',
    );
    expect(app.slack.callsTo('views.open')).toEqual([]);
    await cngnModal(app, 'withdraw', REQUESTER);
    // Reading is a role too: a member holding none is refused the balance; a reader gets it.
    expect(await cngn(app, 'balance', NOBODY)).toContain('needs the *reader* role');
    expect(await cngn(app, 'balance', DAYO)).toContain('₦');
    expect(await cngn(app, 'audit', DAYO)).toContain('needs the *auditor* role, held by <@UEFE>');
    expect(await cngn(app, 'audit', EFE)).not.toContain('needs the');
    // The help is for anyone who is no guest.
    expect(await cngn(app, 'help', NOBODY)).toBe('cNGN treasury commands');
    const logged = entries.find((l) => l.message === 'the access gate refused' && l.user === DAYO);
    expect(logged).toMatchObject({
      surface: 'command',
      id: '/cngn withdraw',
      need: 'requester',
      why: 'role',
    });
  });

  test('refuses an Approve click in the channel privately there, and counts nothing', async ({
    gated: { app },
  }) => {
    const id = await fileWithdrawal(app, '1500');
    expect(await refusedApprove(app, id, DAYO, { channel: APPROVALS_CHANNEL })).toEqual({
      channel: APPROVALS_CHANNEL,
      // The guest, the bot and the deactivated account the list names are left out.
      text: 'This button needs the *approver* role, held by <@UAPPROVERA>. Nothing was done.',
    });
    await reviewOpened(app, id, APPROVER_A, { channel: APPROVALS_CHANNEL });
    expect(app.slack.callsTo('views.open')).toHaveLength(1);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('refuses an Approve click in a DM in that DM', async ({ gated: { app } }) => {
    const id = await fileWithdrawal(app, '1500');
    const told = await refusedApprove(app, id, DAYO, { channel: `D${DAYO}` });
    expect(told.channel).toBe(`D${DAYO}`);
    expect(told.text).toContain('needs the *approver* role');
    await reviewOpened(app, id, APPROVER_A, { channel: `D${APPROVER_A}` });
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('judges a click of an unusual shape like any other: a container with no type, no channel', async ({
    gated: { app, entries },
  }) => {
    const id = await fileWithdrawal(app, '1500');
    await interaction(app.sender, {
      type: 'block_actions',
      team: { id: 'T1', domain: 'treasury' },
      user: { id: DAYO, username: 'dayo', team_id: 'T1' },
      api_app_id: 'A1',
      trigger_id: newTriggerId(),
      container: { message_ts: '1.0', channel_id: APPROVALS_CHANNEL },
      actions: [{ action_id: APPROVE_ACTION, block_id: 'block', type: 'button', value: `${id}:0` }],
    });
    await waitUntil(() => entries.some((l) => l.message === 'the access gate refused' && l.user === DAYO));
    expect(entries.find((l) => l.user === DAYO)).toMatchObject({ need: 'approver', why: 'role' });
    expect(app.slack.callsTo('views.open')).toEqual([]);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('refuses an Approve click in App Home in the person’s DM', async ({ gated: { app } }) => {
    const id = await fileWithdrawal(app, '1500');
    const told = await refusedApprove(app, id, DAYO, 'home');
    expect(told.channel).toBe(`D${DAYO}`);
    expect(told.text).toContain('needs the *approver* role');
    await reviewOpened(app, id, APPROVER_A, 'home');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });

  test('refuses a modal submission on its first field and files nothing', async ({ gated: { app } }) => {
    const answer = (await submitWithdrawal(app, DAYO)).json() as {
      response_action?: string;
      errors?: Record<string, string>;
    };
    expect(answer).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount':
          'Not allowed: this form needs the requester role, held by @UREQ. Nothing was filed.',
      },
    });
    expect(await app.engine.openRequests()).toEqual([]);
    expect((await submitWithdrawal(app, REQUESTER)).status).toBe(200);
    await waitUntil(async () => (await app.engine.openRequests()).length === 1, 'the filing');
  });

  test('refuses a form naming the role alone when Slack cannot describe its holders, still in the ack', async ({
    gated: { app },
  }) => {
    app.slack.on('users.info', (call) =>
      call.body.user === REQUESTER ? { body: { ok: false, error: 'fatal_error' } } : undefined,
    );
    expect((await submitWithdrawal(app, DAYO)).json()).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount':
          'Not allowed: this form needs the requester role; ask an admin of the bot who holds it. Nothing was filed.',
      },
    });
    expect(await app.engine.openRequests()).toEqual([]);
  });

  test('answers the type-ahead with no options to someone who may not file', async ({ gated: { app } }) => {
    const refused = await optionsRequest(app.sender, {
      actionId: 'redeem.bank',
      value: 'guar',
      userId: DAYO,
    });
    expect(refused.json()).toEqual({ options: [] });
    const allowed = await optionsRequest(app.sender, {
      actionId: 'redeem.bank',
      value: 'guar',
      userId: REQUESTER,
    });
    expect((allowed.json() as { options: unknown[] }).options).toHaveLength(1);
  });

  test('shows App Home without the treasury to someone who may not read it', async ({ gated: { app } }) => {
    await homeOpened(app.sender, NOBODY);
    const refused = await app.slack.waitFor('views.publish', (c) => c.body.user_id === NOBODY);
    const shown = JSON.stringify(refused.body.view);
    expect(shown).toContain('You do not have the *reader* role');
    expect(shown).not.toContain('Not read recently'); // the balance line every reader's Home has
    await homeOpened(app.sender, DAYO);
    const home = await app.slack.waitFor('views.publish', (c) => c.body.user_id === DAYO);
    expect(JSON.stringify(home.body.view)).toContain('Not read recently');
  });

  test('refuses a member made a guest as soon as Slack says their account changed', async ({
    gated: { app },
  }) => {
    expect(await cngn(app, 'balance', DAYO)).toContain('₦');
    app.slack.on('users.info', (call) =>
      call.body.user === DAYO ? { body: { ok: true, user: { id: DAYO, is_restricted: true } } } : undefined,
    );
    // Until Slack says so, the bot goes by what it asked a moment ago.
    expect(await cngn(app, 'balance', DAYO)).toContain('₦');
    expect((await userChanged(app.sender, { id: DAYO, is_restricted: true })).status).toBe(200);
    expect(await cngn(app, 'balance', DAYO)).toBe(
      'Guests and bots cannot use the cNGN treasury desk, whatever roles they are given. Nothing was done.',
    );
  });

  test('refuses a guest and a bot everything, even a guest the approver list names', async ({
    gated: { app },
  }) => {
    const id = await fileWithdrawal(app, '1500');
    for (const user of [GUEST, BOT_USER]) {
      expect(await cngn(app, 'help', user)).toBe(
        'Guests and bots cannot use the cNGN treasury desk, whatever roles they are given. Nothing was done.',
      );
    }
    expect((await refusedApprove(app, id, GUEST, { channel: APPROVALS_CHANNEL })).text).toContain(
      'Guests and bots cannot use',
    );
    expect(app.slack.callsTo('views.open')).toEqual([]);
    expect((await app.engine.get(id))?.approvals).toEqual([]);
    await homeOpened(app.sender, GUEST);
    const home = await app.slack.waitFor('views.publish', (c) => c.body.user_id === GUEST);
    expect(JSON.stringify(home.body.view)).toContain('nothing of the treasury is shown here');
  });
});

describe('the access gate when Slack cannot say who someone is', () => {
  botTest('refuses, says to try again, and runs nothing', async ({ app }) => {
    app.slack.on('users.info', () => ({ body: { ok: false, error: 'fatal_error' } }));
    expect(await cngn(app, 'withdraw', REQUESTER)).toBe(
      'The bot could not check your role with Slack just now. Nothing was done; try again in a moment.',
    );
    expect(app.slack.callsTo('views.open')).toEqual([]);
  });
});

describe('the access gate, with the bot’s own (configured) roles', () => {
  const test = botTest.extend('listed', async ({ startApp }) =>
    startApp({ approvers: [APPROVER_A, GUEST, REQUESTER] }),
  );

  test('refuses a guest named in CNGN_APPROVERS, and audits only for approvers', async ({ listed: app }) => {
    const id = await fileWithdrawal(app, '1500');
    expect((await refusedApprove(app, id, GUEST, 'home')).text).toContain('Guests and bots cannot use');
    expect(await cngn(app, 'balance', GUEST)).toContain('Guests and bots cannot use');
    expect(await cngn(app, 'audit verify', OUTSIDER)).toBe(
      '`/cngn audit verify` needs the *auditor* role, held by <@UAPPROVERA> and <@UREQ>. Nothing was done.',
    );
    expect(await cngn(app, 'balance', OUTSIDER)).toContain('₦');
    expect((await app.engine.get(id))?.approvals).toEqual([]);
  });
});
