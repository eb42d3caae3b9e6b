// `/cngn delegate` over signed HTTP with the real Bolt app and the fake Slack: a delegation is filed
// as a request another approver approves in the channel (not its delegator, not its delegate); then
// the delegate is told of what they may approve, approves it with the channel's own button, and the
// message, the thread and the audit log say "on behalf of"; above the cap or after a revocation the
// click changes nothing; `/cngn policy` and `/cngn delegate` show it.
import { describe, expect } from 'vitest';
import { lagosTime } from '../../../src/format/display.js';
import { botTest } from '../../support/bot.js';
import { Clock } from '../../support/engine.js';
import type { SlackCall } from '../../support/fake-slack.js';
import { commandAnswer, homeOpened } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalApp,
  approve,
  click,
  fileWithdrawal,
  startApprovalApp,
  waitUntil,
} from '../approvals/support.js';

const CHIDI = 'UCHIDI'; // an approver who is away
const BOLA = 'UBOLA'; // not an approver: Chidi's delegate
const DAYO = 'UDAYO'; // not an approver: Chidi's delegate in the first test, with no delegation before it
const DAY = 86_400_000;
const SHORT_DM = 'Slack would not show this request’s full message here';

/**
 * `fileApp`, one bot for the file, on `clock`, which the tests move forward; `delegation`, the test's
 * own: Chidi's to Bola for 3 days up to ₦500,000, filed and approved, and ended when the test ends.
 */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('clock', { scope: 'file' }, async ({}) => new Clock())
  .extend('fileApp', { scope: 'file' }, async ({ clock }, { onCleanup }) => {
    const app = await startApprovalApp({
      approvers: [APPROVER_A, CHIDI],
      tiers: '0:1,1000000:2',
      now: clock.now,
    });
    onCleanup(() => app.stop());
    return app;
  })
  .extend('delegation', async ({ fileApp: app, defer }) => {
    defer(() => endDelegationsTo(app, BOLA));
    const filed = await command(app, `delegate <@${BOLA}|bola> until 3d max ₦500,000`, CHIDI);
    const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'the delegation');
    await settled(app);
    return { id };
  });

const settled = async (app: ApprovalApp) => {
  await app.engine.idle();
  await app.approvals?.presenter?.idle();
  await app.approvals?.dms?.idle();
};

/** Ends Chidi's delegations to `delegate`, so the file's next test starts with none in effect. */
async function endDelegationsTo(app: ApprovalApp, delegate: string): Promise<void> {
  await app.engine.revokeDelegations(CHIDI, delegate);
  await settled(app);
}

/** Run `/cngn <text>` as `userId`; the private answer's text and blocks as one string. */
async function command(app: ApprovalApp, text: string, userId: string): Promise<string> {
  const answer = await commandAnswer(app, text, userId);
  expect(answer.body.response_type).toBe('ephemeral');
  return `${String(answer.body.text)} ${JSON.stringify(answer.body.blocks)}`;
}

/** The private answer to a click by `user`, after `before` ephemerals had been posted. */
async function privateAnswer(app: ApprovalApp, user: string, before: number): Promise<string> {
  const answer = await app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === user && app.slack.callsTo('chat.postEphemeral').indexOf(c) >= before,
  );
  return String(answer.body.text);
}

