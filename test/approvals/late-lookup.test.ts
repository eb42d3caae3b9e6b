// A request whose final approval is older than the claim lease may have gone out already (its
// claimant stopped after the call, or the store was restored from a backup): it is looked for in the
// transaction list (or on the whitelist) before it is sent. A match settles it and nothing is sent;
// no match sends it once; a lookup that cannot be made sends nothing. A fresh approval reads nothing.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS, STALE_APPROVAL_MS } from '../../src/approvals/executor.js';
import {
  type ApprovalRequest,
  LOOKED_UP_BEFORE_SENDING,
  type RequestDraft,
} from '../../src/approvals/index.js';
import type { CustodyGateway } from '../../src/approvals/ports.js';
import { custodyGateway } from '../../src/cngn/custody-gateway.js';
import { Money } from '../../src/format/money.js';
import { stateWords } from '../../src/slack/ui/words.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  APPROVER_A,
  APPROVER_B,
  Clock,
  type EngineFixture,
  type EngineFixtureOptions,
  engineOn,
  REQUESTER,
  engineTest as test,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { slowWithdrawals } from '../support/slow-withdrawals.js';
import { CrashingStore } from './crashing-store.js';
import { ONE_SHORT_PAGE, withdrawDirectly } from './lookup-support.js';

const listReads = (fx: EngineFixture) => fx.sandbox.count('GET', '/v1/api/transactions');

/** Approved, and not sent: the process that approved it stopped before it could send. */
async function approved(fx: EngineFixture, draft: RequestDraft): Promise<ApprovalRequest> {
  const filed = await fileDraft(fx.engine, draft);
  const result = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!result.ok || result.request.state !== 'approved') throw new Error('not approved');
  return result.request;
}

/** A sweep, `laterMs` on. */
async function sweep(fx: EngineFixture, laterMs = 0): Promise<void> {
  fx.clock.advance(laterMs);
  await fx.engine.tick();
  await fx.engine.idle();
}

/** A sweep once the claim lease has passed: an approval is late. */
const sweepPastTheLease = (fx: EngineFixture) => sweep(fx, CLAIM_LEASE_MS + 1_000);

/**
 * A late approval of `amount` on `networkId`: approved, then the withdrawals `made` made outside the bot
 * (their references), then a sweep past the claim lease. What the request is after it.
 */
async function lateAfter(fx: EngineFixture, networkId: string, amount: string, made: string[]) {
  const request = await approved(fx, withdrawalDraft(networkId, amount));
  const references: string[] = [];
  for (const each of made) references.push((await withdrawDirectly(fx, networkId, each)).trxRef);
  await sweepPastTheLease(fx);
  return { request, references, after: await fx.engine.get(request.id) };
}

/**
 * On an engine that reads one short page of the list, a late approval of `amount` after the withdrawals
 * `before`: it is left to a person, the list too long to read back to its approval.
 */
async function leftAfterAShortRead(
  startEngine: (options: EngineFixtureOptions) => Promise<EngineFixture>,
  amount: string,
  before: string[],
): Promise<void> {
  const { fx, networkId } = await engineOn(startEngine, ONE_SHORT_PAGE);
  const { after } = await lateAfter(fx, networkId, amount, before);
  expect(after?.state).toBe('outcome-unknown');
  expect(after?.history.find((h) => h.action === LOOKED_UP_BEFORE_SENDING)?.note).toContain(
    'too long to read back',
  );
  expect(withdrawCalls(fx)).toBe(3);
}

test('settles a late approval found in the transaction list, without a second withdrawal', async ({
  fx,
  networkId,
}) => {
  const { request, references, after } = await lateAfter(fx, networkId, '1234.50', ['1234.50']);
  const [reference] = references;
  expect(after?.state).toBe('sent');
  expect(after?.outcome?.reference).toBe(reference);
  expect(after?.history.at(-1)).toMatchObject({ action: LOOKED_UP_BEFORE_SENDING, state: 'sent' });
  expect(after?.history.at(-1)?.note).toContain(`found in the transaction list as ${reference}`);
  expect(after?.history.map((h) => h.action)).not.toContain('executing');
  expect(withdrawCalls(fx)).toBe(1);
  // It is then followed like any sent request, and a webhook for it finds it by its reference.
  await fx.sandbox.settleAll();
  await sweep(fx, 61_000);
  expect((await fx.engine.get(request.id))?.state).toBe('completed');
  expect(withdrawCalls(fx)).toBe(1);
});

test('counts a request settled by the lookup from when the service made it, not from its filing', async ({
  fx,
  networkId,
}) => {
  const { references, after } = await lateAfter(fx, networkId, '1234.60', ['1234.60']);
  expect(after?.state).toBe('sent');
  const made = fx.sandbox.transaction(String(references[0]))?.createdAt;
  expect(made).toBeDefined();
  expect(after?.outcome?.sentAt).toBe(new Date(made ?? '').toISOString());
});

