// Reminders at points of a pending request's lifetime, sent once across two replicas on one store and
// across restarts; the requester's one Extend; expiry said to be final. Real Bolt over signed HTTP, the
// fake Slack, the embedded sandbox, and a clock the test moves.
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { createStore } from '../../../src/store/index.js';
import { approvalsTest } from '../../support/approvals-bot.js';
import { FakeSlack, type SlackCall } from '../../support/fake-slack.js';
import { STORE_KINDS } from '../../support/shared-stores.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  click,
  fileWithdrawal,
  OUTSIDER,
  REQUESTER,
  startApprovalApp,
  waitUntil,
} from './support.js';

const HOUR = 3_600_000;
const TTL = 10 * HOUR; // reminders at 50% (5 h) and 90% (9 h)

/** A clock the test moves forward; every replica in a test reads the same one. */
function testClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms: number) => {
      offset += ms;
    },
  };
}

const threadReplies = (slack: FakeSlack, what: string) =>
  slack
    .callsTo('chat.postMessage')
    .filter(
      (c) => c.body.channel === APPROVALS_CHANNEL && c.body.thread_ts && String(c.body.text).includes(what),
    );
const dmsTo = (slack: FakeSlack, user: string, what: string) =>
  slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === user && String(c.body.text).includes(what));
/** Reminder DMs about one request (approvers also get a DM when it is filed: CNGN_APPROVAL_NOTIFY). */
const remindersTo = (slack: FakeSlack, user: string, id: string) =>
  dmsTo(slack, user, id).filter((c) => String(c.body.text).includes('Reminder'));
const reminderSteps = (request: ApprovalRequest | undefined) =>
  (request?.history ?? []).filter((step) => step.action === 'reminder');

async function settle(...apps: ApprovalApp[]): Promise<void> {
  for (const app of apps) await app.engine.idle();
}

/**
 * `pair`, two replicas' handles on the test's store kind (on memory, the one store object both are
 * handed); `restart`, the sandbox, fake Slack and memory store the restart tests share, as the bot
 * stops and starts on them; `extending`, the one bot of the Extend tests and the clock it reads.
 */
