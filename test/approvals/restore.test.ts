// A store restored from a backup taken while a request was approved holds it approved again, though
// it was sent since. Started on the restored store, the bot looks it up in the transaction list
// before sending it (its approval is older than the claim lease by then) and sends nothing twice.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS } from '../../src/approvals/executor.js';
import { LOOKED_UP_BEFORE_SENDING } from '../../src/approvals/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import {
  APPROVER_A,
  type EngineFixture,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

let dir: string;
let sandbox: Sandbox;
const open: EngineFixture[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'approvals-restore-'));
  sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
});
afterEach(async () => {
  for (const fx of open.splice(0).reverse()) await fx.close();
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

const STORE_FILE = 'desk.sqlite';
const withdrawCalls = () => sandbox.count('POST', '/v1/api/withdraw');

/** One bot on the SQLite file, its clock `laterMs` ahead of real time. */
async function startBot(laterMs = 0): Promise<EngineFixture> {
  const store = await createStore(`sqlite://${join(dir, STORE_FILE)}`);
  const fx = await startEngineFixture({ sandbox, store });
  fx.clock.advance(laterMs);
  const bot = {
    ...fx,
    close: async () => {
      await fx.close();
      await store.close();
    },
  };
  open.push(bot);
  return bot;
}

async function stopBot(fx: EngineFixture): Promise<void> {
  open.splice(open.indexOf(fx), 1);
  await fx.close();
}

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

it('sends nothing twice when the store is restored from a backup taken while it was approved', async () => {
  const first = await startBot();
  const [networkId] = await twoNetworks(first.client);
  const filed = await fileDraft(first.engine, withdrawalDraft(networkId, '7890.12'));
  await partsOf(first.engine).core.approve(filed.id, APPROVER_A); // approved; the bot stops before sending
  await stopBot(first);
  copyStore(dir, join(dir, 'backup'));

  const second = await startBot();
  await second.engine.start();
  await second.engine.idle();
  const sent = await second.engine.get(filed.id);
  expect(sent?.state).toBe('sent');
  expect(withdrawCalls()).toBe(1);
  await stopBot(second);

  copyStore(join(dir, 'backup'), dir);
  const restored = await startBot(CLAIM_LEASE_MS + 60_000);
  expect((await restored.engine.get(filed.id))?.state).toBe('approved');
  await restored.engine.start();
  await restored.engine.idle();
  const after = await restored.engine.get(filed.id);
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
