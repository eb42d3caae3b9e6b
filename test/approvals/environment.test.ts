// A request is sent only to the environment (and with the API key) it was filed and approved for:
// filed in the sandbox and picked up after the switch to other credentials, it is closed, never sent.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine, ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import type { EngineLog } from '../../src/approvals/types.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  type AnotherOptions,
  APPROVER_A,
  engineTest,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

/** `another(options)`: a second engine on the test's store and sandbox, stopped before the first. */
const test = engineTest.extend('another', async ({ fx, defer }) => async (options: AnotherOptions) => {
  const { engine } = await fx.another(options);
  defer(() => engine.stop());
  return engine;
});

const withdrawal = (networkId: string, amount: string) => withdrawalDraft(networkId, amount);

/** The bot restarted on the same store with a `cngn_test_` key: the TEST environment. */
async function restartWithTestKey(
  another: (options: AnotherOptions) => Promise<ApprovalEngine>,
): Promise<ApprovalEngine> {
  const engine = await another({ environment: 'test' });
  await engine.start();
  await engine.idle();
  return engine;
}

test('never sends a sandbox request approved before a restart with a cngn_test_ key', async ({
  fx,
  networkId,
  another,
}) => {
  const approved = await fileDraft(fx.engine, withdrawal(networkId, '1500'));
  await partsOf(fx.engine).core.approve(approved.id, APPROVER_A); // approved, not yet sent: then the restart
  const pending = await fileDraft(fx.engine, withdrawal(networkId, '1600'));

  const live = await restartWithTestKey(another);
  expect(withdrawCalls(fx)).toBe(0);
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
  expect(withdrawCalls(fx)).toBe(0);
});

test('closes a sandbox request instead of approving it after the switch', async ({
  fx,
  networkId,
  another,
}) => {
  const request = await fileDraft(fx.engine, withdrawal(networkId, '1700'));
  const live = await another({ environment: 'test' });
  const result = await approveAsSeen(live, request.id, APPROVER_A);
  expect(result).toMatchObject({ ok: false, reason: 'not-pending', request: { state: 'cancelled' } });
  await live.idle();
  expect(withdrawCalls(fx)).toBe(0);
});

test('never executes a request filed under another API key of the same environment', async ({
  fx,
  networkId,
  another,
}) => {
  const before = await another({ engine: { keyId: 'key-before' } });
  const request = await fileDraft(before, withdrawal(networkId, '1800'));
  expect(request.keyId).toBe('key-before');
  await partsOf(before).core.approve(request.id, APPROVER_A);
  const after = await another({ engine: { keyId: 'key-after' } });
  await partsOf(after).executor.execute(request.id);
  expect(withdrawCalls(fx)).toBe(0);
  expect((await after.get(request.id))?.outcome?.reason).toContain('another API key');
});

test('keeps sandbox and test requests apart in listings', async ({ fx, networkId, another }) => {
  const sandboxed = await fileDraft(fx.engine, withdrawal(networkId, '1900'));
  const live = await another({ environment: 'test' });
  const own = await fileDraft(live, withdrawal(networkId, '2000'));
  expect((await live.openRequests()).map((r) => r.id)).toEqual([own.id]);
  expect((await fx.engine.openRequests()).map((r) => r.id)).toEqual([sandboxed.id]);
  expect((await live.audit(20)).map((e) => e.requestId)).toEqual([own.id]);
  expect((await fx.engine.audit(20)).map((e) => e.requestId)).toEqual([sandboxed.id]);
});