describe('/cngn delegate', () => {
  test('files the delegation as a request: its delegator and its delegate cannot approve it, another approver does', async ({
    fileApp: app,
    defer,
  }) => {
    defer(() => endDelegationsTo(app, DAYO));
    const filed = await command(app, `delegate <@${DAYO}|dayo> until 3d max ₦500,000`, CHIDI);
    const delegationId = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
    expect(delegationId).not.toBe('');
    expect(filed).toContain(`<@${DAYO}> may approve in your place once another approver`);
    await settled(app);
    const message = app.slack
      .messages(APPROVALS_CHANNEL)
      .find((m) => JSON.stringify(m).includes(delegationId));
    const shown = JSON.stringify(message);
    expect(shown).toContain('Delegation of approvals');
    expect(shown).toContain(`<@${CHIDI}>`);
    expect(shown).toContain('₦500,000.00');
    // Not in effect yet: the delegate's click is refused.
    const listed = await command(app, 'delegate', DAYO);
    expect(listed).toContain('none');
    expect(listed).toContain(`Waiting for another approver's approval*\\n• \`${delegationId}\``);

    let before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${delegationId}:0`, CHIDI);
    expect(await privateAnswer(app, CHIDI, before)).toContain('You filed');
    before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${delegationId}:0`, DAYO);
    // No delegation is Dayo's yet: the access gate refuses the click before the engine is asked.
    expect(await privateAnswer(app, DAYO, before)).toContain('needs the *approver* role');

    await approve(app, `${delegationId}:0`, APPROVER_A);
    await waitUntil(
      async () => (await app.engine.get(delegationId))?.state === 'completed',
      'the delegation',
    );
    await settled(app);
    const live = await app.engine.liveDelegations();
    expect(live.map((d) => [d.delegator, d.delegate, d.max])).toEqual([[CHIDI, DAYO, '500000.00']]);
    // The delegate hears it took effect, and so does the delegator.
    await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        c.body.channel === DAYO &&
        String(c.body.text).startsWith(`<@${CHIDI}> delegated their approvals to you`) &&
        String(c.body.text).includes('up to ₦500,000.00') &&
        // The way out names the other person, as the command needs them.
        String(c.body.text).includes(`Give it up any time with \`/cngn delegate revoke\` <@${CHIDI}>.`),
    );
    await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        c.body.channel === CHIDI &&
        String(c.body.text).includes('Your delegation is in effect') &&
        String(c.body.text).includes(`End it any time with \`/cngn delegate revoke\` <@${DAYO}>.`),
    );
  });

  test('lists it for both people and for approvers, and `/cngn policy` shows it with its window and cap', async ({
    fileApp: app,
    delegation,
  }) => {
    expect(delegation.id).toMatch(/^AR-/);
    for (const user of [BOLA, CHIDI, APPROVER_A]) {
      const list = await command(app, 'delegate', user);
      expect(list).toContain(`<@${CHIDI}> → <@${BOLA}> until`);
      expect(list).toContain('up to ₦500,000.00 per request');
    }
    expect(await command(app, 'delegate', 'USOMEONE')).not.toContain(`<@${BOLA}>`);
    const policy = await command(app, 'policy', 'USOMEONE');
    expect(policy).toContain('Active delegations*: 1');
    expect(policy).toContain(`<@${CHIDI}> → <@${BOLA}> until`);
    expect(policy).toContain('in 3 days');
  });

  test('lets the delegate approve within the cap in the delegator’s place, said on the message, in the thread and in the audit log', async ({
    fileApp: app,
    delegation,
  }) => {
    const id = await fileWithdrawal(app, '1500');
    // The delegate is told, like an approver, and in whose place they approve, until when.
    const dm = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === BOLA && JSON.stringify(c.body.blocks ?? []).includes(`${id}:0`),
    );
    const [live] = await app.engine.liveDelegations();
    expect(live?.id).toBe(delegation.id);
    const place = `asks for your approval (you approve in <@${CHIDI}>'s place until ${lagosTime(live?.until ?? '')}): `;
    expect(String(dm.body.text)).toContain(place);
    expect(JSON.stringify(dm.body.blocks)).toContain(JSON.stringify(place).slice(1, -1));
    // An approver in their own right is asked plainly.
    const asked = await app.slack.waitFor(
      'chat.postMessage',
      (c) => c.body.channel === APPROVER_A && JSON.stringify(c.body.blocks ?? []).includes(`${id}:0`),
    );
    expect(String(asked.body.text)).toMatch(/asks for your approval: /);
    // App Home lists it as waiting for the delegate, with the delegation in effect.
    expect((await homeOpened(app.sender, BOLA)).status).toBe(200);
    const home = await app.slack.waitFor(
      'views.publish',
      (c) => c.body.user_id === BOLA && JSON.stringify(c.body.view).includes(`${id}:0`),
    );
    expect(JSON.stringify(home.body.view)).toContain(`Delegations in effect*\\n• <@${CHIDI}> → <@${BOLA}>`);
    await approve(app, `${id}:0`, BOLA);
    await waitUntil(async () => (await app.engine.get(id))?.state !== 'pending', 'the approval');
    await settled(app);
    const request = await app.engine.get(id);
    expect(request?.approvals).toMatchObject([{ user: BOLA, onBehalfOf: CHIDI }]);
    const message = app.slack.messages(APPROVALS_CHANNEL).find((m) => JSON.stringify(m).includes(id));
    expect(JSON.stringify(message)).toContain(`<@${BOLA}> on behalf of <@${CHIDI}>`);
    await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        !!c.body.thread_ts &&
        String(c.body.text).startsWith(`Approved by <@${BOLA}> on behalf of <@${CHIDI}>`),
    );
    const audit = await command(app, 'audit 50', APPROVER_A);
    expect(audit).toContain(`*approved* by <@${BOLA}> on behalf of <@${CHIDI}>`);
  });

  test('says in whose place the delegate approves on a DM copy Slack takes only in short, down to its shortest form with buttons', async ({
    fileApp: app,
    delegation,
    defer,
  }) => {
    expect(delegation.id).toMatch(/^AR-/);
    const [live] = await app.engine.liveDelegations();
    const place = `You approve in <@${CHIDI}>'s place until ${lagosTime(live?.until ?? '')}.`;
    // Slack refuses the delegate's copies but the form `takes` accepts.
    let takes = (c: SlackCall) => JSON.stringify(c.body.blocks).includes(SHORT_DM);
    app.slack.on('chat.postMessage', (c) =>
      c.body.channel === BOLA && c.body.blocks && !takes(c)
        ? { body: { ok: false, error: 'msg_too_long' } }
        : undefined,
    );
    defer(() => app.slack.on('chat.postMessage', () => undefined));
    const copyTo = async (id: string, test: (c: SlackCall) => boolean) => {
      const copy = await app.slack.waitFor(
        'chat.postMessage',
        (c) => c.body.channel === BOLA && JSON.stringify(c.body.blocks ?? []).includes(id) && test(c),
      );
      const shown = JSON.stringify(copy.body.blocks);
      expect(shown).toContain(JSON.stringify(place).slice(1, -1));
      expect(String(copy.body.text)).toContain(place);
      return shown;
    };
    // The short form, with the full copy's buttons.
    const short = await fileWithdrawal(app, '1234');
    expect(await copyTo(short, takes)).toContain('approval.approve');
    // The minimal form: the request's id and its Reject only.
    takes = (c) => String(c.body.text).startsWith('Request ');
    const minimal = await fileWithdrawal(app, '1357');
    const shown = await copyTo(minimal, takes);
    expect(shown).toContain('approval.reject');
    expect(shown).not.toContain('approval.approve');
    await settled(app);
  });

  test('stops the delegate at the gate for what only an approver in their own right does (freeze, unfreeze)', async ({
    fileApp: app,
    delegation,
  }) => {
    expect(delegation.id).toMatch(/^AR-/);
    const froze = await command(app, 'freeze a look-alike address was approved', BOLA);
    expect(froze).toContain('the *approver* role');
    expect(froze).not.toContain('Frozen');
    expect(await app.engine.currentFreeze()).toBeUndefined();
    expect(await command(app, 'unfreeze', BOLA)).toContain('the *approver* role');
  });

  test('refuses the delegate above the cap, and after revocation; a revocation is said and audited', async ({
    fileApp: app,
    delegation: { id: delegationId },
  }) => {
    const large = await fileWithdrawal(app, '600000');
    let before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${large}:0`, BOLA);
    expect(await privateAnswer(app, BOLA, before)).toContain('above the cap');
    expect((await app.engine.get(large))?.approvals).toEqual([]);

    const small = await fileWithdrawal(app, '1000');
    const posted = app.slack.callsTo('chat.postMessage').length;
    const since = (c: SlackCall) => app.slack.callsTo('chat.postMessage').indexOf(c) >= posted;
    expect(await command(app, `delegate revoke <@${BOLA}|bola>`, CHIDI)).toContain('Revoked at once');
    before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${small}:0`, BOLA);
    expect(await privateAnswer(app, BOLA, before)).toContain('has ended');
    expect((await app.engine.get(small))?.state).toBe('pending');
    await settled(app);
    expect(await command(app, 'policy', 'USOMEONE')).toContain('Active delegations*: none');
    const audit = await command(app, 'audit 50', APPROVER_A);
    expect(audit).toContain(`${delegationId} delegation: *delegation-revoked* by <@${CHIDI}>`);
    await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        since(c) && !!c.body.thread_ts && String(c.body.text).startsWith(`Delegation revoked by <@${CHIDI}>`),
    );
    await app.slack.waitFor(
      'chat.postMessage',
      (c) =>
        since(c) && c.body.channel === BOLA && String(c.body.text).includes(`was revoked by <@${CHIDI}>`),
    );
  });

  test('refuses after the window: a new delegation ends on time, read against the clock at the click', async ({
    fileApp: app,
    clock,
  }) => {
    const filed = await command(app, `delegate ${BOLA} until 12h`, CHIDI);
    const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
    await approve(app, `${id}:0`, APPROVER_A);
    await waitUntil(async () => (await app.engine.get(id))?.state === 'completed', 'the delegation');
    const request = await fileWithdrawal(app, '2000');
    clock.advance(DAY / 2);
    const before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${request}:0`, BOLA);
    expect(await privateAnswer(app, BOLA, before)).toContain('has ended');
    expect((await app.engine.get(request))?.approvals).toEqual([]);
  });

  test('refuses to approve a delegation whose window has already ended: its request expired with it', async ({
    fileApp: app,
    clock,
  }) => {
    const filed = await command(app, `delegate ${BOLA} until 6h`, CHIDI);
    const id = /AR-[0-9A-F]{10}/.exec(filed)?.[0] ?? '';
    clock.advance(DAY / 4);
    const opened = app.slack.callsTo('views.open').length;
    const before = app.slack.callsTo('chat.postEphemeral').length;
    await click(app, 'approval.approve', `${id}:0`, APPROVER_A);
    const said = await privateAnswer(app, APPROVER_A, before);
    expect(said).toContain('expired before it was approved');
    // No review opened, nothing recorded, and no delegation in effect.
    expect(app.slack.callsTo('views.open').length).toBe(opened);
    expect(await app.engine.get(id)).toMatchObject({ state: 'expired', approvals: [] });
    expect((await app.engine.liveDelegations()).filter((d) => d.id === id)).toEqual([]);
  });

  test('answers what it cannot read, and refuses a delegation by someone who is not an approver', async ({
    fileApp: app,
  }) => {
    expect(await command(app, 'delegate bola until 3d', CHIDI)).toContain('Person: mention them');
    expect(await command(app, `delegate <@${BOLA}> for 3d`, CHIDI)).toContain('Until: say until when');
    expect(await command(app, `delegate <@${BOLA}> until 2026-02-30`, CHIDI)).toContain('is not a real date');
    expect(await command(app, `delegate <@${BOLA}> until 3d max 1.234`, CHIDI)).toContain(
      'Max: enter an amount',
    );
    // `1,0000` is not read as ₦10,000.
    expect(await command(app, `delegate <@${BOLA}> until 3d max 1,0000`, CHIDI)).toContain(
      'Max: commas go between groups of three digits',
    );
    // One amount after `max`: `500000 0` is not read as ₦5,000,000.
    const open = (await app.engine.openRequests()).length;
    const extra = await command(app, `delegate <@${BOLA}> until 3d max 500000 0`, CHIDI);
    expect(extra).toContain('Max: give one amount after `max`; `0` is more than that');
    expect(extra).not.toContain('Filed');
    expect((await app.engine.openRequests()).length).toBe(open);
    expect(await command(app, `delegate <@${CHIDI}> until 3d`, CHIDI)).toContain('yourself');
    expect(await command(app, `delegate <@UEKENE> until 3d`, BOLA)).toContain(
      'Only an approver can delegate',
    );
    for (const until of ['200d', '99999999999d', '999999999999w']) {
      expect(await command(app, `delegate <@${BOLA}> until ${until}`, CHIDI), until).toContain(
        'at most 90 days',
      );
    }
  });

  test('shows its usage as typed: no `<…>` of its own that Slack would read as a link', async ({
    fileApp: app,
  }) => {
    // Only the bot's own mentions (`<@…>`, `<#…>`, `<!…>`) may stand in raw angle brackets.
    const raw = /<(?![@#!])/;
    for (const [text, words] of [
      [`delegate <@${BOLA}> for 3d`, 'until &lt;date|duration&gt; [max &lt;amount&gt;]'],
      [`delegate <@${BOLA}> until 3d cap 5`, 'say `max &lt;amount&gt;`'],
      ['delegate', 'until &lt;2026-12-24|7d&gt; [max &lt;amount&gt;]'],
      ['delegate revoke', 'until &lt;date|duration&gt;'],
    ] as const) {
      const answer = await command(app, text, CHIDI);
      expect(answer).toContain(words);
      expect(answer).not.toMatch(raw);
    }
  });
});
