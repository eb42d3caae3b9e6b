// The amount sent is the amount shown: a payload amount edited in the store after filing (approvers
// see request.amount, the call would send the payload's) fails the request with nothing sent, signed
// approvals or not.
import { describe, expect } from 'vitest';
import { AMOUNT_DIFFERS } from '../../src/approvals/amount-check.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, engineTest, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

describe('the amount sent', () => {
  engineTest('a payload amount edited in the store is never sent', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(request.id);
    if (stored?.kind !== 'withdraw') throw new Error('not stored');
    const edited = { ...stored, payload: { ...stored.payload, amount: '5000000' } };
    expect(await repo.saveIf(stored, edited)).toBe(true);
    expect((await approveAsSeen(fx.engine, request.id, APPROVER_A)).ok).toBe(true);
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: AMOUNT_DIFFERS, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  engineTest('the same amount written another way (5000.00) is sent', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(request.id);
    if (stored?.kind !== 'withdraw') throw new Error('not stored');
    expect(await repo.saveIf(stored, { ...stored, payload: { ...stored.payload, amount: '5000.00' } })).toBe(
      true,
    );
    expect((await approveAsSeen(fx.engine, request.id, APPROVER_A)).ok).toBe(true);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('sent');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });
});
