// Only the workspace the bot is installed in acts: over signed HTTP with the real Bolt app and the fake
// Slack, a Slack Connect member of a shared channel (users.info names another team) is refused every
// surface whatever the role settings list, and so is a request naming another workspace or organisation
// for an approver of this one; start-up warns of the listed ids that are not members.
import { describe, expect } from 'vitest';
import { APPROVE_ACTION } from '../../../src/slack/approvals/blocks/message.js';
import { REVIEW_VIEW } from '../../../src/slack/approvals/blocks/review.js';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { EXTERNAL, FakeSlack, OTHER_TEAM } from '../../support/fake-slack.js';
import { submitReview } from '../../support/review.js';
import {
  commandAnswer,
  homeOpened,
  newTriggerId,
  textValue,
  userChanged,
} from '../../support/slack-requests.js';
import {
  clickFrom,
  commandFrom,
  eventFrom,
  submissionFrom,
  typeAheadFrom,
  type Workspace,
} from '../../support/workspaces.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
  reviewFor,
  waitUntil,
} from '../approvals/support.js';

const MEMBERS_ONLY = 'Only members of Treasury can use cngn-desk. Nothing was done.';
const HOME: Workspace = {};
const EVIL: Workspace = { team: OTHER_TEAM, enterprise: 'E0EVIL' };

let asked = 0;
/** `/cngn <text>` as `user`, sent for `place`: the text of its private answer. */
async function cngn(app: ApprovalApp, text: string, user: string, place: Workspace = HOME): Promise<string> {
  const name = `home-${++asked}`;
  await commandFrom(app.sender, place, { text, user, responseUrl: app.slack.responseUrl(name) });
  return String((await app.slack.waitFor(`response_url:${name}`)).body.text);
}

