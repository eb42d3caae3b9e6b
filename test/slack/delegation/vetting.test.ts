// Delegates are vetted, over signed HTTP with the real Bolt app and the fake Slack: a delegation to a
// guest, a bot, a deactivated account or a member of another workspace is refused when filed (nothing
// filed, nobody told); one whose delegate (or delegator) later becomes a guest, is deactivated or turns
// out external is ended at once on the record, when Slack says so or at the periodic re-read, and its
// delegate is sent no request's figures afterwards; one still waiting for approval is cancelled.
import type { WebClient } from '@slack/web-api';
import { describe, expect, test, vi } from 'vitest';
import { REVOKED_ACTION } from '../../../src/approvals/index.js';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { DelegateVetting } from '../../../src/slack/delegation/membership.js';
import { People } from '../../../src/slack/runtime/people.js';
import { botTest } from '../../support/bot.js';
import { BOT_USER, EXTERNAL, GUEST, OTHER_TEAM } from '../../support/fake-slack.js';
import { commandAnswer, eventDelivery, userChanged } from '../../support/slack-requests.js';
import { APPROVER_A, type ApprovalApp, approve, fileWithdrawal, waitUntil } from '../approvals/support.js';

const CHIDI = 'UCHIDI'; // an approver who is away
const BOLA = 'UBOLA'; // a member, not an approver: Chidi's delegate
const GONE = 'UGONE'; // a deactivated account
const NOBODY = 'UNOSUCH'; // an id Slack does not know

const start = (startApp: (o: { approvers: string[] }) => Promise<ApprovalApp>) =>
  startApp({ approvers: [APPROVER_A, CHIDI] });

async function command(app: ApprovalApp, text: string, user: string): Promise<string> {
  return String((await commandAnswer(app, text, user)).body.text);
}

/** Chidi delegates to `delegate`, Approver A approves it: the delegation request's id, once in effect. */
async function delegated(app: ApprovalApp, delegate = BOLA): Promise<string> {
  const filed = await command(app, `delegate <@${delegate}|someone> until 3d`, CHIDI);
  const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0];
  if (!id) throw new Error(`not filed: ${filed}`);
  await approve(app, `${id}:0`, APPROVER_A);
  await waitUntil(async () => (await app.engine.liveDelegations()).length === 1, 'the delegation');
  return id;
}

/** The delegation is ended on the record: a step with no actor saying why, and its audit entry. */
async function endedOnRecord(app: ApprovalApp, id: string, note: string): Promise<void> {
  await waitUntil(async () => (await app.engine.liveDelegations()).length === 0, 'the end of the delegation');
  const step = (await app.engine.get(id))?.history.at(-1);
  expect(step).toMatchObject({ action: REVOKED_ACTION, note });
  expect(step?.actor).toBeUndefined();
  await app.engine.idle();
  const entry = (await app.engine.audit(50)).find((e) => e.requestId === id && e.action === REVOKED_ACTION);
  expect(entry).toMatchObject({ note });
  expect(entry?.actor).toBeUndefined();
}

/** A withdrawal filed now asks its approvers by DM; the one who may no longer act is not among them. */
async function toldNothingNew(app: ApprovalApp, user: string): Promise<void> {
  const id = await fileWithdrawal(app, '901');
  // Approver A's DM goes out in the same pass as any other's.
  await app.slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body.blocks ?? []).includes(id),
  );
  await app.approvals?.dms?.idle();
  const toThem = app.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === user && JSON.stringify(c.body).includes(id));
  expect(toThem).toEqual([]);
}

describe('filing a delegation', () => {
  botTest(
    'is refused to a guest, a bot, a deactivated account, another workspace’s member and an unknown id',
    async ({ startApp }) => {
      const app = await start(startApp);
      app.slack.people.set(GONE, { deleted: true });
      app.slack.on('users.info', (call) =>
        call.body.user === NOBODY ? { body: { ok: false, error: 'user_not_found' } } : undefined,
      );
      const refusals: Array<[string, string]> = [
        [GUEST, 'is a guest of the workspace'],
        [BOT_USER, 'is a bot'],
        [GONE, 'is deactivated'],
        [EXTERNAL, 'is not a member of Treasury'],
        [NOBODY, 'is not a member of Treasury'],
      ];
      for (const [user, why] of refusals) {
        expect(await command(app, `delegate <@${user}|someone> until 7d`, CHIDI)).toBe(
          `Person: <@${user}> ${why}; only a full member of Treasury can be a delegate. Nothing was filed.`,
        );
      }
      expect(await app.engine.openRequests()).toEqual([]);
      const told = app.slack
        .callsTo('chat.postMessage')
        .filter((c) => refusals.some(([user]) => c.body.channel === user));
      expect(told).toEqual([]);
      // A member is accepted, so the refusals above were the person's.
      expect(await command(app, `delegate <@${BOLA}|bola> until 7d`, CHIDI)).toContain('Filed');
    },
  );
});

