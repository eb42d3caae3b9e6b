// A takeover or a freeze hands an unmarked request back (approved again) and then ends its claim: two
// writes, the store has no transaction over both. When the second one fails, the request still goes
// out once, with the next claim; a claim marked as sending that no hand-back recorded is never sent again, and a
// person is told rather than the request waiting silently.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { HELD_ACTION, SENDING_UNCLEAR_ACTION } from '../../src/approvals/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, type EngineFixture, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { crashingTest as test } from './crashing-store.js';

/**
 * An approved withdrawal claimed by `fx`, whose claim (not yet the request) is marked as sending: its
 * holder stopped between the two writes of its mark, so nothing was sent.
 */
async function claimedAndClaimMarked(fx: EngineFixture, amount: string, networkId: string) {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  const { core, executor } = partsOf(fx.engine);
  await core.approve(request.id, APPROVER_A); // approved; nothing started yet
  const claimed = await executor.claimExecution(request.id);
  if (!claimed?.execution) throw new Error('not claimed');
  const until = new Date(fx.clock.now().getTime() + EXECUTION_LEASE_MS);
  const generation = claimed.execution.generation;
  if (
    !(await core.repo.markClaimSending(request.id, claimed.round, generation, executor.instanceId, until))
  ) {
    throw new Error('claim not marked');
  }
  return { request, claimed };
}

/** The write that ends an execution claim of this request. */
const endsClaim = (id: string) => (method: string, key: string) =>
  method === 'compareAndSet' && key.startsWith(`approval-exec:${id}:`);

test('sends a request handed back by a takeover once, when ending its claim failed', async ({
  fx,
  crashing,
  sandbox,
  networkId,
}) => {
  const { request, claimed } = await claimedAndClaimMarked(fx, '4100', networkId);
  const other = await fx.another();
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  crashing.crashAt(endsClaim(request.id));
  await fx.engine.tick(); // the takeover hands it back; ending the claim fails
  crashing.disarm();
  const handedBack = await fx.engine.get(request.id);
  expect(handedBack?.history.map((h) => h.action)).toContain('released');
  // The holder of the first claim, if only slow, still sends nothing.
  expect(await partsOf(fx.engine).executor.markSending(claimed)).toBeUndefined();
  await Promise.all([fx.engine.tick(), other.engine.tick()]);
  await Promise.all([fx.engine.idle(), other.engine.idle()]);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('sent');
  expect(after?.history.filter((h) => h.action === 'released')).toHaveLength(1);
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});

test('sends a request a freeze handed back once after the unfreeze, when ending its claim failed', async ({
  fx,
  crashing,
  sandbox,
  networkId,
}) => {
  const { request, claimed } = await claimedAndClaimMarked(fx, '4150', networkId);
  await fx.engine.freezeSends(APPROVER_B, 'stop everything');
  crashing.crashAt(endsClaim(request.id));
  // The holder, writing its mark on the request, meets the freeze: it hands the request back, held,
  // and sends nothing; the failed end is logged, not thrown out of the mark.
  const marked = await partsOf(fx.engine).executor.markSending(claimed);
  expect(marked).toBeUndefined();
  crashing.disarm();
  expect((await fx.engine.get(request.id))?.history.at(-1)?.action).toBe(HELD_ACTION);
  const lift = await fx.engine.fileUnfreeze(APPROVER_B);
  if (!lift.ok) throw new Error('unfreeze not filed');
  await approveAsSeen(fx.engine, lift.request.id, APPROVER_A);
  await fx.engine.idle();
  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});

test('a freeze does not name as under way a request handed back whose claim is still marked', async ({
  fx,
  crashing,
  sandbox,
  networkId,
}) => {
  const { request } = await claimedAndClaimMarked(fx, '4180', networkId);
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  // The takeover hands it back; its claim, marked, is never ended (the store keeps refusing).
  crashing.failEvery(endsClaim(request.id));
  await fx.engine.tick();
  await fx.engine.idle();
  crashing.disarm();
  const handedBack = await fx.engine.get(request.id);
  expect(handedBack?.state).toBe('approved');
  expect(handedBack?.handedBack).toEqual({ round: handedBack?.round, generation: 0 });
  const frozen = await fx.engine.freezeSends(APPROVER_B, 'stop everything');
  expect(frozen).toMatchObject({ ok: true, underway: [] });
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('never sends a request again whose claim is marked as sending, and asks a person once', async ({
  fx,
  crashing,
  sandbox,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '4200'));
  const { core, executor } = partsOf(fx.engine);
  await core.approve(request.id, APPROVER_A);
  const approved = await fx.engine.get(request.id);
  const claimed = await executor.claimExecution(request.id);
  if (!claimed || !(await executor.markSending(claimed))) throw new Error('not marked');
  // The call may have gone out; then a stale copy of the approved request is written back over it
  // (a replica whose lock ran out mid-write), with no hand-back of that claim on it.
  await crashing.inner.set(`approval:${request.id}`, approved);
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  await fx.engine.tick();
  await fx.engine.idle();
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  await fx.engine.tick();
  await fx.engine.idle();
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('approved');
  const asked = after?.history.filter((h) => h.action === SENDING_UNCLEAR_ACTION) ?? [];
  expect(asked).toHaveLength(1);
  expect(asked[0]?.note).toContain('A person must check with the service');
});
