// The count of approvals a request needs, checked just before the one service call: missing or not a
// whole number in the store, it sends nothing, signed approvals or not.
import { describe, expect } from 'vitest';
import type { ApprovalEvidence } from '../../src/access/index.js';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import type { Store } from '../../src/store/index.js';
import { APPROVER_B, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { deviceFor, signFor, test } from './signed-support.js';

/** Someone with write access to the store rewrites the request as `change` says. */
async function rewrite(
  store: Store,
  id: string,
  change: (stored: ApprovalRequest) => ApprovalRequest,
): Promise<void> {
  const repo = new ApprovalRepository(store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  expect(await repo.saveIf(stored, change(stored))).toBe(true);
}

/**
 * Someone with write access to the store adds `user`'s approval, marks the request approved and
 * deletes its count of approvals needed.
 */
async function approvedWithoutCount(
  store: Store,
  id: string,
  user: string,
  evidence?: ApprovalEvidence,
): Promise<void> {
  await rewrite(store, id, (stored) => {
    const { requiredApprovals: _dropped, ...approved } = withApproval(
      { ...stored, requiredApprovals: 1 },
      user,
      new Date(),
      { evidence },
    );
    return approved as ApprovalRequest;
  });
}

describe('the count of approvals at send', () => {
  test('the count of approvals deleted in the store, signing off: one approval does not send it', async ({
    startEngine,
  }) => {
    const fx = await startEngine({});
    const [networkId] = await twoNetworks(fx.client);
    const told: unknown[] = [];
    fx.engine.passkeys.signatures().onEvent((event) => told.push(event));
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    expect(request.requiredApprovals).toBe(2);
    await approvedWithoutCount(fx.store, request.id, APPROVER_B);
    await partsOf(fx.engine).executor.execute(request.id);
    await fx.engine.idle();
    // Counted as a request failed before sending, as a failed signature check is.
    expect(told).toEqual([{ evidenceFailed: request.id }]);
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: TOO_FEW_APPROVALS, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('the count of approvals deleted in the store, signing on: one signed approval does not send it', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    expect(request.requiredApprovals).toBe(2);
    const evidence = await signFor(fx.engine, request, APPROVER_B, await deviceFor(fx.engine, APPROVER_B));
    await approvedWithoutCount(fx.store, request.id, APPROVER_B, evidence);
    await partsOf(fx.engine).executor.execute(request.id);
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });
});
