// A store restored from a backup taken while a request was approved holds it approved again, though
// it was sent since. Started on the restored store, the bot looks it up in the transaction list
// before sending it (its approval is older than the claim lease by then) and sends nothing twice. A
// rejection of it on the restored store is recorded (nothing will be sent), and the lookup made after
// it finds the transaction: a person is alerted with its reference to correct the books by hand.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS } from '../../src/approvals/executor.js';
import { LOOKED_UP_BEFORE_SENDING, STOPPED_BUT_FOUND_ACTION } from '../../src/approvals/index.js';
import { createStore } from '../../src/store/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const STORE_FILE = 'desk.sqlite';

/**
 * `dir`, a folder of the test's own for the SQLite file and its backup; `startBot(laterMs)`, one bot on
 * that file, its clock `laterMs` ahead of real time, and `stopBot(bot)`; a bot still running at the
 * end is stopped then.
 */
const test = engineTest
  .extend('dir', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'approvals-restore-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('bots', async ({ dir, startEngine, defer }) => {
    const startBot = async (laterMs = 0): Promise<EngineFixture> => {
      const store = await createStore(`sqlite://${join(dir, STORE_FILE)}`);
      let closed: Promise<void> | undefined;
      const closeStore = () => (closed ??= store.close());
      defer(closeStore);
      const fx = await startEngine({ store });
      fx.clock.advance(laterMs);
      return {
        ...fx,
        close: async () => {
          await fx.close();
          await closeStore();
        },
      };
    };
    const stopBot = (fx: EngineFixture): Promise<void> => fx.close();
    return { startBot, stopBot };
  });

/** The store's files, copied with the bot stopped, as docs/backup-and-upgrade.md says to back it up. */
function copyStore(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) {
    const source = join(from, STORE_FILE + suffix);
    const target = join(to, STORE_FILE + suffix);
    rmSync(target, { force: true });
    if (existsSync(source)) copyFileSync(source, target);
  }
}

type Bots = {
  startBot: (laterMs?: number) => Promise<EngineFixture>;
  stopBot: (fx: EngineFixture) => Promise<void>;
};

/**
 * A withdrawal of `amount` approved, the bot stopped before sending it and the store backed up in
 * `backup`; the next start sends it and stops. Returns its id and the request as that start left it.
 */
async function sentAfterBackup({ startBot, stopBot }: Bots, dir: string, amount: string) {
  const first = await startBot();
  const [networkId] = await twoNetworks(first.client);
  const filed = await fileDraft(first.engine, withdrawalDraft(networkId, amount));
  await partsOf(first.engine).core.approve(filed.id, APPROVER_A); // approved; the bot stops before sending
  await stopBot(first);
  copyStore(dir, join(dir, 'backup'));

  const second = await startBot();
  await second.engine.start();
  await second.engine.idle();
  const sent = await second.engine.get(filed.id);
  await stopBot(second);
  return { id: filed.id, sent };
}

/** The backup restored, and a bot started on it once the claim of its send has lapsed. */
async function startedOnBackup({ startBot }: Bots, dir: string): Promise<EngineFixture> {
  copyStore(join(dir, 'backup'), dir);
  return startBot(CLAIM_LEASE_MS + 60_000);
}

test('sends nothing twice when the store is restored from a backup taken while it was approved', async ({
  sandbox,
  dir,
  bots,
}) => {
  const withdrawCalls = () => sandbox.count('POST', '/v1/api/withdraw');
  const { id, sent } = await sentAfterBackup(bots, dir, '7890.12');
  expect(sent?.state).toBe('sent');
  expect(withdrawCalls()).toBe(1);

  const restored = await startedOnBackup(bots, dir);
  expect((await restored.engine.get(id))?.state).toBe('approved');
  await restored.engine.start();
  await restored.engine.idle();
  const after = await restored.engine.get(id);
  expect(after?.state).toBe('sent');
  expect(after?.outcome?.reference).toBe(sent?.outcome?.reference);
  expect(after?.history.at(-1)?.action).toBe(LOOKED_UP_BEFORE_SENDING);
  expect(withdrawCalls()).toBe(1);
  // The sweeps that follow send nothing either.
  restored.clock.advance(15 * 60_000);
  await restored.engine.tick();
  await restored.engine.idle();
  expect(withdrawCalls()).toBe(1);
});

test('a rejection of a request restored approved that went out since the backup is recorded, and a person is alerted with its reference', async ({
  sandbox,
  dir,
  bots,
}) => {
  const withdrawCalls = () => sandbox.count('POST', '/v1/api/withdraw');
  const { id, sent } = await sentAfterBackup(bots, dir, '7890.13');
  expect(sent?.state).toBe('sent');

  const restored = await startedOnBackup(bots, dir);
  expect((await restored.engine.get(id))?.state).toBe('approved');
  expect(await rejectAsSeen(restored.engine, id, APPROVER_B, 'not needed any more')).toMatchObject({
    ok: true,
  });
  await restored.engine.idle();
  const after = await restored.engine.get(id);
  expect(after?.state).toBe('rejected');
  const alerted = after?.history.filter((h) => h.action === STOPPED_BUT_FOUND_ACTION) ?? [];
  expect(alerted).toHaveLength(1);
  expect(alerted[0]?.note).toContain(String(sent?.outcome?.reference));
  expect(alerted[0]?.note).toContain('restored from a backup');
  expect(withdrawCalls()).toBe(1);
});
