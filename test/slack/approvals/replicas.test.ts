// Two bot replicas sharing one store (Redis, PostgreSQL), each with its own Bolt app and client: 50 approvals spread
// over both still make exactly one service call. And a restart on SQLite finishes what was started.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { partsOf } from '../../../src/approvals/engine-parts.js';
import { Money } from '../../../src/format/money.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { createStore } from '../../../src/store/index.js';
import { approvalsTest } from '../../support/approvals-bot.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { inMemoryDir } from '../../support/fixtures.js';
import { STORE_KINDS } from '../../support/shared-stores.js';
import { approveTogether, tallyAnswers, toldTheyLost } from './race.js';
import { APPROVER_A, APPROVER_B, approve, fileWithdrawal, waitUntil } from './support.js';

/**
 * `pair`, two replicas' handles on the test's shared store; `restart`, the test's own SQLite file's
 * folder, sandbox and fake Slack, which outlive the bot as it stops and starts on that file (each
 * restart test counts the service's calls from none, in any order); `boot()`, the bot on that file.
 */
const test = approvalsTest
  .extend('pair', async ({ replicas }) => replicas('approvals-slack-replicas'))
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('restart', async ({}, { onCleanup }) => {
    // In memory where the system has one: a restart here closes the file, so no commit needs a disk's sync.
    const dir = inMemoryDir();
    const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    const slack = await FakeSlack.start();
    onCleanup(async () => {
      await slack.stop();
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    return { dir, sandbox, slack };
  })
  /** The bot on the SQLite file in `restart`'s folder; `stop` stops it and closes the file. */
  .extend('boot', async ({ startApp, restart: { dir, sandbox, slack }, defer }) => async () => {
    const store = await createStore(`sqlite://${join(dir, 'desk.sqlite')}`);
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= store.close());
    defer(close);
    const app = await startApp({ sandbox, slack, store });
    const stop = async () => {
      await app.stop();
      await close();
    };
    return { app, stop };
  });

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`two replicas on one ${name}`, () => {
    test.override('storeKind', name);

    // A hundred signed Slack requests through two apps on one store: about a second on a quiet machine,
    // tens of seconds when every core is busy (a cap, not a timing assertion; waits are on outcomes).
    test('approves once and makes one withdrawal call when 50 approvals over both replicas reach the request together', {
      timeout: 600_000,
    }, async ({ startApp, sandbox, slack, controls, pair }) => {
      const a = await startApp({ sandbox, slack, store: controls.wrap(pair.a) });
      const b = await startApp({ sandbox, slack, store: controls.wrap(pair.b) });
      const id = await fileWithdrawal(a, '1500.50');
      // Each replica's engine tells its listeners once per change it persisted: once per accepted click.
      let accepted = 0;
      for (const replica of [a, b]) {
        replica.engine.onChange(async (r) => {
          if (r.id === id && r.history.at(-1)?.action === 'approved') accepted += 1;
        });
      }
      // 50 reviews, 25 on each replica, submitted together (race.ts); the losers are told why.
      const privately = () => slack.callsTo('chat.postEphemeral').map((c) => String(c.body.text));
      const answers = await approveTogether({
        id,
        controls,
        reviewer: (i) => ({ replica: i % 2 ? a : b, user: i % 3 ? APPROVER_A : APPROVER_B }),
        state: async () => (await b.engine.get(id))?.state,
        privately,
      });
      // Generous waits on outcomes: a hundred requests through two bots on a busy machine take a while,
      // and the send may wait out a minute of the service's budget that the reviews' reads used up.
      // If it does not come, the failure says where the request stood and what each click was told.
      const where = async () => {
        const request = await b.engine.get(id);
        return `state ${request?.state}, ${request?.approvals.length} approval(s), ${accepted} accepted, withdraw calls ${sandbox.count('POST', '/v1/api/withdraw')}; ${tallyAnswers(answers, privately)}`;
      };
      await waitUntil(async () => (await b.engine.get(id))?.state === 'sent', 'sent', 240_000).catch(
        async (error: Error) => {
          throw new Error(`${error.message}: ${await where()}`);
        },
      );
      await Promise.all([a.engine.idle(), b.engine.idle()]);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      expect(accepted).toBe(1);
      // Every click but the one accepted is told it lost: none is left unanswered.
      const told = () => toldTheyLost(answers, privately);
      await waitUntil(async () => told() >= answers.length - 1, 'all losers told', 240_000).catch(
        async (error: Error) => {
          throw new Error(`${error.message} (${told()} told): ${await where()}`);
        },
      );
      expect(told()).toBe(answers.length - 1);
      const sent = sandbox.requests.filter((r) => r.path === '/v1/api/withdraw');
      expect(sent[0]?.plainBody).toMatchObject({ amount: 1500.5 });
      await a.stop();
      await b.stop();
    });
  });
}

describe('restart on SQLite', () => {
  test('sends an approved-but-unsent request after a restart, once, and completes a sent one', async ({
    boot,
    restart: { sandbox, slack },
  }) => {
    const first = await boot();
    const approvedOnly = await fileWithdrawal(first.app, '1200');
    const alreadySent = await fileWithdrawal(first.app, '1300');
    await approve(first.app, alreadySent, APPROVER_A);
    await waitUntil(async () => (await first.app.engine.get(alreadySent))?.state === 'sent', 'sent');
    // Approved, but the bot stops before it claims the call.
    await partsOf(first.app.engine).core.approve(approvedOnly, APPROVER_A);
    await first.stop();
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    await sandbox.settleAll(); // the settlement webhook went nowhere while the bot was down

    const second = await boot();
    await second.app.engine.idle();
    expect((await second.app.engine.get(approvedOnly))?.state).toBe('sent');
    expect((await second.app.engine.get(alreadySent))?.state).toBe('completed');
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(2);
    await slack.waitFor('chat.postMessage', (c) => String(c.body.text).includes('has settled'));
    // The one sent after the restart settles too, from its webhook, with no second call.
    sandbox.setWebhookUrl(`${second.app.baseUrl}/webhooks/cngn`);
    await sandbox.settleAll();
    await waitUntil(
      async () => (await second.app.engine.get(approvedOnly))?.state === 'completed',
      'completed',
    );
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(2);
    await second.stop();
  });

  test('never resends a request the bot had claimed when it stopped; it finds it in the transaction list', async ({
    boot,
    restart: { sandbox, slack },
  }) => {
    const first = await boot();
    const id = await fileWithdrawal(first.app, '3100.10');
    await partsOf(first.app.engine).core.approve(id, APPROVER_A);
    const claimed = await partsOf(first.app.engine).executor.claimExecution(id);
    if (claimed?.kind !== 'withdraw') throw new Error('not claimed');
    if (!(await partsOf(first.app.engine).executor.markSending(claimed))) throw new Error('not marked');
    // The call reached the service, then the bot died before it could record the answer.
    const { amount: _amount, ...rest } = claimed.payload;
    await first.app.client.withdraw({ ...rest, amount: Money.parseDecimal(claimed.payload.amount) });
    await first.stop();
    const calls = sandbox.count('POST', '/v1/api/withdraw');

    const second = await boot();
    await second.app.engine.idle();
    const found = await second.app.engine.get(id);
    expect(found?.history.map((h) => h.action)).toEqual(
      expect.arrayContaining(['interrupted', 'reconciled']),
    );
    expect(found?.state).toBe('sent');
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(calls);
    await slack.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Found in the transaction list'),
    );
    await second.stop();
  });
});
