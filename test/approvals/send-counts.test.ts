// The count of approvals a request needs, checked just before the one service call: missing or not a
// whole number in the store, it sends nothing, signed approvals or not.
import { describe, expect } from 'vitest';
import type { ApprovalEvidence } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import type { Store } from '../../src/store/index.js';
import { APPROVER_B, engineOn } from '../support/engine.js';
import {
  deviceFor,
  expectUnsent,
  failedBeforeSending,
  fileNeedingTwo,
  rewrite,
  signFor,
  test,
} from './signed-support.js';

/**
 * Someone with write access to the store adds `user`'s approval, marks the request approved and
 * deletes its count of approvals needed; then it is executed.
 */
async function approvedWithoutCountThenExecute(
  fx: { engine: ApprovalEngine; store: Store },
  id: string,
  user: string,
  evidence?: ApprovalEvidence,
): Promise<void> {
  await rewrite(fx.store, id, (stored) => {
    const { requiredApprovals: _dropped, ...approved } = withApproval(
      { ...stored, requiredApprovals: 1 },
      user,
      new Date(),
      { evidence },
    );
    return approved as ApprovalRequest;
  });
  await partsOf(fx.engine).executor.execute(id);
  await fx.engine.idle();
}

describe('the count of approvals at send', () => {
  test('the count of approvals deleted in the store, signing off: one approval does not send it', async ({
    startEngine,
  }) => {
    const { fx, networkId } = await engineOn(startEngine, {});
    const told: unknown[] = [];
    fx.engine.passkeys.signatures().onEvent((event) => told.push(event));
    const request = await fileNeedingTwo(fx.engine, networkId);
    await approvedWithoutCountThenExecute(fx, request.id, APPROVER_B);
    // Counted as a request failed before sending, as a failed signature check is.
    expect(told).toEqual([{ evidenceFailed: request.id }]);
    await expectUnsent(fx, request.id, failedBeforeSending(TOO_FEW_APPROVALS));
  });

  test('the count of approvals deleted in the store, signing on: one signed approval does not send it', async ({
    fx,
    networkId,
  }) => {
    const request = await fileNeedingTwo(fx.engine, networkId);
    const evidence = await signFor(fx.engine, request, APPROVER_B, await deviceFor(fx.engine, APPROVER_B));
    await approvedWithoutCountThenExecute(fx, request.id, APPROVER_B, evidence);
    await expectUnsent(fx, request.id, { state: 'failed', outcome: { nothingSent: true } });
  });
});