describe('a delegation in effect', () => {
  botTest(
    'ends at once when Slack says its delegate was made a guest, and the guest is told nothing more',
    async ({ startApp }) => {
      const app = await start(startApp);
      const id = await delegated(app);
      app.slack.people.set(BOLA, { guest: true });
      expect((await userChanged(app.sender, { id: BOLA, is_restricted: true })).status).toBe(200);
      await endedOnRecord(app, id, 'ended by the bot: its delegate is a guest of the workspace');
      await toldNothingNew(app, BOLA);
      // The delegator hears why; the message says it too.
      await app.slack.waitFor(
        'chat.postMessage',
        (c) =>
          c.body.channel === CHIDI &&
          String(c.body.text) ===
            `Your delegation to <@${BOLA}> was ended by the bot: its delegate is a guest of the workspace; it is no longer in effect.`,
      );
      // Its message and its thread say it once: that the bot ended it, and why.
      const ts = (await app.engine.get(id))?.announcement?.ts;
      await app.slack.waitFor(
        'chat.update',
        (c) =>
          c.body.ts === ts &&
          JSON.stringify(c.body).includes(
            ': no longer in effect — its delegate is a guest of the workspace"',
          ),
      );
      await app.slack.waitFor(
        'chat.postMessage',
        (c) =>
          c.body.thread_ts === ts &&
          String(c.body.text) === 'Delegation ended by the bot — its delegate is a guest of the workspace',
      );
    },
  );

  botTest(
    'ends at once when a delegate turns out to be of another workspace (team_join)',
    async ({ startApp }) => {
      const app = await start(startApp);
      const id = await delegated(app);
      app.slack.people.set(BOLA, { team: OTHER_TEAM });
      await eventDelivery(app.sender, { type: 'team_join', user: { id: BOLA, team_id: OTHER_TEAM } });
      await endedOnRecord(app, id, 'ended by the bot: its delegate is not a member of Treasury');
      await toldNothingNew(app, BOLA);
    },
  );

  botTest(
    'is cancelled while it waits for approval when its delegate is made a guest: on the record and its message',
    async ({ startApp }) => {
      const app = await start(startApp);
      const filed = await command(app, `delegate <@${BOLA}|bola> until 3d`, CHIDI);
      const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
      await waitUntil(async () => (await app.engine.get(id))?.announcement !== undefined, 'its message');
      app.slack.people.set(BOLA, { guest: true });
      await userChanged(app.sender, { id: BOLA, is_restricted: true });
      const reason = 'cancelled by the bot: its delegate is a guest of the workspace';
      await waitUntil(async () => (await app.engine.get(id))?.state === 'cancelled', 'the cancellation');
      const step = (await app.engine.get(id))?.history.at(-1);
      expect(step).toMatchObject({ state: 'cancelled', action: 'delegation-withdrawn', note: reason });
      expect(step?.actor).toBeUndefined();
      await app.engine.idle();
      const entry = (await app.engine.audit(50)).find(
        (e) => e.requestId === id && e.action === 'delegation-withdrawn',
      );
      expect(entry).toMatchObject({ note: reason });
      // Its message in the channel says so, in place.
      const ts = (await app.engine.get(id))?.announcement?.ts;
      await app.slack.waitFor(
        'chat.update',
        (c) => c.body.ts === ts && JSON.stringify(c.body).includes(`Reason: ${reason}`),
      );
      // Its thread says it once, that the bot cancelled it and why.
      await app.slack.waitFor(
        'chat.postMessage',
        (c) =>
          c.body.thread_ts === ts &&
          String(c.body.text) === 'Cancelled by the bot — its delegate is a guest of the workspace',
      );
      // The delegator hears why.
      await app.slack.waitFor(
        'chat.postMessage',
        (c) =>
          c.body.channel === CHIDI &&
          String(c.body.text) === `Your delegation to <@${BOLA}> was ${reason}; nothing is in effect.`,
      );
      // Too late to approve: nothing takes effect.
      await approve(app, `${id}:0`, APPROVER_A);
      expect((await app.engine.get(id))?.state).toBe('cancelled');
      expect(await app.engine.liveDelegations()).toEqual([]);
    },
  );

  botTest(
    'is cancelled at the periodic re-read while it waits for approval when its delegate was deactivated',
    async ({ startApp }) => {
      const app = await start(startApp);
      const filed = await command(app, `delegate <@${BOLA}|bola> until 3d`, CHIDI);
      const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
      app.slack.people.set(BOLA, { deleted: true });
      await app.approvals?.vetting?.sweep();
      expect((await app.engine.get(id))?.history.at(-1)).toMatchObject({
        state: 'cancelled',
        note: 'cancelled by the bot: its delegate was deactivated',
      });
    },
  );

  botTest(
    'ends at the periodic re-read when a delegate was deactivated and no event came',
    async ({ startApp }) => {
      const app = await start(startApp);
      const id = await delegated(app);
      app.slack.people.set(BOLA, { deleted: true });
      // Nothing changes until Slack is asked again.
      expect(await app.engine.liveDelegations()).toHaveLength(1);
      await app.approvals?.vetting?.sweep();
      await endedOnRecord(app, id, 'ended by the bot: its delegate was deactivated');
    },
  );

  botTest(
    'ends when its delegator was made a guest: nobody approves in a guest’s place',
    async ({ startApp }) => {
      const app = await start(startApp);
      const id = await delegated(app);
      app.slack.people.set(CHIDI, { guest: true });
      await userChanged(app.sender, { id: CHIDI, is_restricted: true });
      await endedOnRecord(app, id, 'ended by the bot: its delegator is a guest of the workspace');
    },
  );

  botTest(
    'stays when a delegate’s account changed in a way that keeps them a member',
    async ({ startApp }) => {
      const app = await start(startApp);
      await delegated(app);
      app.slack.people.set(BOLA, { name: 'Bola A.' });
      await userChanged(app.sender, { id: BOLA, real_name: 'Bola A.' });
      await app.approvals?.vetting?.sweep();
      expect(await app.engine.liveDelegations()).toHaveLength(1);
    },
  );
});

