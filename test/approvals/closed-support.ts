// What the closed-on-the-signed-chain tests share: an engine holding an audit signing key, a
// withdrawal approved (sent, or not yet), a store writer who sets a closed request back to approved or
// makes its claim look lapsed, and the lookup that leaves a request to a person.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import {
  type ApprovalEngine,
  type ApprovalRequest,
  LOOKED_UP_BEFORE_SENDING,
  needsAPerson,
  type RequestDraft,
} from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { HeadMarks } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import type { EngineFixture } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { DAYO, test as delegationTest, policy, withdrawal } from './delegation-support.js';
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

/**
 * A store writer makes `id`'s claim look lapsed: unmarked, its lease run out, its claim key gone,
 * approved just now (so no late lookup). Then a tracker runs (this replica's or another's): it
 * releases the claim, and the claim that follows sends the request if the chain lets it.
 */
export async function forgeLapsedClaim(fx: EngineFixture, engine: ApprovalEngine, id: string): Promise<void> {
  const now = fx.clock.now().toISOString();
  await rewrite(
    fx.store,
    id,
    (stored) =>
      ({
        ...stored,
        approvals: stored.approvals.map((approval) => ({ ...approval, at: now })),
        execution: { ...stored.execution, phase: 'claimed', leaseUntil: new Date(0).toISOString() },
      }) as ApprovalRequest,
    { audited: false },
  );
  const request = await engine.get(id);
  await fx.store.delete(`approval-exec:${id}:${request?.round}`);
  await engine.tick();
  await engine.idle();
}

/** Approved (the approval recorded, nothing sent yet: as if the process stopped before sending). */
export async function approvedUnsent(engine: ApprovalEngine, id: string): Promise<void> {
  const result = await partsOf(engine).core.approve(id, DAYO);
  expect(result.ok && result.request.state).toBe('approved');
}

/** A withdrawal of `amount` filed and approved, nothing sent yet (approvedUnsent); the request as filed. */
export async function approvedWithdrawal(
  engine: ApprovalEngine,
  networkId: string,
  amount = '1500',
): Promise<ApprovalRequest> {
  const request = await fileDraft(engine, withdrawal(networkId, amount));
  await approvedUnsent(engine, request.id);
  return request;
}

/** The executor's run on `id` (as its sweep would), then what it became. */
export async function execute(engine: ApprovalEngine, id: string): Promise<ApprovalRequest | undefined> {
  await partsOf(engine).executor.execute(id);
  await engine.idle();
  return engine.get(id);
}

/** A withdrawal of 1500 approved unsent (approvedWithdrawal), then the executor's run on it: what it became. */
export async function approvedAndExecuted(
  engine: ApprovalEngine,
  networkId: string,
): Promise<ApprovalRequest | undefined> {
  const request = await approvedWithdrawal(engine, networkId);
  return execute(engine, request.id);
}

/**
 * `draft` filed and approved by Dayo as the engine answers a click, and the bot's work on it done (the
 * service called); with `settled`, the service's webhooks are received and the service settles it.
 */
export async function approvedAndCalled(
  fx: EngineFixture,
  draft: RequestDraft,
  options: { settled?: boolean } = {},
): Promise<{ request: ApprovalRequest; approval: Awaited<ReturnType<typeof approveAsSeen>> }> {
  if (options.settled) await fx.receiveWebhooks();
  const request = await fileDraft(fx.engine, draft);
  const approval = await approveAsSeen(fx.engine, request.id, DAYO);
  await fx.engine.idle();
  if (options.settled) await fx.sandbox.settleAll();
  return { request, approval };
}

/** The step of the lookup before sending that ended `request` (a step after its filing). */
const lookedUp = (request: ApprovalRequest | undefined) =>
  request?.history.find((h, i) => i > 0 && h.action === LOOKED_UP_BEFORE_SENDING);

/**
 * Outcome unknown, and its lookup's note (holding `says`, when given) asks a person to check it with
 * the service; returns that step.
 */
export function leftToAPerson(request: ApprovalRequest | undefined, says?: string) {
  expect(request?.state).toBe('outcome-unknown');
  const step = lookedUp(request);
  if (says !== undefined) expect(step?.note).toContain(says);
  expect(needsAPerson(step?.note ?? '')).toBe(true);
  return step;
}
