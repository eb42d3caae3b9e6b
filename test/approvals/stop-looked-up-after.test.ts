// A stop (Reject, Cancel) of an approved request is recorded at the click, as nothing will be sent;
// after it, in the background, the request is looked for once in the service's transaction list. A
// match (it went out before a store restore, or was paid outside the bot) changes nothing on the
// request: the stop stands and a person is alerted once, with the references. A service that cannot
// be read is asked again at later sweeps, a few times, then given up with a notice for a person; a
// read that did not reach back to the approval gives that notice too. Queued stops share one read.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import {
  type ApprovalRequest,
  STOP_NOT_CHECKED_ACTION,
  STOPPED_BUT_FOUND_ACTION,
} from '../../src/approvals/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import { capturedLog } from '../support/captured-log.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { ONE_SHORT_PAGE, withdrawDirectly } from './lookup-support.js';

const listReads = (fx: EngineFixture) => fx.sandbox.count('GET', '/v1/api/transactions');
const found = (request: ApprovalRequest | undefined) =>
  request?.history.filter((h) => h.action === STOPPED_BUT_FOUND_ACTION) ?? [];
const notChecked = (request: ApprovalRequest | undefined) =>
  request?.history.filter((h) => h.action === STOP_NOT_CHECKED_ACTION) ?? [];

/** Approved, and not sent (the process that approved it stopped before sending). */
async function approved(fx: EngineFixture, networkId: string, amount: string): Promise<ApprovalRequest> {
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  const result = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!result.ok || result.request.state !== 'approved') throw new Error('not approved');
  return result.request;
}

async function sweep(fx: EngineFixture, laterMs = 0): Promise<void> {
  fx.clock.advance(laterMs);
  await fx.engine.tick();
  await fx.engine.idle();
}

test('a rejection of an approved request that nothing matches is recorded and alerts nobody', async ({
  fx,
  networkId,
}) => {
  const request = await approved(fx, networkId, '2345.61');
  const reads = listReads(fx);
  expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('rejected');
  expect(found(after)).toHaveLength(0);
  expect(listReads(fx)).toBeGreaterThan(reads);
  // Looked up once: later sweeps read nothing more for it.
  const looked = listReads(fx);
  await sweep(fx, 120_000);
  expect(listReads(fx)).toBe(looked);
  expect(withdrawCalls(fx)).toBe(0);
});

test('a payment made outside the bot that matches a rejected request alerts a person once; it stays rejected', async ({
  fx,
  networkId,
}) => {
  const request = await approved(fx, networkId, '2345.62');
  const outside = await withdrawDirectly(fx, networkId, '2345.62');
  expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, 'paid by hand')).toMatchObject({ ok: true });
  await fx.engine.idle();
  await sweep(fx, 120_000);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('rejected');
  expect(after?.outcome).toBeUndefined();
  expect(found(after)).toHaveLength(1);
  expect(found(after)[0]?.note).toContain(outside.trxRef);
  expect(found(after)[0]?.note).toContain('outside the bot');
  expect((await fx.engine.limitUse()).approved).toBe('0.00');
  expect(withdrawCalls(fx)).toBe(1);
});

test('a cancellation by the requester is looked up the same way', async ({ fx, networkId }) => {
  const request = await approved(fx, networkId, '2345.63');
  const outside = await withdrawDirectly(fx, networkId, '2345.63');
  expect(await fx.engine.cancel(request.id, REQUESTER)).toMatchObject({ ok: true });
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('cancelled');
  expect(found(after)[0]?.note).toContain(outside.trxRef);
});

test('a service that cannot be read is asked again at later sweeps, then given up with a notice for a person', async ({
  startEngine,
}) => {
  const log = capturedLog<{ message?: string; requestId?: string }>('info');
  const fx = await startEngine({ engine: { log: log.logger } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await approved(fx, networkId, '2345.64');
  await withdrawDirectly(fx, networkId, '2345.64');
  fx.sandbox.failNext('GET', '/v1/api/transactions', 403, 3, 'IP address not whitelisted');
  const reads = listReads(fx);
  expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect(listReads(fx)).toBe(reads + 1);
  // Not asked again before its minute is up.
  await sweep(fx);
  expect(listReads(fx)).toBe(reads + 1);
  await sweep(fx, 61_000);
  expect(listReads(fx)).toBe(reads + 2);
  await sweep(fx, 61_000);
  expect(listReads(fx)).toBe(reads + 3);
  expect(log.entries.some((e) => e.requestId === request.id && String(e.message).includes('given up'))).toBe(
    true,
  );
  await sweep(fx, 61_000);
  expect(listReads(fx)).toBe(reads + 3);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('rejected');
  expect(found(after)).toHaveLength(0);
  expect(notChecked(after)).toHaveLength(1);
  expect(notChecked(after)[0]?.note).toContain('could not be looked up');
});

test('stopped requests queued together are looked up from one read of the list per sweep', async ({
  fx,
  networkId,
}) => {
  const one = await approved(fx, networkId, '2345.65');
  const two = await approved(fx, networkId, '2345.66');
  fx.sandbox.failNext('GET', '/v1/api/transactions', 403, 2, 'IP address not whitelisted');
  expect(await rejectAsSeen(fx.engine, one.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect(await rejectAsSeen(fx.engine, two.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await fx.engine.idle();
  const reads = listReads(fx);
  await sweep(fx, 61_000);
  expect(listReads(fx)).toBe(reads + 1);
  for (const id of [one.id, two.id]) {
    const after = await fx.engine.get(id);
    expect([found(after), notChecked(after)]).toEqual([[], []]);
  }
  await sweep(fx, 61_000);
  expect(listReads(fx)).toBe(reads + 1);
});

test('a list read that does not reach back to the approval gives a notice for a person, not a quiet no match', async ({
  startEngine,
}) => {
  const fx = await startEngine(ONE_SHORT_PAGE);
  const [networkId] = await twoNetworks(fx.client);
  const request = await approved(fx, networkId, '2345.67');
  for (const amount of ['11.01', '11.02', '11.03']) await withdrawDirectly(fx, networkId, amount);
  expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, 'not needed')).toMatchObject({ ok: true });
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('rejected');
  expect(found(after)).toHaveLength(0);
  expect(notChecked(after)).toHaveLength(1);
  expect(notChecked(after)[0]?.note).toContain('could not be read back as far as its approval');
});
