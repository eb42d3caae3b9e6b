// Outcome-unknown requests are settled from the transaction list only on a clear match (same kind,
// amount, destination and time; exactly one such transaction, however many pages back). Otherwise they
// stay unknown, and after enough checks a person is asked to check. Never resent.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository, type ApprovalRequest } from '../../src/approvals/index.js';
import type { CustodyGateway } from '../../src/approvals/ports.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  engineOn,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { slowWithdrawals } from '../support/slow-withdrawals.js';
import { CrashingStore } from './crashing-store.js';
import { ONE_SHORT_PAGE, withdrawDirectly } from './lookup-support.js';

/** A withdrawal whose answer never arrived: the sandbox acted on it, or (`refused`) it did not. */
async function unknownWithdrawal(
  fx: EngineFixture,
  networkId: string,
  amount: string,
  refused = false,
): Promise<ApprovalRequest> {
  if (refused) fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Bad Request Error');
  else fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  await approveAsSeen(fx.engine, request.id, APPROVER_A);
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  if (after?.state !== 'outcome-unknown') throw new Error(`not outcome-unknown: ${after?.state}`);
  return after;
}

const notices = async (fx: EngineFixture, id: string, action: string) =>
  ((await fx.engine.get(id))?.history ?? []).filter((h) => h.action === action);

test('does not take a bridge of the same amount to the same address for a lost withdrawal', async ({
  fx,
}) => {
  const networks = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networks[0], '1000', true);
  // A bridge with no quote moves ₦1,000 in the sandbox, to the same address: a swap, not a withdrawal.
  await fx.client.bridge({
    originNetworkId: networks[0],
    destinationNetworkId: networks[1],
    destinationAddress: DEST,
  });
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(1);
});

test('stays unknown and says so, once, when two transactions match', async ({ fx, networkId }) => {
  const request = await unknownWithdrawal(fx, networkId, '2345.60');
  await withdrawDirectly(fx, networkId, '2345.60');
  await fx.engine.tick();
  fx.clock.advance(15 * 60_000);
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  const said = await notices(fx, request.id, 'ambiguous-match');
  expect(said).toHaveLength(1);
  expect(said[0]?.note).toContain('2 transactions match');
  expect(withdrawCalls(fx)).toBe(2);
});

test('finds a lost withdrawal pages back in the transaction list', async ({ startEngine }) => {
  const fx = await startEngine({ engine: { reconcilePageSize: 2 } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networkId, '3456.70');
  for (const amount of ['11', '12', '13', '14']) await withdrawDirectly(fx, networkId, amount);
  await fx.engine.tick();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.map((h) => h.action)).toContain('reconciled');
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBeGreaterThan(1);
  expect(withdrawCalls(fx)).toBe(5);
});

test('finds a lost withdrawal pages back past a transaction listed without a created time', async ({
  startEngine,
}) => {
  const fx = await startEngine({ engine: { reconcilePageSize: 2 } });
  const [networkId] = await twoNetworks(fx.client);
  const real = custodyGateway(fx.client);
  // The schema lets a transaction come without its time: the newest one listed has none.
  const custody: CustodyGateway = {
    ...real,
    transactions: async (page, pageSize, options) => {
      const read = await real.transactions(page, pageSize, options);
      if (page !== 1) return read;
      const [newest, ...rest] = read.transactions;
      if (!newest) return read;
      const { createdAt: _none, ...undated } = newest;
      return { ...read, transactions: [undated, ...rest] };
    },
  };
  const { engine } = await fx.another({ engine: { custody, reconcilePageSize: 2 } });
  const request = await unknownWithdrawal(fx, networkId, '3456.71');
  for (const amount of ['11', '12', '13', '14']) await withdrawDirectly(fx, networkId, amount);
  await engine.tick();
  const after = await engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.map((h) => h.action)).toContain('reconciled');
  expect(withdrawCalls(fx)).toBe(5);
  await engine.stop();
});

