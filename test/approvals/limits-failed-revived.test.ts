// A request a person resolved failed stops counting against the limits, but its entry stays in the
// limits index while it is inside the window: when the service later reports that it completed after
// all (a conflict, so it counts again), the money that went out is counted, and a filing past the
// daily limit is refused.
import { expect } from 'vitest';
import { stillCounts } from '../../src/approvals/limits.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, engineOn, engineTest as test, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('a payment resolved failed by a person, then reported completed, counts again against the daily limit', async ({
  startEngine,
}) => {
  const { fx, networkId } = await engineOn(startEngine, {
    engine: { limits: { windowMs: 24 * 3_600_000, dailyLimit: '10000' } },
  });
  const first = await fileDraft(fx.engine, withdrawalDraft(networkId, '6000'));
  expect(await approveAsSeen(fx.engine, first.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  const sent = await fx.engine.get(first.id);
  expect(sent?.state).toBe('sent');
  const report = (key: string, result: 'completed' | 'failed') =>
    fx.engine.onCustodyReport({
      name: `withdrawal.${result}`,
      references: [sent?.outcome?.reference ?? ''],
      result,
      status: result,
      key,
      amount: '6000',
    });
  await report('failed-report', 'failed');
  await report('first-completed-report', 'completed');
  expect(
    await fx.engine.resolveByHand(first.id, APPROVER_B, 'failed', 'dashboard shows failed'),
  ).toMatchObject({
    ok: true,
  });
  expect((await fx.engine.limitUse()).approved).toBe('0.00');

  // A filing decides on the limits with the first not counting, and writes the index again.
  const second = await fileDraft(fx.engine, { ...withdrawalDraft(networkId, '3000'), purpose: 'another' });
  expect(second.state).toBe('pending');

  await report('second-completed-report', 'completed');
  const revived = await fx.engine.get(first.id);
  expect(revived && stillCounts(revived)).toBe(true);
  expect(await fx.engine.limitUse()).toMatchObject({ approved: '6000.00', waiting: '3000.00' });
  await expect(
    fileDraft(fx.engine, { ...withdrawalDraft(networkId, '6000'), purpose: 'third' }),
  ).rejects.toThrow(/daily limit/);
});
