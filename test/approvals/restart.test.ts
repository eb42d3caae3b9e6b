// A restart mid-way never loses a request and never sends twice: the bot stops between approval and
// send, between its claim and its write-ahead mark, between the mark and the call, during the call,
// and between send and settle; a new instance on the same SQLite file finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS, EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { Money } from '../../src/format/money.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  DEST,
  type EngineFixture,
  engineTest,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { DyingStore, writesPhase } from './dying-store.js';

type Instance = EngineFixture & { storeHandle: Store };

/**
 * `dir`, a folder of the test's own for the shared SQLite file; `bots`: `instance(dying)`, one bot
 * instance on that file (`dying` wraps its store so a test can kill it), `stop(bot)`,
 * `dyingAt(amount, phase)`, `withdrawal(amount)` on the network the last instance read and
 * `withdrawCalls()`; a bot still running at the end is stopped then.
 */
const test = engineTest
  .extend('dir', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'approvals-restart-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('bots', async ({ dir, sandbox, startEngine, defer }) => {
    let networkId = '';

    /** One bot instance on the shared SQLite file; `dying` wraps its store so a test can kill it. */
    const instance = async (dying?: (raw: Store) => Store): Promise<Instance> => {
      const store = await createStore(`sqlite://${join(dir, 'desk.sqlite')}`);
      let closed: Promise<void> | undefined;
      const closeStore = () => (closed ??= store.close());
      defer(closeStore);
      const fx = await startEngine({ store: dying ? dying(store) : store });
      [networkId] = await twoNetworks(fx.client);
      return {
        ...fx,
        storeHandle: store,
        close: async () => {
          await fx.close();
          await closeStore();
        },
        kill: async () => {
          await fx.kill();
          await closeStore();
        },
      };
    };

    const withdrawal = (amount: string) => withdrawalDraft(networkId, amount);

    const withdrawCalls = () => sandbox.count('POST', '/v1/api/withdraw');

    const stop = (fx: { close(): Promise<void> }): Promise<void> => fx.close();

    /** The process is gone: nothing of it runs on, and its hold on the SQLite file ends. */
    const killed = (fx: Instance): Promise<void> => fx.kill();

    /** A bot that dies right after writing its claim with the write-ahead mark in `phase`. */
    const dyingAt = async (amount: string, phase: 'claimed' | 'sending') => {
      let dying: DyingStore | undefined;
      const first = await instance((raw) => {
        dying = new DyingStore(raw);
        return dying.store;
      });
      if (!dying) throw new Error('no store');
      const request = await fileDraft(first.engine, withdrawal(amount));
      dying.dieAfter(writesPhase(request.id, phase));
      await approveAsSeen(first.engine, request.id, APPROVER_A); // the send starts in the background, then dies
      const finished = first.engine.idle().then(() => {
        throw new Error(`the bot finished without ever writing a ${phase} lease`);
      });
      await Promise.race([dying.died, finished]);
      await killed(first);
      return request;
    };

    return { instance, stop, dyingAt, withdrawal, withdrawCalls };
  });

test('sends an approved request after a restart, exactly once', async ({
  bots: { instance, stop, withdrawal, withdrawCalls },
}) => {
  const first = await instance();
  const request = await fileDraft(first.engine, withdrawal('1500.5'));
  await partsOf(first.engine).core.approve(request.id, APPROVER_A); // approved, not yet claimed: then the bot stops
  await stop(first);
  expect(withdrawCalls()).toBe(0);

  const second = await instance();
  await second.engine.start();
  await second.engine.idle();
  expect((await second.engine.get(request.id))?.state).toBe('sent');
  expect(withdrawCalls()).toBe(1);
});

test('never resends a request that was claimed when the bot stopped; it reconciles it instead', async ({
  sandbox,
  bots: { instance, stop, withdrawal, withdrawCalls },
}) => {
  const first = await instance();
  const [networkId] = await twoNetworks(first.client);
  const request = await fileDraft(first.engine, withdrawal('2500.75'));
  await partsOf(first.engine).core.approve(request.id, APPROVER_A);
  const claimed = await partsOf(first.engine).executor.claimExecution(request.id);
  if (!claimed || !(await partsOf(first.engine).executor.markSending(claimed))) throw new Error('not marked');
  // The call went out and the service acted on it, but the bot died before recording the answer.
  await first.client.withdraw({
    amount: Money.parse('2500.75'),
    address: DEST,
    networkId,
    shouldSaveAddress: false,
  });
  await stop(first);

  const second = await instance();
  await second.engine.start();
  await second.engine.idle();
  const found = await second.engine.get(request.id);
  expect(found?.history.map((h) => h.action)).toEqual(expect.arrayContaining(['interrupted', 'reconciled']));
  expect(found?.state).toBe('sent');
  await sandbox.settleAll();
  second.clock.advance(61_000);
  await second.engine.tick();
  expect((await second.engine.get(request.id))?.state).toBe('completed');
  expect(withdrawCalls()).toBe(1);
});

test('sends a request that was claimed but not yet marked as sending when the bot stopped, once', async ({
  bots: { instance, stop, withdrawal, withdrawCalls },
}) => {
  const first = await instance();
  const request = await fileDraft(first.engine, withdrawal('99'));
  await partsOf(first.engine).core.approve(request.id, APPROVER_A);
  await partsOf(first.engine).executor.claimExecution(request.id);
  await stop(first);

  const second = await instance();
  await second.engine.start();
  await second.engine.idle();
  const after = await second.engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.map((h) => h.action)).toEqual([
    'filed',
    'approved',
    'executing',
    'released',
    'executing',
    'sent',
  ]);
  expect(withdrawCalls()).toBe(1);
});

