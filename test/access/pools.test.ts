// Approver pools per kind through the real engine on the embedded sandbox: a kind's own pool replaces
// the general approvers for it, the tiers count within the pool, and a delegate stands in only where
// the delegator's pool reaches.
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { RequestDraft } from '../../src/approvals/types.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { engineTest, REQUESTER, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const BOLA = 'U_BOLA'; // a general approver
const EFE = 'U_EFE';
const CHIDI = 'U_CHIDI';
const ADA = 'U_ADA';
const DAYO = 'U_DAYO';
const DELEGATE = 'U_DELEGATE';

const settlement: RequestDraft = {
  kind: 'settlement',
  payload: { bankName: 'GTBank', bankAccountName: 'ADEBANJO IBRAHIM', bankAccountNumber: '0123456789' },
  display: { bankCode: '058' },
  requester: REQUESTER,
};

/** `policy`, the pools below, and `fx`, the engine that decides with it (and wires its delegations). */
const test = engineTest
  .extend(
    'policy',
    async () =>
      new ApprovalPolicy({
        approvers: [BOLA, CHIDI],
        approversByKind: { settlement: [EFE, CHIDI], withdraw: [ADA, DAYO, BOLA] },
        tiers: parseTiers('0:1,1000000:2'),
      }),
  )
  .extend('fx', async ({ startEngine, policy }) => startEngine({ engine: { policy } }));

describe('approver pools per kind', () => {
  test('refuses a general approver on a settlement change, which only its own pool approves', async ({
    fx,
    policy,
  }) => {
    const request = await fileDraft(fx.engine, settlement);
    expect(request.requiredApprovals).toBe(2);
    expect(await approveAsSeen(fx.engine, request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    expect(await approveAsSeen(fx.engine, request.id, EFE)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect(await approveAsSeen(fx.engine, request.id, CHIDI)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(1);
    expect(await policy.eligibleFor({ ...request, approvals: [] })).toEqual([EFE, CHIDI]);
  });

  test('counts a two-approval withdrawal tier only with people of the withdraw pool', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '2000000'));
    expect(request.requiredApprovals).toBe(2);
    // Chidi approves in the general pool, not the withdraw pool.
    expect(await approveAsSeen(fx.engine, request.id, CHIDI)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    expect(await approveAsSeen(fx.engine, request.id, ADA)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect(await approveAsSeen(fx.engine, request.id, BOLA)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('uses the general pool for a kind without its own, and counts anyone in any pool as an approver', async ({
    fx,
    policy,
  }) => {
    expect(fx.engine).toBeDefined(); // the policy as the engine wired it
    expect(await policy.isApprover(CHIDI, 'redeem')).toBe(true);
    expect(await policy.isApprover(ADA, 'redeem')).toBe(false);
    // Freeze, audit and delegating ask for an approver of any kind.
    expect(await policy.isApprover(ADA)).toBe(true);
    expect(await policy.isApprover(EFE)).toBe(true);
    expect(await policy.isApprover(DELEGATE)).toBe(false);
    expect(await policy.approverIds('settlement')).toEqual([EFE, CHIDI]);
  });

  test("lets a delegate stand in only on kinds in the delegator's pool", async ({
    fx,
    policy,
    networkId,
  }) => {
    const until = new Date(fx.clock.now().getTime() + 3_600_000).toISOString();
    policy.useDelegations({
      all: async () => [
        {
          id: 'AR-D',
          delegator: BOLA,
          delegate: DELEGATE,
          from: '2026-01-01T00:00:00Z',
          until,
          approvedBy: [CHIDI],
        },
      ],
      now: fx.clock.now,
    });
    const settle = await fileDraft(fx.engine, settlement);
    expect(await policy.check(settle, DELEGATE)).toEqual({ allowed: false, reason: 'delegation-ended' });
    const withdrawal = await fileDraft(fx.engine, withdrawalDraft(networkId, '100'));
    expect(await policy.check(withdrawal, DELEGATE)).toEqual({
      allowed: true,
      onBehalfOf: BOLA,
      delegationId: 'AR-D',
    });
  });
});
