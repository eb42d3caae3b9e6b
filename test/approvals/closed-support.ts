// What the closed-on-the-signed-chain tests share: an engine holding an audit signing key, and a store
// writer who sets a closed request back to approved.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine, ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { HeadMarks } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import { newSigner } from '../support/audit-archive.js';
import { DAYO, test as delegationTest, policy } from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** The delegation tests' engine, holding an audit signing key, approvals by click. */
export const test = delegationTest.extend('engineOptions', () => ({
  engine: { policy: policy(), auditSeal: { signer: newSigner(), marks: new HeadMarks() } },
}));

/** What a store writer makes of a closed request: approved again, its steps from the approval on gone. */
export const revivedApproved = (stored: ApprovalRequest): ApprovalRequest => {
  const approvedAt = stored.history.findIndex((step) => step.state === 'approved');
  const { execution: _claim, outcome: _outcome, ...rest } = stored;
  return {
    ...rest,
    state: 'approved',
    history: stored.history.slice(0, approvedAt + 1),
  } as ApprovalRequest;
};

/**
 * A store writer sets the closed request `id` back to approved (revivedApproved), and takes away the
 * claim key of its round's call, as write access to the store allows.
 */
export async function revive(store: Store, id: string): Promise<void> {
  await rewrite(store, id, revivedApproved, { audited: false });
  const round = (await new ApprovalRepository(store, 'sandbox').get(id))?.round;
  await store.delete(`approval-exec:${id}:${round}`);
}

/** Approved (the approval recorded, nothing sent yet: as if the process stopped before sending). */
export async function approvedUnsent(engine: ApprovalEngine, id: string): Promise<void> {
  const result = await partsOf(engine).core.approve(id, DAYO);
  expect(result.ok && result.request.state).toBe('approved');
}

/** The executor's run on `id` (as its sweep would), then what it became. */
export async function execute(engine: ApprovalEngine, id: string): Promise<ApprovalRequest | undefined> {
  await partsOf(engine).executor.execute(id);
  await engine.idle();
  return engine.get(id);
}