describe('a bot killed between its claim and the call', () => {
  test('before the write-ahead mark: nothing was sent, so exactly one of the next claimants sends it', async ({
    bots: { instance, dyingAt, withdrawCalls },
  }) => {
    const request = await dyingAt('1610', 'claimed');
    expect(withdrawCalls()).toBe(0);

    const second = await instance();
    const third = await second.another();
    await Promise.all([second.engine.start(), third.engine.start()]);
    await Promise.all([second.engine.idle(), third.engine.idle()]);
    // Its lease is still live: nobody can tell a dead claimant from a slow one yet.
    expect((await second.engine.get(request.id))?.state).toBe('executing');
    second.clock.advance(EXECUTION_LEASE_MS + 1);
    await Promise.all([second.engine.tick(), third.engine.tick()]);
    await Promise.all([second.engine.idle(), third.engine.idle()]);
    await third.engine.stop();
    const after = await second.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.history.filter((h) => h.action === 'released')).toHaveLength(1);
    expect(withdrawCalls()).toBe(1);
  });

  test('after the write-ahead mark: never sent again, and looked up in the transaction list at once', async ({
    sandbox,
    bots: { instance, dyingAt, withdrawCalls },
  }) => {
    const request = await dyingAt('1620', 'sending');
    expect(withdrawCalls()).toBe(0);
    const lookups = sandbox.count('GET', '/v1/api/transactions');

    const second = await instance();
    second.clock.advance(EXECUTION_LEASE_MS + 1);
    await second.engine.start();
    await second.engine.idle();
    const after = await second.engine.get(request.id);
    expect(after?.state).toBe('outcome-unknown');
    expect(after?.history.at(-1)?.action).toBe('interrupted');
    expect(after?.checks).toBe(1);
    expect(sandbox.count('GET', '/v1/api/transactions')).toBeGreaterThan(lookups);
    second.clock.advance(24 * 3_600_000);
    await second.engine.tick();
    await second.engine.idle();
    expect(withdrawCalls()).toBe(0);
  });
});

test('completes a sent request after a restart between send and settle', async ({
  sandbox,
  bots: { instance, stop, withdrawal, withdrawCalls },
}) => {
  const first = await instance();
  const request = await fileDraft(first.engine, withdrawal('300'));
  await approveAsSeen(first.engine, request.id, APPROVER_A);
  await first.engine.idle();
  expect((await first.engine.get(request.id))?.state).toBe('sent');
  await stop(first);

  await sandbox.settleAll(); // the webhook went nowhere while the bot was down
  const second = await instance();
  await second.engine.start();
  await second.engine.idle();
  expect((await second.engine.get(request.id))?.state).toBe('completed');
  expect(withdrawCalls()).toBe(1);
});

describe('an approved request nobody is sending', () => {
  test('sends it after a restart when the bot died between writing the claim and recording it', async ({
    bots: { instance, stop, withdrawal, withdrawCalls },
  }) => {
    const first = await instance();
    const request = await fileDraft(first.engine, withdrawal('1410'));
    await partsOf(first.engine).core.approve(request.id, APPROVER_A);
    // The claim key was written (as the bot always wrote it), then the bot died before saving "executing".
    await first.storeHandle.set(`approval-exec:${request.id}:0`, 'a-bot-that-died');
    await stop(first);

    const second = await instance();
    await second.engine.start();
    await second.engine.idle();
    const after = await second.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.history.find((h) => h.action === 'executing')?.note).toContain('taken over');
    expect(withdrawCalls()).toBe(1);
  });

  test('waits out the lease of a claim that may still be live, then exactly one process takes over', async ({
    bots: { instance, stop, withdrawal, withdrawCalls },
  }) => {
    const first = await instance();
    const request = await fileDraft(first.engine, withdrawal('1420'));
    await partsOf(first.engine).core.approve(request.id, APPROVER_A);
    await partsOf(first.engine).core.repo.claim(
      request.id,
      0,
      'a-bot-that-died',
      first.clock.now(),
      CLAIM_LEASE_MS,
    );
    await stop(first);

    const second = await instance();
    const third = await second.another();
    await second.engine.start();
    await second.engine.idle();
    expect((await second.engine.get(request.id))?.state).toBe('approved');
    expect(withdrawCalls()).toBe(0);

    second.clock.advance(CLAIM_LEASE_MS + 1);
    await Promise.all([second.engine.tick(), third.engine.tick()]);
    await Promise.all([second.engine.idle(), third.engine.idle()]);
    expect((await second.engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls()).toBe(1);
    const audit = (await second.engine.audit(20)).filter((e) => e.requestId === request.id);
    expect(audit.filter((e) => e.action === 'executing')).toHaveLength(1);
  });

  test('sends an approved request the sweep finds unstarted, once', async ({
    bots: { instance, withdrawal, withdrawCalls },
  }) => {
    const fx = await instance();
    const request = await fileDraft(fx.engine, withdrawal('1430'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A); // approved; its background start never ran
    await fx.engine.tick();
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls()).toBe(1);
  });
});