describe('an approval a delegate gave before they were barred', () => {
  botTest(
    'stops counting: the request goes back to its approvers, so the next approval sends nothing, and the audit says why',
    async ({ startApp }) => {
      const app = await startApp({ approvers: [APPROVER_A, CHIDI], tiers: '0:1,1000:2' });
      await delegated(app);
      const id = await fileWithdrawal(app, '1500');
      await approve(app, `${id}:0`, BOLA);
      await waitUntil(
        async () => (await app.engine.get(id))?.approvals.length === 1,
        'the delegate’s approval',
      );
      app.slack.people.set(BOLA, { guest: true });
      await userChanged(app.sender, { id: BOLA, is_restricted: true });
      const why =
        'an approval given through a delegation no longer counts: its delegate is a guest of the workspace; approve again';
      await waitUntil(
        async () => (await app.engine.get(id))?.history.at(-1)?.action === 'sent-back',
        'sent back',
      );
      const back = await app.engine.get(id);
      expect(back).toMatchObject({ state: 'pending', approvals: [], round: 1, reason: why });
      // The other approver's click on the message as it stands now is one approval of the two needed.
      await approve(app, `${id}:${back?.round}`, APPROVER_A);
      await waitUntil(async () => (await app.engine.get(id))?.approvals.length === 1, 'the approval');
      expect(await app.engine.get(id)).toMatchObject({ state: 'pending', approvals: [{ user: APPROVER_A }] });
      await app.engine.idle();
      const entry = (await app.engine.audit(50)).find((e) => e.requestId === id && e.action === 'sent-back');
      expect(entry).toMatchObject({ note: why });
      expect(entry?.actor).toBeUndefined();
    },
  );
});

describe('an account change', () => {
  const waiting = {
    kind: 'delegation',
    state: 'pending',
    payload: { delegator: CHIDI, delegate: BOLA, until: '2026-12-01T00:00:00.000Z' },
  } as unknown as ApprovalRequest;
  const vetting = () => {
    const engine = {
      liveDelegations: vi.fn(async () => []),
      openRequests: vi.fn(async () => [waiting]),
      endDelegationsOf: vi.fn(async () => []),
      onChange: vi.fn(),
    };
    const client = {
      users: { info: async () => ({ user: { id: BOLA, team_id: 'T1', is_restricted: true } }) },
    };
    const people = new People(client as unknown as WebClient, { home: { teamId: 'T1', team: 'Treasury' } });
    return { engine, vetting: new DelegateVetting({ engine, people }) };
  };

  test('that leaves its person able to act (a profile edit) reads no open request', async () => {
    const { engine, vetting: v } = vetting();
    await v.changed(BOLA, { id: BOLA, team_id: 'T1', real_name: 'Bola A.' });
    expect(engine.liveDelegations).toHaveBeenCalledTimes(1);
    expect(engine.openRequests).not.toHaveBeenCalled();
    expect(engine.endDelegationsOf).not.toHaveBeenCalled();
  });

  test('that bars its person cancels the delegation waiting for approval they are party to', async () => {
    const { engine, vetting: v } = vetting();
    await v.changed(BOLA, { id: BOLA, team_id: 'T1', is_restricted: true });
    expect(engine.endDelegationsOf).toHaveBeenCalledWith(BOLA, 'is a guest of the workspace');
    // Someone party to no delegation is not asked about.
    await v.changed('UOTHER', { id: 'UOTHER', team_id: 'T1', deleted: true });
    expect(engine.endDelegationsOf).toHaveBeenCalledTimes(1);
  });
});
