// Outcome-unknown requests are settled from the transaction list only on a clear match (same kind,
// amount, destination and time; exactly one such transaction, however many pages back). Otherwise they
// stay unknown, and after enough checks a person is asked to check. Never resent.
import { afterEach, expect, it } from 'vitest';
import type { ApprovalEngineOptions, ApprovalRequest } from '../../src/approvals/index.js';
import { Money } from '../../src/format/money.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  REQUESTER,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

let fx: EngineFixture;
let networks: [string, string];

async function start(engine: Partial<ApprovalEngineOptions> = {}): Promise<void> {
  fx = await startEngineFixture({ engine });
  networks = await twoNetworks(fx.client);
}
afterEach(async () => {
  await fx.close();
});

const withdrawal = (amount: string) => withdrawalDraft(networks[0], amount);

const withdrawCalls = () => fx.sandbox.count('POST', '/v1/api/withdraw');

/** A withdrawal whose answer never arrived: the sandbox acted on it, or (`refused`) it did not. */
async function unknownWithdrawal(amount: string, refused = false): Promise<ApprovalRequest> {
  if (refused) fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Bad Request Error');
  else fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
  const request = await fileDraft(fx.engine, withdrawal(amount));
  await fx.engine.approve(request.id, APPROVER_A);
  await fx.engine.idle();
  const after = await fx.engine.get(request.id);
  if (after?.state !== 'outcome-unknown') throw new Error(`not outcome-unknown: ${after?.state}`);
  return after;
}

/** Another withdrawal made outside the bot. */
const withdrawDirectly = (amount: string, address = DEST) =>
  fx.client.withdraw({ amount: Money.parseDecimal(amount), address, networkId: networks[0] });

const notices = async (id: string, action: string) =>
  ((await fx.engine.get(id))?.history ?? []).filter((h) => h.action === action);

it('does not take a bridge of the same amount to the same address for a lost withdrawal', async () => {
  await start();
  const request = await unknownWithdrawal('1000', true);
  // A bridge with no quote moves ₦1,000 in the sandbox, to the same address: a swap, not a withdrawal.
  await fx.client.bridge({
    originNetworkId: networks[0],
    destinationNetworkId: networks[1],
    destinationAddress: DEST,
  });
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls()).toBe(1);
});

it('stays unknown and says so, once, when two transactions match', async () => {
  await start();
  const request = await unknownWithdrawal('2345.60');
  await withdrawDirectly('2345.60');
  await fx.engine.tick();
  fx.clock.advance(15 * 60_000);
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  const said = await notices(request.id, 'ambiguous-match');
  expect(said).toHaveLength(1);
  expect(said[0]?.note).toContain('2 transactions match');
  expect(withdrawCalls()).toBe(2);
});

it('finds a lost withdrawal pages back in the transaction list', async () => {
  await start({ reconcilePageSize: 2 });
  const request = await unknownWithdrawal('3456.70');
  for (const amount of ['11', '12', '13', '14']) await withdrawDirectly(amount);
  await fx.engine.tick();
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.map((h) => h.action)).toContain('reconciled');
  expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBeGreaterThan(1);
  expect(withdrawCalls()).toBe(5);
});

it('asks a person to check after repeated inconclusive checks, once, and never resends', async () => {
  await start({ escalateAfterChecks: 3 });
  const request = await unknownWithdrawal('4567.80', true);
  for (let i = 0; i < 6; i++) {
    await fx.engine.tick();
    fx.clock.advance(15 * 60_000);
  }
  const asked = await notices(request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('never send it again');
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls()).toBe(1);
});

it('says once that an unclear settlement change needs a manual check, reading nothing', async () => {
  await start();
  fx.sandbox.dropResponse('PUT', '/v1/api/bank-account');
  const request = await fileDraft(fx.engine, {
    kind: 'settlement',
    payload: { bankName: 'GTBank', bankAccountName: 'To be resolved', bankAccountNumber: '0123456789' },
    display: { bankCode: '058' },
    requester: REQUESTER,
  });
  await fx.engine.approve(request.id, APPROVER_A);
  await fx.engine.approve(request.id, APPROVER_B); // sent back with the resolved name
  await fx.engine.approve(request.id, APPROVER_A);
  await fx.engine.approve(request.id, APPROVER_B);
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  const reads = fx.sandbox.requests.length;
  await fx.engine.tick();
  fx.clock.advance(60 * 60_000);
  await fx.engine.tick();
  const asked = await notices(request.id, 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('settlement account on the service dashboard');
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect(fx.sandbox.requests.length).toBe(reads);
  expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(1);
});
