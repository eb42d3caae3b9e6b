// `/cngn freeze` and `/cngn unfreeze` through the real bot (signed HTTP, Bolt, the fake Slack, the
// real client against the sandbox): an approver's freeze stops every send and says so on the request
// message, `/cngn policy` and /healthz (still 200); the unfreeze is a request another approver than
// the one who froze approves, after which the held request goes out once. On Redis and PostgreSQL, a
// freeze on one replica stops sends on the other; on SQLite it holds across a restart, and
// CNGN_START_FROZEN starts frozen before anything a restored store holds is sent.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { START_FROZEN_ACTOR } from '../../../src/approvals/freeze.js';
import { createStore } from '../../../src/store/index.js';
import { botTest } from '../../support/bot.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { inMemoryDir } from '../../support/fixtures.js';
import { STORE_KINDS, storesTest } from '../../support/shared-stores.js';
import { commandAnswer } from '../../support/slack-requests.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  approve,
  fileWithdrawal,
  OUTSIDER,
  startApprovalApp,
  waitUntil,
} from '../approvals/support.js';

const REASON = 'a look-alike address was approved; checking';
const BANNER = `Frozen by <@${APPROVER_B}>: ${REASON}`;

/** Run `/cngn <text>` as `user` on `app`; resolves with its private answer as text. */
async function command(app: ApprovalApp, text: string, user: string): Promise<string> {
  const answer = await commandAnswer(app, text, user);
  expect(answer.body.response_type).toBe('ephemeral');
  return JSON.stringify(answer.body.blocks);
}

/** The request's message in the approvals channel as it shows now. */
function shown(app: ApprovalApp, id: string): string {
  const message = app.slack.messages(APPROVALS_CHANNEL).find((m) => m.text.includes(id));
  return JSON.stringify(message?.blocks ?? '');
}

/** Posted in the approvals channel (not in a thread), with `words` in it. */
const announced = (slack: FakeSlack, words: string) =>
  slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && String(c.body.text).includes(words),
  );