test('settles nothing from a report one of whose references is another environment’s request', async ({
  fx,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawal(networkId, '2100'));
  expect((await approveAsSeen(fx.engine, request.id, APPROVER_A)).ok).toBe(true);
  await fx.engine.idle();
  const sent = await fx.engine.get(request.id);
  expect(sent?.state).toBe('sent');
  const reference = sent?.outcome?.reference ?? '';
  // A test-environment request holds the transaction id the report names beside the sandbox reference.
  const repo = new ApprovalRepository(fx.store, 'test');
  const other = { ...(sent as ApprovalRequest), id: 'AR-OTHER-ENVIRONMENT', environment: 'test' as const };
  await repo.save(other, false);
  expect(await repo.indexReference('TX-OTHER-ENVIRONMENT', other.id)).toBeUndefined();
  const report = {
    name: 'withdrawal.completed',
    key: 'withdrawal.completed|TX-OTHER-ENVIRONMENT',
    references: [reference, 'TX-OTHER-ENVIRONMENT'],
    result: 'completed' as const,
    status: 'completed',
  };
  expect(await fx.engine.onCustodyReport(report)).toBeUndefined();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
});

/** A request sent in the sandbox, and an engine on the same store whose warnings are kept. */
async function sentWithWarnings(
  networkId: string,
  another: (options: AnotherOptions) => Promise<ApprovalEngine>,
  amount: string,
) {
  const warnings: { message: string; fields: unknown }[] = [];
  const log: EngineLog = { warn: (message, fields) => void warnings.push({ message, fields }) };
  const engine = await another({ engine: { log } });
  const request = await fileDraft(engine, withdrawal(networkId, amount));
  expect((await approveAsSeen(engine, request.id, APPROVER_A)).ok).toBe(true);
  await engine.idle();
  const sent = await engine.get(request.id);
  expect(sent?.state).toBe('sent');
  return { engine, sent: sent as ApprovalRequest, warnings };
}

test('warns, naming both requests and their environments, when a report names another environment’s', async ({
  fx,
  networkId,
  another,
}) => {
  const { engine, sent, warnings } = await sentWithWarnings(networkId, another, '2200');
  const repo = new ApprovalRepository(fx.store, 'test');
  const other = { ...sent, id: 'AR-TEST-NAMESAKE', environment: 'test' as const };
  await repo.save(other, false);
  expect(await repo.indexReference('TX-TEST-NAMESAKE', other.id)).toBeUndefined();
  const report = {
    name: 'withdrawal.completed',
    key: 'withdrawal.completed|TX-TEST-NAMESAKE',
    references: [sent.outcome?.reference ?? '', 'TX-TEST-NAMESAKE'],
    result: 'completed' as const,
    status: 'completed',
  };
  expect(await engine.onCustodyReport(report)).toBeUndefined();
  expect((await engine.get(sent.id))?.state).toBe('sent');
  const warning = warnings.find((w) => w.message.includes('not of this environment'));
  const text = JSON.stringify(warning?.fields);
  for (const word of [sent.id, 'sandbox', 'AR-TEST-NAMESAKE', '"test"', 'TX-TEST-NAMESAKE']) {
    expect(text).toContain(word);
  }
});

test('settles neither of two requests of its own environment that one report names, and warns', async ({
  fx,
  networkId,
  another,
}) => {
  const { engine, sent, warnings } = await sentWithWarnings(networkId, another, '2300');
  const repo = new ApprovalRepository(fx.store, 'sandbox');
  const namesake = { ...sent, id: 'AR-SANDBOX-NAMESAKE' };
  await repo.save(namesake, false);
  expect(await repo.indexReference('TX-SANDBOX-NAMESAKE', namesake.id)).toBeUndefined();
  const report = {
    name: 'withdrawal.completed',
    key: 'withdrawal.completed|TX-SANDBOX-NAMESAKE',
    references: [sent.outcome?.reference ?? '', 'TX-SANDBOX-NAMESAKE'],
    result: 'completed' as const,
    status: 'completed',
  };
  expect(await engine.onCustodyReport(report)).toBeUndefined();
  expect((await engine.get(sent.id))?.state).toBe('sent');
  const warning = warnings.find((w) => w.message.includes('two different requests'));
  expect(JSON.stringify(warning?.fields)).toContain('AR-SANDBOX-NAMESAKE');
  expect(JSON.stringify(warning?.fields)).toContain(sent.id);
});