test('asks a person to check after repeated inconclusive checks, once, and never resends', async ({
  startEngine,
}) => {
  const fx = await startEngine({ engine: { escalateAfterChecks: 3 } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networkId, '4567.80', true);
  for (let i = 0; i < 6; i++) {
    await fx.engine.tick();
    fx.clock.advance(15 * 60_000);
  }
  const asked = await notices(fx, request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('never send it again');
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(1);
});

test('counts only the checks the service answered before asking a person, and says the failed tries apart', async ({
  startEngine,
}) => {
  const fx = await startEngine({ engine: { escalateAfterChecks: 3 } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networkId, '4321.09', true);
  const pass = async () => {
    await fx.engine.tick();
    fx.clock.advance(15 * 60_000);
  };
  // Two passes whose read of the transaction list the service refuses: tries, not checks.
  for (let i = 0; i < 2; i++) {
    const reads = fx.sandbox.count('GET', '/v1/api/transactions');
    fx.sandbox.failNext('GET', '/v1/api/transactions', 400, 1, 'Bad Request Error');
    await pass();
    expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(reads + 1);
  }
  await pass();
  await pass();
  expect(await notices(fx, request.id, 'needs-manual-check')).toHaveLength(0);
  await pass();
  const asked = await notices(fx, request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain(
    'Still not confirmed after 3 checks with the service (and 2 more tries that failed',
  );
  expect(withdrawCalls(fx)).toBe(1);
});

test('asks a person once, after twice the checks bound in tries, when the service answers none of them', async ({
  startEngine,
}) => {
  const fx = await startEngine({ engine: { escalateAfterChecks: 3 } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networkId, '4322.10', true);
  // A key that lost its scope: every read of the transaction list is refused.
  fx.sandbox.failNext('GET', '/v1/api/transactions', 403, 1000, 'Forbidden');
  for (let i = 0; i < 8; i++) {
    await fx.engine.tick();
    fx.clock.advance(60 * 60_000);
  }
  const asked = await notices(fx, request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain(
    "Still not confirmed: the service has not answered the bot's last 6 checks (since",
  );
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect(withdrawCalls(fx)).toBe(1);
});

test('counts every check of a request stored before answered checks were counted as answered', async ({
  startEngine,
}) => {
  const fx = await startEngine({ engine: { escalateAfterChecks: 3 } });
  const [networkId] = await twoNetworks(fx.client);
  const request = await unknownWithdrawal(fx, networkId, '4323.11', true);
  const { answeredChecks: _none, ...older } = request;
  const repo = new ApprovalRepository(fx.store, request.environment);
  await repo.save({ ...older, checks: 2, nextCheckAt: fx.clock.now().toISOString() }, false);
  await fx.engine.tick();
  const asked = await notices(fx, request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('Still not confirmed after 3 checks with the service.');
  expect(asked[0]?.note).not.toContain('more tries');
});

test('says once that an unclear settlement change needs a manual check, reading nothing', async ({ fx }) => {
  fx.sandbox.dropResponse('PUT', '/v1/api/bank-account');
  const request = await fileDraft(fx.engine, {
    kind: 'settlement',
    payload: { bankName: 'GTBank', bankAccountName: 'To be resolved', bankAccountNumber: '0123456789' },
    display: { bankCode: '058' },
    requester: REQUESTER,
  });
  await approveAsSeen(fx.engine, request.id, APPROVER_A);
  await approveAsSeen(fx.engine, request.id, APPROVER_B); // sent back with the resolved name
  await approveAsSeen(fx.engine, request.id, APPROVER_A);
  await approveAsSeen(fx.engine, request.id, APPROVER_B);
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  const reads = fx.sandbox.requests.length;
  await fx.engine.tick();
  fx.clock.advance(60 * 60_000);
  await fx.engine.tick();
  const asked = await notices(fx, request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('settlement account on the service dashboard');
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect(fx.sandbox.requests.length).toBe(reads);
  expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(1);
});

test('does not settle a lost withdrawal from the transaction of the same payment filed again and still in flight', async ({
  fx,
  networkId,
}) => {
  const service = await slowWithdrawals(fx);
  const { engine } = service;
  // A: the service never acted on it, and its answer is unclear.
  fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Bad Request Error');
  const a = await fileDraft(engine, withdrawalDraft(networkId, '50000'));
  await approveAsSeen(engine, a.id, APPROVER_A);
  await engine.idle();
  expect((await engine.get(a.id))?.state).toBe('outcome-unknown');
  // B: the same payment filed again; its call makes the transaction, and its answer is late.
  service.slow();
  const b = await fileDraft(engine, withdrawalDraft(networkId, '50000'));
  await approveAsSeen(engine, b.id, APPROVER_A);
  const reference = await service.inList;
  await engine.tick();
  const lookedAt = await engine.get(a.id);
  expect(lookedAt?.state).toBe('outcome-unknown');
  expect(lookedAt?.history.find((h) => h.action === 'ambiguous-match')?.note).toContain(b.id);
  service.answer();
  await engine.idle();
  const sent = await engine.get(b.id);
  expect(sent?.state).toBe('sent');
  expect(sent?.outcome?.reference).toBe(reference);
  expect(sent?.conflicts ?? []).toEqual([]);
  expect(await partsOf(engine).core.repo.findIdByReference(reference)).toBe(b.id);
  // Looked at again, A finds nothing of its own: it stays unknown, for a person.
  fx.clock.advance(15 * 60_000);
  await engine.tick();
  expect((await engine.get(a.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(2);
  await engine.stop();
});

test(`keeps a reference recorded for one request when the answer to another request's call names it, and marks both for a person`, async ({
  fx,
  networkId,
}) => {
  const service = await slowWithdrawals(fx);
  const { engine } = service;
  const a = await unknownWithdrawal(fx, networkId, '7654.30', true);
  service.slow();
  const b = await fileDraft(engine, withdrawalDraft(networkId, '7654.30'));
  await approveAsSeen(engine, b.id, APPROVER_A);
  const reference = await service.inList;
  // Recorded as A's meanwhile (as a lookup without the rule for calls in flight did).
  await partsOf(engine).core.repo.indexReference(reference, a.id);
  service.answer();
  await engine.idle();
  const repo = partsOf(engine).core.repo;
  expect(await repo.findIdByReference(reference)).toBe(a.id);
  const answered = await engine.get(b.id);
  expect(answered?.state).toBe('sent');
  expect(answered?.conflicts?.[0]?.note).toContain(`already recorded as ${a.id}'s`);
  expect(answered?.history.at(-1)?.action).toBe('conflicting-reports');
  // Both steps are on the audit record: the answer (with its reference) and the mark.
  const audited = (await engine.audit(200)).filter((e) => e.requestId === b.id).map((e) => e.action);
  expect(audited).toEqual(expect.arrayContaining(['sent', 'conflicting-reports']));
  const holder = await engine.get(a.id);
  expect(holder?.conflicts?.[0]?.note).toContain(`${b.id}'s call`);
  expect(withdrawCalls(fx)).toBe(2);
  await engine.stop();
});

test(`writes the conflict mark with the answer naming another request's reference, and the holder's mark on the sweep when its write failed`, async ({
  fx,
  networkId,
}) => {
  const crashing = new CrashingStore(fx.store);
  const service = await slowWithdrawals(fx, false, crashing.store);
  const { engine } = service;
  const a = await unknownWithdrawal(fx, networkId, '7654.31', true);
  service.slow();
  const b = await fileDraft(engine, withdrawalDraft(networkId, '7654.31'));
  const told: ApprovalRequest[] = [];
  engine.onChange(async (request) => {
    if (request.id === b.id) told.push(request);
  });
  await approveAsSeen(engine, b.id, APPROVER_A);
  const reference = await service.inList;
  await partsOf(engine).core.repo.indexReference(reference, a.id);
  // The write of the holder's mark fails (as if the process stopped right after the answer's write).
  crashing.crashAt((method, key) => method === 'compareAndSet' && key === `approval:${a.id}`);
  service.answer();
  await engine.idle();
  const answered = await engine.get(b.id);
  const mark = answered?.conflicts?.[0];
  expect(mark?.note).toContain(`already recorded as ${a.id}'s`);
  // Approvers first hear of the answer with its mark on it.
  expect(told.find((request) => request.state === 'sent')?.conflicts).toEqual([mark]);
  expect((await engine.get(a.id))?.conflicts ?? []).toEqual([]);
  await engine.tick();
  const holder = await engine.get(a.id);
  expect(holder?.conflicts?.map((c) => c.key)).toEqual([mark?.key]);
  expect(holder?.conflicts?.[0]?.note).toContain(`${b.id}'s call`);
  await engine.tick();
  expect((await engine.get(a.id))?.conflicts).toHaveLength(1);
  // Polled, the answered request stays sent for a person: one transaction, never two completions.
  fx.clock.advance(60 * 60_000);
  await engine.tick();
  expect((await engine.get(b.id))?.state).toBe('sent');
  expect(withdrawCalls(fx)).toBe(2);
  await engine.stop();
});

test('does not settle on the one match of a transaction list read only part of the way back', async ({
  startEngine,
}) => {
  const { fx, networkId } = await engineOn(startEngine, ONE_SHORT_PAGE);
  // The same payment made just before the lost one, then another: only two fit on the page read.
  await withdrawDirectly(fx, networkId, '8765.40');
  const request = await unknownWithdrawal(fx, networkId, '8765.40');
  await withdrawDirectly(fx, networkId, '11');
  await fx.engine.tick();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('outcome-unknown');
  expect(after?.history.map((h) => h.action)).not.toContain('reconciled');
  expect(withdrawCalls(fx)).toBe(3);
});