test('sends a late approval that is not in the transaction list, once', async ({ fx, networkId }) => {
  const request = await approved(fx, withdrawalDraft(networkId, '2345.60'));
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  const reads = listReads(fx);
  await sweep(fx);
  await sweep(fx);
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(listReads(fx)).toBeGreaterThan(reads);
  expect(withdrawCalls(fx)).toBe(1);
});

test('reads nothing before sending a fresh approval', async ({ fx, networkId }) => {
  const request = await approved(fx, withdrawalDraft(networkId, '3456.70'));
  const reads = listReads(fx);
  await sweep(fx);
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(listReads(fx)).toBe(reads);
  expect(withdrawCalls(fx)).toBe(1);
});

test('sends nothing while the lookup cannot be made, says so once, and looks again a minute later', async ({
  fx,
  networkId,
}) => {
  const request = await approved(fx, withdrawalDraft(networkId, '4567.80'));
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  fx.sandbox.failNext('GET', '/v1/api/transactions', 403, 1, 'IP address not whitelisted');
  const reads = listReads(fx);
  await sweep(fx);
  await sweep(fx);
  const waiting = await fx.engine.get(request.id);
  expect(waiting?.state).toBe('approved');
  const said = waiting?.history.filter((h) => h.action === 'execution-delayed') ?? [];
  expect(said).toHaveLength(1);
  expect(said[0]?.note).toContain('transaction list');
  expect(said[0]?.note).toContain('nothing was sent');
  expect(listReads(fx)).toBe(reads + 1);
  expect(withdrawCalls(fx)).toBe(0);
  await sweep(fx, 61_000);
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(withdrawCalls(fx)).toBe(1);
});

test('leaves a late approval with two matching transactions to a person, sending nothing', async ({
  fx,
  networkId,
}) => {
  const { request, after } = await lateAfter(fx, networkId, '5678.90', ['5678.90', '5678.90']);
  expect(after?.state).toBe('outcome-unknown');
  const looked = after?.history.find((h) => h.action === LOOKED_UP_BEFORE_SENDING);
  expect(looked?.note).toContain('2 transactions since its approval match');
  const asked = after?.history.filter((h) => h.action === 'needs-manual-check') ?? [];
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  expect(withdrawCalls(fx)).toBe(2);
});

// The sandbox keeps the engine's time (in a describe that overrides its options with this), so the
// service's list ages with the engine's clock.
const time: { clock?: Clock } = {};
const ON_ENGINE_TIME = { now: () => (time.clock ?? new Clock()).now().getTime() };

describe('a request left to a person by the lookup, and the same payment made again', () => {
  test.override('sandboxOptions', ON_ENGINE_TIME);

  /**
   * A late approval left to a person (two matches), then the same payment (a payroll, say) `laterMs`
   * afterwards whose answer is lost, its one transaction listed; the sweep then looks that one up.
   */
  async function paidAgainAfterParked(
    fx: EngineFixture,
    networkId: string,
    defer: (fn: () => unknown) => void,
    laterMs: number,
  ) {
    time.clock = fx.clock;
    defer(() => delete time.clock);
    const late = await lateAfter(fx, networkId, '5678.91', ['5678.91', '5678.91']);
    const parked = late.request;
    expect(late.after?.state).toBe('outcome-unknown');
    fx.clock.advance(laterMs);
    fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const next = await fileDraft(fx.engine, withdrawalDraft(networkId, '5678.91'));
    await approveAsSeen(fx.engine, next.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(next.id))?.state).toBe('outcome-unknown');
    await sweep(fx);
    expect(withdrawCalls(fx)).toBe(3);
    return { parked, after: await fx.engine.get(next.id) };
  }

  test('takes the one made a day later for its own: the parked request is no rival to it', async ({
    fx,
    networkId,
    defer,
  }) => {
    const { parked, after } = await paidAgainAfterParked(fx, networkId, defer, 24 * 60 * 60_000);
    expect(after?.history.find((h) => h.action === 'ambiguous-match')?.note ?? '').not.toContain(parked.id);
    expect(after?.state).toBe('sent');
    expect(after?.history.map((h) => h.action)).toContain('reconciled');
    expect((await fx.engine.get(parked.id))?.state).toBe('outcome-unknown');
  });

  test('leaves one made within the match window to a person: the parked request may have made it', async ({
    fx,
    networkId,
    defer,
  }) => {
    // The parked request's call, if any, came before it was parked: a transaction 10 min on may be its.
    const { parked, after } = await paidAgainAfterParked(fx, networkId, defer, 10 * 60_000);
    expect(after?.state).toBe('outcome-unknown');
    expect(after?.history.find((h) => h.action === 'ambiguous-match')?.note).toContain(parked.id);
  });
});