const test = approvalsTest
  .extend('pair', async ({ replicas }) => replicas('approval-reminders'))
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('restart', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    const slack = await FakeSlack.start();
    const store = await createStore('memory://');
    onCleanup(async () => {
      await store.close();
      await slack.stop();
      await sandbox.stop();
    });
    return { sandbox, slack, store };
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('extending', { scope: 'file' }, async ({}, { onCleanup }) => {
    const clock = testClock();
    const app = await startApprovalApp({ ttlMs: TTL, now: clock.now });
    onCleanup(() => app.stop());
    return { app, clock };
  });

for (const kind of STORE_KINDS.filter((k) => k.name !== 'SQLite')) {
  describe.skipIf(!kind.up)(`reminders on two replicas sharing one ${kind.name} store`, () => {
    test.override('storeKind', kind.name);

    test('reminds the approvers who have not acted once at each point, and the requester at the last', async ({
      startApp,
      sandbox,
      slack,
      pair,
    }) => {
      const clock = testClock();
      const options = { sandbox, slack, ttlMs: TTL, now: clock.now };
      const a = await startApp({ ...options, store: pair.a });
      const b = await startApp({ ...options, store: pair.b });
      const id = await fileWithdrawal(a, '1500.00');

      clock.advance(4 * HOUR);
      await Promise.all([a.engine.tick(), b.engine.tick()]);
      expect(reminderSteps(await a.engine.get(id))).toHaveLength(0);

      clock.advance(1 * HOUR + 60_000);
      await Promise.all([a.engine.tick(), b.engine.tick(), a.engine.tick(), b.engine.tick()]);
      await settle(a, b);
      await waitUntil(
        () => threadReplies(slack, 'Reminder 1 of 2').length > 0,
        'the first reminder in the thread',
      );
      await waitUntil(() => dmsTo(slack, APPROVER_B, 'Reminder').length > 0, 'the DMs');
      expect(reminderSteps(await a.engine.get(id))).toHaveLength(1);
      const first = threadReplies(slack, 'Reminder 1 of 2');
      expect(first).toHaveLength(1);
      // The approvers who may still act are named; the requester (also an approver here) is not.
      expect(String(first[0]?.body.text)).toContain(`<@${APPROVER_A}>`);
      expect(String(first[0]?.body.text)).toContain(`<@${APPROVER_B}>`);
      expect(String(first[0]?.body.text)).not.toContain(`<@${REQUESTER}>`);
      expect(dmsTo(slack, APPROVER_A, 'Reminder')).toHaveLength(1);
      expect(dmsTo(slack, APPROVER_B, 'Reminder')).toHaveLength(1);
      expect(dmsTo(slack, REQUESTER, 'still needs')).toHaveLength(0);

      // More sweeps before the next point change nothing.
      clock.advance(2 * HOUR);
      await Promise.all([a.engine.tick(), b.engine.tick()]);
      expect(reminderSteps(await b.engine.get(id))).toHaveLength(1);

      clock.advance(2 * HOUR);
      await Promise.all([a.engine.tick(), b.engine.tick(), a.engine.tick(), b.engine.tick()]);
      await settle(a, b);
      await waitUntil(() => dmsTo(slack, REQUESTER, 'still needs').length > 0, 'the requester told');
      await waitUntil(() => threadReplies(slack, 'Reminder 2 of 2').length > 0, 'the last reminder');
      expect(threadReplies(slack, 'Reminder 2 of 2')).toHaveLength(1);
      expect(dmsTo(slack, APPROVER_A, 'Reminder')).toHaveLength(2);
      expect(dmsTo(slack, APPROVER_B, 'Reminder')).toHaveLength(2);
      expect(dmsTo(slack, REQUESTER, 'still needs')).toHaveLength(1);
      const request = await a.engine.get(id);
      expect(reminderSteps(request)).toHaveLength(2);
      expect(request?.state).toBe('pending'); // nothing approved by itself
      expect(request?.approvals).toHaveLength(0);
      const audited = (await a.engine.audit(50)).filter((e) => e.requestId === id && e.action === 'reminder');
      expect(audited).toHaveLength(2);
      await a.stop();
      await b.stop();
    });
  });
}

describe('reminders across a restart', () => {
  test('sends a point missed while the bot was down once when it is back, and never again', async ({
    startApp,
    restart: { sandbox, slack, store },
  }) => {
    const clock = testClock();
    const options = { sandbox, slack, store, ttlMs: TTL, now: clock.now };
    const before = await startApp(options);
    const id = await fileWithdrawal(before, '2000.00');
    await before.stop();

    clock.advance(5 * HOUR + 60_000); // the 50% point passes while nothing runs
    const after = await startApp(options);
    await settle(after);
    await waitUntil(() => remindersTo(slack, APPROVER_A, id).length > 0, 'the missed reminder');
    await after.stop();
    const again = await startApp(options);
    await again.engine.tick();
    await settle(again);
    expect(reminderSteps(await again.engine.get(id))).toHaveLength(1);
    expect(remindersTo(slack, APPROVER_A, id)).toHaveLength(1);
    await again.stop();
  });

  test('sends only the latest point when several passed while the bot was down', async ({
    startApp,
    restart: { sandbox, slack, store },
  }) => {
    const clock = testClock();
    const options = { sandbox, slack, store, ttlMs: TTL, now: clock.now };
    const before = await startApp(options);
    const id = await fileWithdrawal(before, '2500.00');
    await before.stop();

    clock.advance(9 * HOUR + 60_000); // both points pass while nothing runs
    const after = await startApp(options);
    await settle(after);
    await waitUntil(() => dmsTo(slack, REQUESTER, id).length > 0, 'the requester told');
    const steps = reminderSteps(await after.engine.get(id));
    expect(steps.map((s) => s.reminder?.point)).toEqual([2]);
    expect(remindersTo(slack, APPROVER_B, id)).toHaveLength(1);
    await after.stop();
  });
});

describe('Extend and expiry', () => {
  const ephemeralTo = (app: ApprovalApp, user: string, what: string) =>
    app.slack
      .callsTo('chat.postEphemeral')
      .filter((c) => c.body.user === user && String(c.body.text).includes(what));
  const lastUpdate = (app: ApprovalApp, id: string): SlackCall | undefined =>
    app.slack
      .callsTo('chat.update')
      .filter((c) => JSON.stringify(c.body.blocks).includes(id))
      .at(-1);

  test('lets the requester extend once by the original lifetime; others and a second Extend are refused privately', async ({
    extending: { app, clock },
  }) => {
    const id = await fileWithdrawal(app, '3000.00');
    const filed = await app.engine.get(id);
    const posted = app.slack.callsTo('chat.postMessage').find((c) => String(c.body.text).includes(id));
    const blocks = JSON.stringify(posted?.body.blocks);
    expect(blocks).toContain('approval.extend');
    expect(blocks).toContain('/cngn policy');

    await click(app, 'approval.extend', id, OUTSIDER);
    await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === OUTSIDER);
    expect(ephemeralTo(app, OUTSIDER, 'Only the requester can extend')).toHaveLength(1);
    expect((await app.engine.get(id))?.expiresAt).toBe(filed?.expiresAt);

    clock.advance(6 * HOUR);
    await click(app, 'approval.extend', id, REQUESTER);
    await waitUntil(() => ephemeralTo(app, REQUESTER, 'now expires').length > 0, 'the requester told');
    const extended = await app.engine.get(id);
    expect(Date.parse(extended?.expiresAt ?? '')).toBe(Date.parse(filed?.expiresAt ?? '') + TTL);
    expect(extended?.extended?.actor).toBe(REQUESTER);
    await waitUntil(
      () => JSON.stringify(lastUpdate(app, id)?.body.blocks ?? '').includes('Extended by'),
      'shown',
    );
    expect(JSON.stringify(lastUpdate(app, id)?.body.blocks)).not.toContain('approval.extend');
    await waitUntil(
      () =>
        threadReplies(app.slack, 'Extended by').some((c) =>
          String(c.body.text).includes('cannot be extended again'),
        ),
      'the thread told',
    );
    const audited = (await app.engine.audit(50)).filter((e) => e.requestId === id && e.action === 'extended');
    expect(audited).toHaveLength(1);
    expect(audited[0]?.actor).toBe(REQUESTER);

    await click(app, 'approval.extend', id, REQUESTER);
    await waitUntil(() => ephemeralTo(app, REQUESTER, 'only once').length > 0, 'the second Extend refused');
    expect((await app.engine.get(id))?.expiresAt).toBe(extended?.expiresAt);
  });

  test('re-plans reminders over the extended window (the Extend to the new expiry)', async ({
    extending: { app, clock },
  }) => {
    const id = await fileWithdrawal(app, '3100.00');
    clock.advance(2 * HOUR);
    const done = await app.engine.extend(id, REQUESTER);
    expect(done.ok).toBe(true);
    // Window: 2 h → 20 h after filing; 50% falls at 11 h, 90% at 18.2 h.
    clock.advance(8 * HOUR); // 10 h: past the old 50% point, before the new one
    await app.engine.tick();
    expect(reminderSteps(await app.engine.get(id))).toHaveLength(0);
    clock.advance(1 * HOUR + 60_000);
    await app.engine.tick();
    expect(reminderSteps(await app.engine.get(id)).map((s) => s.reminder?.point)).toEqual([1]);
  });

  test('extends by a chosen duration with /cngn extend, never by more than the lifetime', async ({
    extending: { app },
  }) => {
    const id = await fileWithdrawal(app, '3200.00');
    const filed = await app.engine.get(id);
    const ask = async (text: string) => JSON.stringify((await commandAnswer(app, text, REQUESTER)).body);
    expect(await ask(`extend ${id} 11h`)).toContain('at most its original lifetime (10h)');
    expect((await app.engine.get(id))?.extended).toBeUndefined();
    expect(await ask(`extend ${id.toLowerCase()} 2h`)).toContain('now expires');
    const extended = await app.engine.get(id);
    expect(Date.parse(extended?.expiresAt ?? '')).toBe(Date.parse(filed?.expiresAt ?? '') + 2 * HOUR);
    expect(await ask(`extend ${id}`)).toContain('only once');
  });

  test('says in the thread and to the requester that expiry is final', async ({
    extending: { app, clock },
  }) => {
    const id = await fileWithdrawal(app, '3300.00');
    clock.advance(TTL + 60_000);
    await app.engine.tick();
    expect((await app.engine.get(id))?.state).toBe('expired');
    await waitUntil(
      () =>
        threadReplies(app.slack, 'Expiry is final').length > 0 &&
        dmsTo(app.slack, REQUESTER, id).some((c) => String(c.body.text).includes('Expiry is final')),
      'expiry said',
    );
    await click(app, 'approval.extend', id, REQUESTER);
    await waitUntil(
      () =>
        ephemeralTo(app, REQUESTER, 'no longer waiting').length +
          ephemeralTo(app, REQUESTER, 'expiry is final').length >
        0,
      'a late Extend refused',
    );
    expect((await app.engine.get(id))?.state).toBe('expired');
  });
});