/** The withdrawal form as `user` submits it, with good values, sent for `place`: Slack's answer. */
async function submitWithdrawal(app: ApprovalApp, user: string, place: Workspace = HOME) {
  const [network] = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  if (!network) throw new Error('no network');
  const answer = await submissionFrom(app.sender, place, {
    user,
    callbackId: 'withdraw.submit',
    privateMetadata: JSON.stringify({ networks: [network.id] }),
    values: {
      'withdraw.amount': { 'withdraw.amount': textValue('901') },
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
  return answer.json() as { response_action?: string; errors?: Record<string, string> };
}

/** Approve on request `id` clicked by `user`, sent for `place`: the private answer, none opening a review. */
async function refusedClick(app: ApprovalApp, id: string, user: string, place: Workspace): Promise<string> {
  const triggerId = newTriggerId();
  const before = app.slack.callsTo('chat.postEphemeral').length;
  await clickFrom(app.sender, place, {
    actionId: APPROVE_ACTION,
    value: `${id}:0`,
    user,
    channel: APPROVALS_CHANNEL,
    triggerId,
  });
  const told = await app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === user && app.slack.callsTo('chat.postEphemeral').indexOf(c) >= before,
  );
  expect(app.slack.callsTo('views.open').filter((c) => c.body.trigger_id === triggerId)).toEqual([]);
  return String(told.body.text);
}

/** Everything a Slack Connect member may try, each refused with "only members", nothing filed or opened. */
async function refusedEverything(app: ApprovalApp, user: string) {
  for (const text of ['balance', 'withdraw', 'withdraw 901', 'pending', 'policy', 'help']) {
    expect(await cngn(app, text, user), text).toBe(MEMBERS_ONLY);
  }
  // Filing by the form: refused on its first field, twice over, and nothing filed.
  for (let i = 0; i < 2; i++) {
    expect(await submitWithdrawal(app, user)).toEqual({
      response_action: 'errors',
      errors: {
        'withdraw.amount': 'Not allowed: Only members of Treasury can use cngn-desk. Nothing was filed.',
      },
    });
  }
  expect(await app.engine.openRequests()).toEqual([]);
  expect(app.slack.callsTo('views.open')).toEqual([]);
  const typed = await typeAheadFrom(app.sender, HOME, { user, actionId: 'redeem.bank', value: 'guar' });
  expect(typed.json()).toEqual({ options: [] });
  await homeOpened(app.sender, user);
  const home = await app.slack.waitFor('views.publish', (c) => c.body.user_id === user);
  expect(JSON.stringify(home.body.view)).toContain(
    'Only members of Treasury can use cngn-desk, so nothing of the treasury is shown here.',
  );
}

describe('a Slack Connect member of a shared channel', () => {
  botTest('with the default roles: no balance, no filing, no Home, no type-ahead', async ({ startApp }) => {
    const { logger, entries } = capturedLog('warn');
    const app = await startApp({ logger });
    // A member of this workspace still reads and files, so the refusals below are not the bot's state.
    expect(await cngn(app, 'balance', OUTSIDER)).toContain('₦');
    await refusedEverything(app, EXTERNAL);
    expect(entries.find((l) => l.message === 'the access gate refused' && l.user === EXTERNAL)).toMatchObject(
      {
        surface: 'command',
        why: 'external',
      },
    );
  });

  botTest(
    'listed by id in CNGN_READERS, CNGN_REQUESTERS and CNGN_APPROVERS: the same, left out of what names holders, and warned of at start',
    async ({ startApp }) => {
      const { logger, entries } = capturedLog('warn');
      const app = await startApp({
        logger,
        approvers: [APPROVER_A, EXTERNAL],
        config: {
          roles: { readers: [EXTERNAL, REQUESTER], requesters: [EXTERNAL, REQUESTER], approversByKind: {} },
        },
      });
      const warned = entries.filter((l) => l.check === 'slack').map((l) => l.message);
      expect(warned).toEqual([
        `person ${EXTERNAL} is not a member of Treasury (a member of another workspace, as through Slack Connect), so cngn-desk lets them do nothing: remove them from CNGN_APPROVERS, CNGN_READERS, CNGN_REQUESTERS`,
      ]);
      await refusedEverything(app, EXTERNAL);
      const id = await fileWithdrawal(app, '901');
      // The approvers are told by DM, with the figures and the buttons; the one of elsewhere is not.
      await app.slack.waitFor(
        'chat.postMessage',
        (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body.blocks ?? []).includes(id),
      );
      await app.approvals?.dms?.idle();
      expect(app.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === EXTERNAL)).toEqual([]);
      expect(await refusedClick(app, id, EXTERNAL, HOME)).toBe(MEMBERS_ONLY);
      expect((await app.engine.get(id))?.approvals).toEqual([]);
      // Whoever names the holders leaves them out: a refusal, and /cngn policy.
      expect(await cngn(app, 'withdraw', OUTSIDER)).toBe(
        '`/cngn withdraw` needs the *requester* role, held by <@UREQ>. Nothing was done.',
      );
      const policy = JSON.stringify((await commandAnswer(app, 'policy', REQUESTER)).body.blocks);
      expect(policy).toContain(`<@${APPROVER_A}>`);
      expect(policy).not.toContain(EXTERNAL);
    },
  );
});

describe('a Slack Connect member listed as an approver, when a request is due a reminder', () => {
  botTest('is not reminded by DM, while the approver of this workspace is', async ({ startApp }) => {
    let offset = 0;
    const app = await startApp({
      // Reminded in this order: once Approver A's DM is out, the other's turn has passed.
      approvers: [EXTERNAL, APPROVER_A],
      ttlMs: 10 * 3_600_000,
      now: () => new Date(Date.now() + offset),
    });
    const id = await fileWithdrawal(app, '901');
    offset = 5 * 3_600_000 + 60_000; // past the 50% point
    await app.engine.tick();
    await app.engine.idle();
    const reminded = (user: string) =>
      app.slack
        .callsTo('chat.postMessage')
        .filter((c) => c.body.channel === user && String(c.body.text).includes('Reminder'));
    await waitUntil(() => reminded(APPROVER_A).length > 0, 'the reminder DM');
    expect(String(reminded(APPROVER_A)[0]?.body.text)).toContain(id);
    expect(reminded(EXTERNAL)).toEqual([]);
  });
});

describe('an approver who opened Home and then turned out to be of another workspace', () => {
  botTest('is not sent the treasury on the next change, while the others are', async ({ app }) => {
    for (const user of [APPROVER_A, APPROVER_B]) {
      await homeOpened(app.sender, user);
      await app.slack.waitFor('views.publish', (c) => c.body.user_id === user);
    }
    app.slack.people.set(APPROVER_B, { team: OTHER_TEAM });
    await userChanged(app.sender, { id: APPROVER_B, team_id: OTHER_TEAM });
    const before = app.slack.callsTo('views.publish').length;
    const id = await fileWithdrawal(app, '901');
    await app.slack.waitFor(
      'views.publish',
      (c) =>
        c.body.user_id === APPROVER_A &&
        JSON.stringify(c.body.view).includes(id) &&
        app.slack.callsTo('views.publish').indexOf(c) >= before,
    );
    await app.approvals?.home?.idle();
    const toB = app.slack
      .callsTo('views.publish')
      .slice(before)
      .filter((c) => c.body.user_id === APPROVER_B);
    expect(toB).toEqual([]);
  });
});

describe('a request naming another workspace for someone of this one', () => {
  botTest(
    'an approver’s click and review submission carrying team T0EVIL and enterprise E0EVIL open, count and send nothing',
    async ({ app }) => {
      const id = await fileWithdrawal(app, '901');
      for (const place of [EVIL, { team: OTHER_TEAM }, { enterprise: 'E0EVIL' }, { userTeam: OTHER_TEAM }]) {
        expect(await refusedClick(app, id, APPROVER_A, place)).toBe(MEMBERS_ONLY);
      }
      // The review the approver opened at home, submitted as from elsewhere: nothing counts.
      const { view } = await reviewFor(app, `${id}:0`, APPROVER_A);
      if (!view) throw new Error('the review did not open');
      for (const place of [EVIL, { enterprise: 'E0EVIL' }, { userTeam: OTHER_TEAM }]) {
        const answer = await submissionFrom(app.sender, place, {
          user: APPROVER_A,
          callbackId: REVIEW_VIEW,
          viewId: view.id,
          privateMetadata: view.private_metadata,
        });
        expect(answer.status).toBe(200);
      }
      await app.engine.idle();
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
      // The same submission from this workspace counts: the refusals above were the workspace's.
      await submitReview(app.sender, view, APPROVER_A);
      await waitUntil(async () => (await app.engine.get(id))?.approvals.length === 1, 'the approval');
    },
  );

  botTest(
    'a click naming an empty team, or an empty user team, is refused as from no workspace',
    async ({ app }) => {
      const id = await fileWithdrawal(app, '901');
      for (const place of [{ team: '', userTeam: 'T1' }, { userTeam: '' }, { team: '' }]) {
        expect(await refusedClick(app, id, APPROVER_A, place), JSON.stringify(place)).toBe(MEMBERS_ONLY);
      }
      await app.engine.idle();
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [] });
    },
  );

  botTest(
    'a command, Home and an account event naming another workspace run nothing',
    async ({ startApp }) => {
      const { logger, entries } = capturedLog('warn');
      const app = await startApp({ logger });
      expect(await cngn(app, 'balance', REQUESTER, EVIL)).toBe(MEMBERS_ONLY);
      expect(await cngn(app, 'balance', REQUESTER, { enterprise: 'E0EVIL' })).toBe(MEMBERS_ONLY);
      const typed = await typeAheadFrom(app.sender, EVIL, {
        user: REQUESTER,
        actionId: 'redeem.bank',
        value: 'g',
      });
      expect(typed.json()).toEqual({ options: [] });
      // Whose Home it would be is not known: nothing is published over a member's own.
      await eventFrom(app.sender, EVIL, { type: 'app_home_opened', user: REQUESTER, tab: 'home' });
      await waitUntil(
        () => entries.some((l) => l.message === 'the access gate refused' && l.surface === 'Home'),
        'the Home refusal',
      );
      expect(app.slack.callsTo('views.publish')).toEqual([]);
      await eventFrom(app.sender, { team: OTHER_TEAM }, { type: 'user_change', user: { id: REQUESTER } });
      await waitUntil(
        () => entries.some((l) => l.message === 'the access gate refused an event from another workspace'),
        'the event refusal',
      );
      expect(app.slack.callsTo('views.open')).toEqual([]);
    },
  );

  botTest(
    'a click on an id nothing declares, naming another workspace, goes no further',
    async ({ startApp }) => {
      const { logger, entries } = capturedLog('warn');
      const app = await startApp({ logger });
      const answer = await clickFrom(app.sender, EVIL, {
        actionId: 'nobody.declares.this',
        value: 'x',
        user: APPROVER_A,
        channel: APPROVALS_CHANNEL,
      });
      expect(answer.status).toBe(200);
      expect(
        entries.find((l) => l.message === 'the access gate refused an interaction from another workspace'),
      ).toMatchObject({ why: 'external' });
    },
  );
});

describe('on Enterprise Grid', () => {
  botTest(
    'members of the organisation act; another organisation, or none named, is refused',
    async ({ startApp, defer }) => {
      const slack = await FakeSlack.start();
      defer(() => slack.stop());
      slack.enterpriseId = 'E1';
      slack.people.set('UELSEWHERE', { enterprise: 'E2' });
      const app = await startApp({ slack });
      const grid = { enterprise: 'E1' };
      expect(await cngn(app, 'balance', REQUESTER, grid)).toContain('₦');
      expect(await cngn(app, 'balance', 'UELSEWHERE', grid)).toBe(MEMBERS_ONLY);
      expect(await cngn(app, 'balance', REQUESTER, { enterprise: 'E0EVIL' })).toBe(MEMBERS_ONLY);
      expect(await cngn(app, 'balance', REQUESTER, HOME)).toBe(MEMBERS_ONLY);
    },
  );
});
