// A request approved while sends are frozen is held, never claimed; after a freeze longer than the
// claim lease it is late once the freeze is lifted, and looked up in the transaction list back to its
// approval. On a busy account the list is longer than the read-back: it is left to a person, saying
// it was held by the freeze and could not be confirmed unsent (not that it may have gone out), and
// once that person records it failed it no longer counts against the daily limit, so it can be filed
// again.
import { expect } from 'vitest';
import { CLAIM_LEASE_MS } from '../../src/approvals/executor.js';
import { LOOKED_UP_BEFORE_SENDING } from '../../src/approvals/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  engineOn,
  engineTest as test,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { ONE_SHORT_PAGE, withdrawDirectly } from './lookup-support.js';

const OTHER_ADDRESS = '0x000000000000000000000000000000000000dEaD';

test('a request the freeze held past the claim lease is left to a person as held, and stops counting once resolved failed', async ({
  startEngine,
}) => {
  const { fx, networkId } = await engineOn(startEngine, {
    engine: { ...ONE_SHORT_PAGE.engine, limits: { windowMs: 24 * 3_600_000, dailyLimit: '10000' } },
  });
  expect(await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address')).toMatchObject({
    ok: true,
  });
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '6000'));
  expect(await approveAsSeen(fx.engine, filed.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  expect((await fx.engine.get(filed.id))?.state).toBe('approved');
  // Business goes on outside the bot during the freeze: more transactions than the read-back holds.
  for (const amount of ['11', '12', '13']) await withdrawDirectly(fx, networkId, amount, OTHER_ADDRESS);
  fx.clock.advance(CLAIM_LEASE_MS + 60_000);
  const unfreeze = await fx.engine.fileUnfreeze(APPROVER_B);
  if (!unfreeze.ok) throw new Error(unfreeze.reason);
  expect(await approveAsSeen(fx.engine, unfreeze.request.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  await fx.engine.tick();
  await fx.engine.idle();
  expect(await fx.engine.currentFreeze()).toBeUndefined();

  const left = await fx.engine.get(filed.id);
  expect(left?.state).toBe('outcome-unknown');
  const note = left?.history.find((step) => step.action === LOOKED_UP_BEFORE_SENDING)?.note ?? '';
  expect(note).toContain('held by the freeze of sends since its approval and could not be confirmed unsent');
  expect(note).not.toContain('it may have gone out already');
  expect(withdrawCalls(fx)).toBe(3);

  const resolved = await fx.engine.resolveByHand(
    filed.id,
    APPROVER_A,
    'failed',
    'the list shows it never went out',
  );
  expect(resolved).toMatchObject({ ok: true });
  expect(await fx.engine.limitUse?.()).toMatchObject({ approved: '0.00', waiting: '0.00' });
  const again = await fileDraft(fx.engine, {
    ...withdrawalDraft(networkId, '6000'),
    purpose: 'the held payment, again',
  });
  expect(again.state).toBe('pending');
});