describe('a reminder DM Slack refuses', () => {
  test('loses only that DM: the other approver, the thread and the requester still hear, and the sweep goes on', async ({
    startApp,
  }) => {
    const clock = testClock();
    // Approvers are told of the request in the channel only, so every DM here is a reminder.
    const app = await startApp({ ttlMs: TTL, now: clock.now, notify: 'channel' });
    app.slack.on('chat.postMessage', (call) =>
      call.body.channel === APPROVER_A ? { body: { ok: false, error: 'channel_not_found' } } : undefined,
    );
    const id = await fileWithdrawal(app, '4000.00');
    clock.advance(9 * HOUR + 60_000);
    await app.engine.tick();
    await waitUntil(() => dmsTo(app.slack, REQUESTER, 'still needs').length > 0, 'the requester told');
    expect(remindersTo(app.slack, APPROVER_B, id)).toHaveLength(1);
    expect(threadReplies(app.slack, 'Reminder 2 of 2')).toHaveLength(1);
    const refused = app.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === APPROVER_A);
    expect(refused).toHaveLength(1);
    // The next sweep neither repeats the reminder nor retries the refused DM.
    await app.engine.tick();
    expect(reminderSteps(await app.engine.get(id))).toHaveLength(1);
    expect(app.slack.callsTo('chat.postMessage').filter((c) => c.body.channel === APPROVER_A)).toHaveLength(
      1,
    );
  });
});