async function health(app: ApprovalApp): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${app.adminUrl}/healthz`);
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

const withdrawCalls = (app: ApprovalApp) => app.sandbox.count('POST', '/v1/api/withdraw');

describe('/cngn freeze', () => {
  botTest(
    'stops every send at once: the channel is told, the message carries the banner, an approval is held',
    async ({ app }) => {
      const id = await fileWithdrawal(app, '1500.50');
      const answer = await command(app, `freeze ${REASON}`, APPROVER_B);
      expect(answer).toContain('Frozen. From now on nothing is sent to the service');
      await announced(app.slack, 'Sends are frozen');
      await waitUntil(() => shown(app, id).includes(BANNER), 'the banner on the request message');

      await approve(app, id, APPROVER_A);
      await app.engine.idle();
      expect(withdrawCalls(app)).toBe(0);
      expect((await app.engine.get(id))?.state).toBe('approved');
      await waitUntil(() => shown(app, id).includes('Approved, held: sends are frozen'), 'held');
      expect(shown(app, id)).toContain(BANNER);

      expect(await command(app, 'policy', OUTSIDER)).toContain(BANNER);
      const healthz = await health(app);
      expect(healthz.status).toBe(200);
      expect(healthz.body).toMatchObject({ ok: true, frozen: { by: APPROVER_B, reason: REASON } });
      const audited = (await app.engine.audit(20)).filter((e) => e.kind === 'freeze');
      expect(audited.map((e) => [e.action, e.actor, e.note])).toEqual([['frozen', APPROVER_B, REASON]]);
    },
  );

  botTest(
    'is refused, privately and changing nothing, to someone who is no approver, without a reason, and twice',
    async ({ app }) => {
      expect(await command(app, `freeze ${REASON}`, OUTSIDER)).toContain('needs the *approver* role');
      expect(await command(app, 'freeze', APPROVER_A)).toContain('Reason: say why sends are frozen');
      expect(await app.engine.currentFreeze()).toBeUndefined();
      const answer = (await health(app)).body;
      expect(answer).toMatchObject({ ok: true, ready: true });
      expect(answer).not.toHaveProperty('frozen');
      await command(app, `freeze ${REASON}`, APPROVER_B);
      expect(await command(app, 'freeze something else', APPROVER_A)).toContain('Sends are already frozen');
      expect((await app.engine.currentFreeze())?.reason).toBe(REASON);
    },
  );

  botTest('shows outside text in the reason as typed, never as a mention or a link', async ({ app }) => {
    const id = await fileWithdrawal(app, '1200');
    await command(app, 'freeze <!channel> see <https://evil.example|the dashboard>', APPROVER_B);
    await waitUntil(() => shown(app, id).includes('Frozen by'), 'the banner');
    expect(shown(app, id)).toContain('&lt;!channel&gt;');
    expect(shown(app, id)).not.toContain('<!channel>');
    expect(shown(app, id)).not.toContain('<https://evil.example');
  });
});

describe('/cngn unfreeze', () => {
  botTest(
    'with two approvals needed, refuses one too few could approve, naming the one who can file it, and says who approves it',
    async ({ startApp }) => {
      const app = await startApp({ tiers: '0:2' });
      await command(app, `freeze ${REASON}`, APPROVER_B);
      // Approvers A, B and the requester: B froze, so an unfreeze A files could be approved only by one.
      const refused = await command(app, 'unfreeze', APPROVER_A);
      expect(refused).toContain(
        `An unfreeze you file could never be approved: it needs 2 approvals from approvers other than <@${APPROVER_B}> and you, and there is only 1. <@${APPROVER_B}>, who froze the sends, can file one that enough approvers can approve. Nothing was filed.`,
      );
      expect((await app.engine.openRequests()).some((r) => r.kind === 'unfreeze')).toBe(false);
      expect(await command(app, 'unfreeze', APPROVER_B)).toContain('once 2 other approvers approve it in');
    },
  );

  botTest(
    'is a request the approver who froze cannot approve; approved by another, sends resume and the held one goes out once',
    async ({ app }) => {
      expect(await command(app, 'unfreeze', APPROVER_A)).toContain('Sends are not frozen');
      const id = await fileWithdrawal(app, '2500');
      await command(app, `freeze ${REASON}`, APPROVER_B);
      await approve(app, id, APPROVER_A);
      await app.engine.idle();

      expect(await command(app, 'unfreeze', APPROVER_B)).toContain('once another approver approves it');
      const request = (await app.engine.openRequests()).find((r) => r.kind === 'unfreeze');
      if (!request) throw new Error('no unfreeze request');
      await waitUntil(() => shown(app, request.id).includes('Lift the freeze of sends'), 'its message');
      expect(await command(app, 'unfreeze', APPROVER_A)).toContain('An unfreeze is already waiting');

      const refused = await approve(app, request.id, APPROVER_B);
      expect(JSON.stringify(refused.told?.body)).toContain('You filed');
      expect(await app.engine.currentFreeze()).toBeDefined();
      expect(withdrawCalls(app)).toBe(0);

      await approve(app, request.id, APPROVER_A);
      await app.engine.idle();
      await announced(app.slack, 'Sends resume');
      expect(await app.engine.currentFreeze()).toBeUndefined();
      expect((await app.engine.get(id))?.state).toBe('sent');
      expect(withdrawCalls(app)).toBe(1);
      await waitUntil(() => !shown(app, id).includes('Frozen by'), 'the banner gone');
      const answer = (await health(app)).body;
      expect(answer).toMatchObject({ ok: true, ready: true });
      expect(answer).not.toHaveProperty('frozen');
      const audited = (await app.engine.audit(40)).filter((e) => e.kind === 'freeze');
      expect(audited.map((e) => [e.action, e.actor])).toEqual([
        ['frozen', APPROVER_B],
        ['unfrozen', APPROVER_A],
      ]);
    },
  );

  botTest('is refused to the approver who froze when someone else filed it', async ({ app }) => {
    await command(app, `freeze ${REASON}`, APPROVER_B);
    await command(app, 'unfreeze', APPROVER_A);
    const request = (await app.engine.openRequests()).find((r) => r.kind === 'unfreeze');
    if (!request) throw new Error('no unfreeze request');
    const refused = await approve(app, request.id, APPROVER_B);
    expect(JSON.stringify(refused.told?.body)).toContain('You froze the sends');
    expect(await app.engine.currentFreeze()).toBeDefined();
  });
});

/** Two replicas (their own Bolt app and client) on one store, one sandbox, one fake Slack. */
const replicaTest = storesTest.extend('twoReplicas', async ({ replicas, sandbox, defer }) => {
  const slack = await FakeSlack.start();
  defer(() => slack.stop());
  const { a, b } = await replicas('freeze-replicas');
  const first = await startApprovalApp({ sandbox, slack, store: a });
  defer(() => first.stop());
  const second = await startApprovalApp({ sandbox, slack, store: b });
  defer(() => second.stop());
  return { a: first, b: second };
});

for (const kind of STORE_KINDS.filter((k) => k.shared)) {
  describe.skipIf(!kind.up)(`two replicas on one ${kind.name}`, () => {
    replicaTest.override('storeKind', kind.name);

    replicaTest(
      'a freeze on one replica stops sends on the other, and an unfreeze approved there resumes them',
      async ({ twoReplicas: { a, b } }) => {
        const id = await fileWithdrawal(b, '3000');
        await command(a, `freeze ${REASON}`, APPROVER_B);
        await approve(b, id, APPROVER_A);
        await Promise.all([a.engine.idle(), b.engine.idle()]);
        await b.engine.tick();
        await b.engine.idle();
        expect(withdrawCalls(b)).toBe(0);
        expect((await b.engine.get(id))?.state).toBe('approved');
        expect(await command(b, 'policy', OUTSIDER)).toContain(BANNER);
        expect((await health(b)).body).toMatchObject({ frozen: { by: APPROVER_B } });

        await command(a, 'unfreeze', APPROVER_B);
        const request = (await b.engine.openRequests()).find((r) => r.kind === 'unfreeze');
        if (!request) throw new Error('no unfreeze request');
        await approve(b, request.id, APPROVER_A);
        await waitUntil(async () => (await a.engine.get(id))?.state === 'sent', 'sent');
        await Promise.all([a.engine.idle(), b.engine.idle()]);
        await a.engine.tick();
        await a.engine.idle();
        expect(withdrawCalls(b)).toBe(1);
      },
    );
  });
}

describe('across a restart on SQLite', () => {
  const sqliteTest = botTest.extend('boot', async ({ sandbox, defer }) => {
    // In memory where the system has one: a restart here closes the file, so no commit needs a disk's sync.
    const dir = inMemoryDir();
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return async (options: { startFrozen?: boolean } = {}) => {
      const store = await createStore(`sqlite://${join(dir, 'desk.sqlite')}`);
      const app = await startApprovalApp({ sandbox, slack, store, ...options });
      return {
        app,
        stop: async () => {
          await app.stop();
          await store.close();
        },
      };
    };
  });

  sqliteTest('the freeze holds after a restart: an approval then is held, not sent', async ({ boot }) => {
    const first = await boot();
    const id = await fileWithdrawal(first.app, '1800');
    await command(first.app, `freeze ${REASON}`, APPROVER_B);
    await first.stop();

    const second = await boot();
    try {
      expect(await second.app.engine.currentFreeze()).toMatchObject({ by: APPROVER_B, reason: REASON });
      await approve(second.app, id, APPROVER_A);
      await second.app.engine.idle();
      expect(withdrawCalls(second.app)).toBe(0);
      expect((await second.app.engine.get(id))?.state).toBe('approved');
      expect((await health(second.app)).body).toMatchObject({ frozen: { reason: REASON } });
    } finally {
      await second.stop();
    }
  });

  sqliteTest(
    'CNGN_START_FROZEN starts frozen before sending what a restored store holds approved',
    async ({ boot }) => {
      const first = await boot();
      const id = await fileWithdrawal(first.app, '1900');
      // Approved, but the bot stops before it sends it: as a backup taken then holds it.
      await partsOf(first.app.engine).core.approve(id, APPROVER_A);
      await first.stop();

      const second = await boot({ startFrozen: true });
      try {
        await second.app.engine.idle();
        expect(withdrawCalls(second.app)).toBe(0);
        expect((await second.app.engine.get(id))?.state).toBe('approved');
        expect(await second.app.engine.currentFreeze()).toMatchObject({ by: START_FROZEN_ACTOR });
        await announced(second.app.slack, 'Sends are frozen');
        const audited = (await second.app.engine.audit(20)).filter((e) => e.kind === 'freeze');
        expect(audited.map((e) => [e.action, e.actor])).toEqual([['frozen', START_FROZEN_ACTOR]]);
      } finally {
        await second.stop();
      }
    },
  );
});
