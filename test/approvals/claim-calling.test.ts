// Right before its call, a claim is marked calling, after its request is marked sending. No takeover or
// freeze hands back a request marked sending, so a hand-back naming a claim marked calling was not
// written by the bot (someone with write access to the store): it is not believed, the request is not
// sent a second time, and a person is asked. A calling mark that does not land sends nothing.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { SENDING_UNCLEAR_ACTION } from '../../src/approvals/index.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { type CrashingStore, crashingTest as test } from './crashing-store.js';

/** A withdrawal approved and sent to the service; returns it as it stood approved, before its claim. */
async function sentOnce(fx: EngineFixture, amount: string, networkId: string): Promise<ApprovalRequest> {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  const { core, executor } = partsOf(fx.engine);
  await core.approve(request.id, APPROVER_A);
  const approved = await fx.engine.get(request.id);
  if (!approved) throw new Error('not approved');
  expect((await executor.execute(request.id))?.state).toBe('sent');
  return approved;
}

/** The approved copy written back over the sent request, naming its claim as handed back. */
async function forgeHandBack(crashing: CrashingStore, approved: ApprovalRequest): Promise<void> {
  const forged = { ...approved, handedBack: { round: approved.round, generation: 0 } };
  await crashing.inner.set(`approval:${approved.id}`, forged);
}

const asked = (request: ApprovalRequest | undefined) =>
  request?.history.filter((h) => h.action === SENDING_UNCLEAR_ACTION) ?? [];

test('never sends again a request whose hand-back names a claim already calling, and asks a person once', async ({
  fx,
  crashing,
  networkId,
}) => {
  const approved = await sentOnce(fx, '4300', networkId);
  expect(withdrawCalls(fx)).toBe(1);
  await forgeHandBack(crashing, approved);
  for (const _ of [1, 2]) {
    await fx.engine.tick();
    await fx.engine.idle();
  }
  expect(withdrawCalls(fx)).toBe(1);
  const after = await fx.engine.get(approved.id);
  expect(after?.state).toBe('approved');
  expect(asked(after)).toHaveLength(1);
});

test('a freeze names as under way a request whose hand-back names a claim already calling', async ({
  fx,
  crashing,
  networkId,
}) => {
  const approved = await sentOnce(fx, '4310', networkId);
  await forgeHandBack(crashing, approved);
  const frozen = await fx.engine.freezeSends(APPROVER_B, 'stop everything');
  expect(frozen).toMatchObject({ ok: true, underway: [approved.id] });
  expect(withdrawCalls(fx)).toBe(1);
});

test('sends nothing when the claim cannot be marked calling, and never resends it later', async ({
  fx,
  crashing,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '4320'));
  const { core, executor } = partsOf(fx.engine);
  await core.approve(request.id, APPROVER_A);
  // The second write to its claim key (after the claim's sending mark) is the calling mark.
  let claimWrites = 0;
  crashing.crashAt(
    (method, key) =>
      method === 'compareAndSet' && key.startsWith(`approval-exec:${request.id}:`) && ++claimWrites === 2,
  );
  const stopped = await executor.execute(request.id);
  crashing.disarm();
  expect(claimWrites).toBe(2);
  expect(stopped?.state).toBe('executing');
  expect(stopped?.execution?.phase).toBe('sending');
  expect(withdrawCalls(fx)).toBe(0);
  fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(0);
});