describe('a request left to a person by the lookup, and the reconciler', () => {
  test.override('sandboxOptions', ON_ENGINE_TIME);

  test('never settles it from a match: the bot has no record of a call, and a person was asked', async ({
    fx,
    networkId,
    defer,
  }) => {
    time.clock = fx.clock;
    defer(() => delete time.clock);
    const request = await approved(fx, withdrawalDraft(networkId, '4321.09'));
    // Held (a freeze, say); two outside payments alike, 10 and 40 min after its approval. Only the
    // first is within the reconciler's 30 min window from its filing, so read from there it would
    // look like the one match, with no rival.
    fx.clock.advance(10 * 60_000);
    const first = (await withdrawDirectly(fx, networkId, '4321.09')).trxRef;
    fx.clock.advance(30 * 60_000);
    await withdrawDirectly(fx, networkId, '4321.09');
    await sweep(fx, 60_000);
    await sweep(fx, 10 * 60_000);
    const after = await fx.engine.get(request.id);
    expect(after?.state).toBe('outcome-unknown');
    expect(after?.history.find((h) => h.action === LOOKED_UP_BEFORE_SENDING)?.note).toContain(
      '2 transactions since its approval match',
    );
    expect(after?.history.map((h) => h.action)).not.toContain('reconciled');
    expect(after?.outcome?.reference).toBeUndefined();
    expect(await partsOf(fx.engine).core.repo.findIdByReference(first)).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(2);
    // Its message says who looks now: not the bot. Not that the bot never sent it: after a store
    // restore its own earlier call may be one of the matches, and a person told so might file again.
    const words = after && stateWords(after);
    expect(words).toContain('a person must check it with the service (the bot will not send it)');
    expect(words).not.toMatch(/never sent/i);
    // A person who checked with the service records it.
    expect(await fx.engine.resolveByHand(request.id, APPROVER_B, 'failed', 'not ours')).toMatchObject({
      ok: true,
    });
    expect((await fx.engine.get(request.id))?.state).toBe('failed');
    expect(withdrawCalls(fx)).toBe(2);
  });
});

