// A request is sent only to the environment (and with the API key) it was filed and approved for:
// filed in the sandbox and picked up after the switch to other credentials, it is closed, never sent.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine } from '../../src/approvals/index.js';
import { fileDraft } from '../support/filing.js';
import {
  APPROVER_A,
  type EngineFixture,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from './fixture.js';

let fx: EngineFixture;
let networkId: string;
const engines: ApprovalEngine[] = [];

beforeEach(async () => {
  fx = await startEngineFixture();
  [networkId] = await twoNetworks(fx.client);
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.stop();
  await fx.close();
});

const withdrawal = (amount: string) => withdrawalDraft(networkId, amount);

const withdrawCalls = () => fx.sandbox.count('POST', '/v1/api/withdraw');

/** The bot restarted on the same store with a `cngn_test_` key: the TEST environment. */
async function restartWithTestKey(): Promise<ApprovalEngine> {
  const { engine } = await fx.another({ environment: 'test' });
  engines.push(engine);
  await engine.start();
  await engine.idle();
  return engine;
}

it('never sends a sandbox request approved before a restart with a cngn_test_ key', async () => {
  const approved = await fileDraft(fx.engine, withdrawal('1500'));
  await partsOf(fx.engine).core.approve(approved.id, APPROVER_A); // approved, not yet sent: then the restart
  const pending = await fileDraft(fx.engine, withdrawal('1600'));

  const live = await restartWithTestKey();
  expect(withdrawCalls()).toBe(0);
  const failed = await live.get(approved.id);
  expect(failed?.state).toBe('failed');
  expect(failed?.outcome?.reason).toContain('filed for SANDBOX, but the bot now uses TEST credentials');
  expect((await live.get(pending.id))?.state).toBe('cancelled');
  // Audited where the request lives, in the sandbox's log.
  const audit = await fx.engine.audit(20);
  expect(audit.filter((e) => e.requestId === approved.id).map((e) => e.action)).toEqual([
    'filed',
    'approved',
    'failed',
  ]);
  await live.tick();
  expect(withdrawCalls()).toBe(0);
});

it('closes a sandbox request instead of approving it after the switch', async () => {
  const request = await fileDraft(fx.engine, withdrawal('1700'));
  const { engine: live } = await fx.another({ environment: 'test' });
  engines.push(live);
  const result = await live.approve(request.id, APPROVER_A);
  expect(result).toMatchObject({ ok: false, reason: 'not-pending', request: { state: 'cancelled' } });
  await live.idle();
  expect(withdrawCalls()).toBe(0);
});

it('never executes a request filed under another API key of the same environment', async () => {
  const { engine: before } = await fx.another({ engine: { keyId: 'key-before' } });
  engines.push(before);
  const request = await fileDraft(before, withdrawal('1800'));
  expect(request.keyId).toBe('key-before');
  await partsOf(before).core.approve(request.id, APPROVER_A);
  const { engine: after } = await fx.another({ engine: { keyId: 'key-after' } });
  engines.push(after);
  await partsOf(after).executor.execute(request.id);
  expect(withdrawCalls()).toBe(0);
  expect((await after.get(request.id))?.outcome?.reason).toContain('another API key');
});

it('keeps sandbox and test requests apart in listings', async () => {
  const sandboxed = await fileDraft(fx.engine, withdrawal('1900'));
  const { engine: live } = await fx.another({ environment: 'test' });
  engines.push(live);
  const own = await fileDraft(live, withdrawal('2000'));
  expect((await live.openRequests()).map((r) => r.id)).toEqual([own.id]);
  expect((await fx.engine.openRequests()).map((r) => r.id)).toEqual([sandboxed.id]);
  expect((await live.audit(20)).map((e) => e.requestId)).toEqual([own.id]);
  expect((await fx.engine.audit(20)).map((e) => e.requestId)).toEqual([sandboxed.id]);
});
