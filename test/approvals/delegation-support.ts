// What the delegation tests share: three approvers (Chidi away) and two people who are not, an engine
// on a policy of its own (an engine hands its delegations to its policy), the same holding an audit
// signing key, a withdrawal draft, a delegation filed and approved, and the delegate's approval.
import { expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { RequestDraft } from '../../src/approvals/index.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { DEST, type EngineFixture, engineTest, REQUESTER } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

export { withdrawCalls } from '../support/engine.js';

export const ADE = 'U_ADE'; // approver
export const CHIDI = 'U_CHIDI'; // approver, away
export const DAYO = 'U_DAYO'; // approver
export const BOLA = 'U_BOLA'; // not an approver: Chidi's delegate
export const EKENE = 'U_EKENE'; // not an approver
export const DAY = 86_400_000;

export const policy = () =>
  new ApprovalPolicy({ approvers: [ADE, CHIDI, DAYO], tiers: parseTiers('0:1,1000000:2') });

/**
 * `fx` on these approvers, with a policy of its own (an engine hands its delegations to its policy);
 * `engine`, its engine.
 */
export const test = engineTest
  .extend('engineOptions', () => ({ engine: { policy: policy() } }))
  .extend('engine', async ({ fx }) => fx.engine);

/** `test` with the engine holding an audit signing key, so a delegation counts from the signed chain. */
export const auditKeyTest = test.extend('engineOptions', () => ({
  engine: { policy: policy(), auditSeal: { signer: newSigner(), marks: new HeadMarks() } },
}));

export const withdrawal = (networkId: string, amount: string, requester = REQUESTER): RequestDraft => ({
  kind: 'withdraw',
  amount,
  payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
  display: { networkName: 'Base' },
  purpose: 'Supplier payout INV-2231',
  requester,
});

/** File a delegation and have `approver` approve it; returns the granting request's id. */
export async function delegate(
  fx: EngineFixture,
  from: string,
  to: string,
  options: { days?: number; max?: string; approver?: string } = {},
): Promise<string> {
  const until = new Date(fx.clock.now().getTime() + (options.days ?? 3) * DAY);
  const filed = await fx.engine.fileDelegation(from, to, until, options.max);
  const approved = await approveAsSeen(fx.engine, filed.id, options.approver ?? ADE);
  expect(approved.ok).toBe(true);
  await fx.engine.idle();
  expect((await fx.engine.get(filed.id))?.state).toBe('completed');
  return filed.id;
}

/** A withdrawal of `amount` filed, and Bola's approval of it (Chidi's delegate) as the engine answers it. */
export async function delegateApproves(fx: EngineFixture, networkId: string, amount = '1500') {
  const request = await fileDraft(fx.engine, withdrawal(networkId, amount));
  return approveAsSeen(fx.engine, request.id, BOLA);
}