test('still asks a person when the lookup left it to them but its notice was not written', async ({
  startEngine,
  defer,
}) => {
  const crashing = new CrashingStore(await createStore('memory://'));
  defer(() => crashing.inner.close());
  const { fx, networkId } = await engineOn(startEngine, { store: crashing.store });
  const request = await approved(fx, withdrawalDraft(networkId, '4321.19'));
  await withdrawDirectly(fx, networkId, '4321.19');
  await withdrawDirectly(fx, networkId, '4321.19');
  // The request's second write of the lookup (the person's notice, after leaving it to them) fails,
  // as if the store stopped answering, or the process died, right there.
  let writes = 0;
  crashing.crashAt(
    (method, key) => method === 'compareAndSet' && key === `approval:${request.id}` && ++writes === 2,
  );
  await sweepPastTheLease(fx);
  expect(writes).toBe(2);
  await sweep(fx, 61_000);
  const after = await fx.engine.get(request.id);
  expect(after?.history.find((h) => h.action === LOOKED_UP_BEFORE_SENDING)?.note).toContain(
    '2 transactions since its approval match',
  );
  const asked = after?.history.filter((h) => h.action === 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect(asked?.[0]?.note).toContain(`/cngn resolve ${request.id} completed|failed`);
  // Once: later sweeps do not ask again, and nothing is ever sent.
  await sweep(fx, 61_000);
  expect(
    (await fx.engine.get(request.id))?.history.filter((h) => h.action === 'needs-manual-check'),
  ).toHaveLength(1);
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(2);
});

test('leaves a late approval to a person when the list is too long to read back to its approval', async ({
  startEngine,
}) => {
  await leftAfterAShortRead(startEngine, '6789.10', ['11', '12', '13']);
});

test('completes a late whitelist addition whose address is already on the whitelist, adding nothing', async ({
  fx,
}) => {
  const [listed] = await fx.client.getWhitelisted();
  if (!listed) throw new Error('the sandbox lists no whitelisted address');
  const request = await approved(fx, {
    kind: 'whitelist',
    payload: { networkId: listed.networkId, address: listed.publicKey },
    display: {},
    requester: REQUESTER,
  });
  await sweepPastTheLease(fx);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('completed');
  expect(after?.history.at(-1)?.note).toContain('already on the whitelist');
  expect(fx.sandbox.count('POST', '/v1/api/whitelist')).toBe(0);
});

test('looks a late whitelist addition up in its own spelling: a Tron address in other case is another address', async ({
  fx,
  networkId,
}) => {
  // The sandbox whitelists EVM addresses only: the service's list is given a Tron address (in other
  // case, so another address) here.
  const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const real = custodyGateway(fx.client);
  const custody: CustodyGateway = {
    ...real,
    whitelist: async () => [...(await real.whitelist()), { networkId, address: TRON.toLowerCase() }],
  };
  const { engine } = await fx.another({ engine: { custody } });
  const [listed] = await fx.client.getWhitelisted();
  if (!listed) throw new Error('the sandbox lists no whitelisted address');
  const file = async (networkId: string, address: string) => {
    const filed = await fileDraft(engine, {
      kind: 'whitelist',
      payload: { networkId, address },
      display: {},
      requester: REQUESTER,
    });
    await partsOf(engine).core.approve(filed.id, APPROVER_A);
    return filed.id;
  };
  const tron = await file(networkId, TRON);
  // An EVM address is one address in any case.
  const evm = await file(listed.networkId, listed.publicKey.toLowerCase());
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  await engine.tick();
  await engine.idle();
  const already = async (id: string) =>
    (await engine.get(id))?.history.some((h) => h.note?.includes('already on the whitelist'));
  expect(await already(tron)).toBe(false);
  expect(await already(evm)).toBe(true);
  await engine.stop();
});

test('settles a late redemption found in the list before its figures are read again', async ({ fx }) => {
  const filed = await fileDraft(fx.engine, redemptionDraft(REQUESTER, 'To be resolved'));
  await partsOf(fx.engine).core.approve(filed.id, APPROVER_A); // sent back with the name the bank gives
  const result = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!result.ok || result.request.state !== 'approved') throw new Error('not approved');
  await fx.client.redeem({
    amount: Money.parseDecimal('5000'),
    accountNumber: '0123456789',
    bankCode: '058',
  });
  // The account changed hands since: read again, the figures would send it back to the approvers.
  fx.sandbox.setAccountName('0123456789', 'Someone Else');
  fx.clock.advance(STALE_APPROVAL_MS + 60_000);
  await sweep(fx);
  const after = await fx.engine.get(filed.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.at(-1)?.action).toBe(LOOKED_UP_BEFORE_SENDING);
  expect(after?.round).toBe(result.request.round);
  expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
});

test('lifts a late unfreeze without reading the transaction list: it is the bot’s own record', async ({
  fx,
}) => {
  await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
  const filed = await fx.engine.fileUnfreeze(APPROVER_B);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  const result = await partsOf(fx.engine).core.approve(filed.request.id, APPROVER_A);
  if (!result.ok || result.request.state !== 'approved') throw new Error('not approved');
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  const reads = listReads(fx);
  await sweep(fx);
  expect((await fx.engine.get(filed.request.id))?.state).toBe('completed');
  expect(await fx.engine.currentFreeze()).toBeUndefined();
  expect(listReads(fx)).toBe(reads);
});

test('leaves a late approval to a person when its one match may be the same payment’s, still in flight', async ({
  fx,
  networkId,
}) => {
  // Withdrawals are made by the service and answered late: in the list while the call is in flight.
  const { engine, inList, answer } = await slowWithdrawals(fx, true);
  // B, approved and kept from sending (a freeze, say) past the claim lease.
  const b = await approved({ ...fx, engine }, withdrawalDraft(networkId, '2468.10'));
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  // A, the same payment, approved now: its call made the transaction, its answer is not in yet.
  const a = await fileDraft(engine, withdrawalDraft(networkId, '2468.10'));
  await approveAsSeen(engine, a.id, APPROVER_A);
  const reference = await inList;
  await engine.tick();
  const looked = await engine.get(b.id);
  expect(looked?.state).toBe('outcome-unknown');
  expect(looked?.history.find((h) => h.action === LOOKED_UP_BEFORE_SENDING)?.note).toContain(a.id);
  expect(looked?.history.filter((h) => h.action === 'needs-manual-check')).toHaveLength(1);
  answer();
  await engine.idle();
  expect((await engine.get(a.id))?.outcome?.reference).toBe(reference);
  expect(await partsOf(engine).core.repo.findIdByReference(reference)).toBe(a.id);
  expect(withdrawCalls(fx)).toBe(1);
  await engine.stop();
});

test('leaves a late approval to a person when its one match is in a list read only part of the way back', async ({
  startEngine,
}) => {
  // Only the newest two fit on the page read: the older one of the same payment is not seen.
  await leftAfterAShortRead(startEngine, '1357.90', ['1357.90', '11', '1357.90']);
});
