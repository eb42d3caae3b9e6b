// The maker-checker engine against the real client and the embedded sandbox: who may approve, tiers,
// expiry, exactly one call, outcome-unknown reconciliation and tracking to the final status.
import { describe, expect } from 'vitest';
import type { RequestDraft } from '../../src/approvals/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  OUTSIDER,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const withdrawal = (networkId: string, amount: string, address = DEST): RequestDraft => ({
  kind: 'withdraw',
  amount,
  payload: { amount, address, networkId, shouldSaveAddress: false },
  display: { networkName: 'Base' },
  purpose: 'Supplier payout INV-2231',
  requester: REQUESTER,
});

describe('who may approve', () => {
  test('refuses self-approval and changes nothing', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500.50'));
    const result = await approveAsSeen(fx.engine, request.id, REQUESTER);
    expect(result).toMatchObject({ ok: false, reason: 'requester' });
    expect((await fx.engine.get(request.id))?.state).toBe('pending');
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('refuses someone who is not an approver', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500.50'));
    expect(await approveAsSeen(fx.engine, request.id, OUTSIDER)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    expect((await fx.engine.get(request.id))?.approvals).toEqual([]);
  });

  test('needs two distinct approvals above the tier threshold', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1000000'));
    expect(request.requiredApprovals).toBe(2);
    const first = await approveAsSeen(fx.engine, request.id, APPROVER_A);
    expect(first).toMatchObject({
      ok: true,
      request: { state: 'pending', approvals: [{ user: APPROVER_A }] },
    });
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('needs the top tier for a settlement-account change', async ({ fx }) => {
    const request = await fileDraft(fx.engine, {
      kind: 'settlement',
      payload: { bankName: 'GTBank', bankAccountName: 'Ada Obi', bankAccountNumber: '0123456789' },
      display: { bankCode: '058' },
      requester: REQUESTER,
    });
    expect(request.requiredApprovals).toBe(2);
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    await fx.engine.idle();
    expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(0);
  });
});

describe('execution', () => {
  test('sends exactly the approved body, once, and records the reference', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1500.50'));
    expect(withdrawCalls(fx)).toBe(0);
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    const sent = fx.sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/api/withdraw');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.plainBody).toEqual({
      amount: 1500.5,
      address: DEST,
      networkId,
      shouldSaveAddress: false,
    });
    const after = await fx.engine.get(request.id);
    expect(after?.state).toBe('sent');
    expect(after?.outcome?.reference).toMatch(/\w+/);
  });

  test('makes exactly one service call when 50 approve clicks arrive at once', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '777'));
    const clicks = Array.from({ length: 50 }, (_, i) =>
      approveAsSeen(fx.engine, request.id, i % 2 ? APPROVER_A : APPROVER_B),
    );
    const results = await Promise.all(clicks);
    await fx.engine.idle();
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('marks a request outcome-unknown when the answer never comes, then finds it without resending', async ({
    fx,
    networkId,
  }) => {
    fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawal(networkId, '4321.09'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
    await fx.engine.tick();
    const reconciled = await fx.engine.get(request.id);
    expect(reconciled?.state).toBe('sent');
    expect(reconciled?.history.map((h) => h.action)).toContain('reconciled');
    expect(reconciled?.outcome?.reference).toMatch(/\w+/);
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('finds an unclear whitelist addition on the whitelist instead of sending it again', async ({
    fx,
    networkId,
  }) => {
    fx.sandbox.dropResponse('POST', '/v1/api/whitelist');
    const address = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const request = await fileDraft(fx.engine, {
      kind: 'whitelist',
      payload: { networkId, address },
      display: {},
      requester: REQUESTER,
    });
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('completed');
    expect(fx.sandbox.count('POST', '/v1/api/whitelist')).toBe(1);
  });

  test('marks a refused call failed with the service message', async ({ fx, networkId }) => {
    fx.sandbox.setServiceAvailable(false);
    const request = await fileDraft(fx.engine, withdrawal(networkId, '10'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    const failed = await fx.engine.get(request.id);
    expect(failed?.state).toBe('failed');
    expect(failed?.outcome?.reason).toContain('currently unavailable');
  });

  test('tracks a sent withdrawal to completed from the webhook', async ({ fx, networkId }) => {
    await fx.receiveWebhooks();
    const request = await fileDraft(fx.engine, withdrawal(networkId, '250'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    const done = await fx.engine.get(request.id);
    expect(done?.state).toBe('completed');
  });

  test('tracks a sent withdrawal to completed by polling when no webhook comes', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '250'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('sent'); // not due yet
    fx.clock.advance(61_000);
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('completed');
  });

  test('marks a failed withdrawal failed', async ({ fx, networkId }) => {
    await fx.receiveWebhooks();
    const request = await fileDraft(
      fx.engine,
      withdrawal(networkId, '250', '0x000000000000000000000000000000000000dEaD'),
    );
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    expect((await fx.engine.get(request.id))?.state).toBe('failed');
  });
});

describe('filing', () => {
  test('refuses a malformed draft before anything is stored', async ({ fx, networkId }) => {
    await expect(fileDraft(fx.engine, withdrawal(networkId, '100', '0x123'))).rejects.toThrow(/address/);
    const mismatch = withdrawal(networkId, '100');
    if (mismatch.kind === 'withdraw') mismatch.payload.amount = '1000.00';
    await expect(fileDraft(fx.engine, mismatch)).rejects.toThrow(/differs/);
    await expect(fileDraft(fx.engine, withdrawal(networkId, '1.234'))).rejects.toThrow(/2 decimals/);
    expect(await fx.engine.openRequests()).toHaveLength(0);
  });
});

describe('reject, cancel, expiry', () => {
  test('rejects with a reason, and nothing is sent', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '100'));
    const result = await rejectAsSeen(fx.engine, request.id, APPROVER_A, 'Wrong address');
    expect(result).toMatchObject({ ok: true, request: { state: 'rejected', reason: 'Wrong address' } });
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({
      ok: false,
      reason: 'not-pending',
    });
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('lets the requester cancel, and nobody else', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '100'));
    expect(await fx.engine.cancel(request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'not-requester',
    });
    expect(await fx.engine.cancel(request.id, REQUESTER)).toMatchObject({
      ok: true,
      request: { state: 'cancelled' },
    });
  });

  test('expires at click time and in the sweep', async ({ fx, networkId }) => {
    const a = await fileDraft(fx.engine, withdrawal(networkId, '100'));
    const b = await fileDraft(fx.engine, withdrawal(networkId, '200'));
    fx.clock.advance(24 * 3_600_000);
    expect(await approveAsSeen(fx.engine, a.id, APPROVER_A)).toMatchObject({ ok: false, reason: 'expired' });
    await fx.engine.tick();
    expect((await fx.engine.get(b.id))?.state).toBe('expired');
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('keeps an audit log of every step', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '100'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    const audit = await fx.engine.audit(10);
    expect(audit.map((e) => e.action)).toEqual(['filed', 'approved', 'executing', 'sent']);
    expect(audit[1]).toMatchObject({ actor: APPROVER_A, requestId: request.id, amount: '100.00' });
  });
});

describe('stale figures', () => {
  test('sends a bridge back to the approvers when the receivable dropped since the quote', async ({ fx }) => {
    const [origin, destination] = await twoNetworks(fx.client);
    const request = await fileDraft(fx.engine, {
      kind: 'bridge',
      amount: '100000',
      payload: { originNetworkId: origin, destinationNetworkId: destination, destinationAddress: DEST },
      display: { quote: { amountReceivable: '99999.00', networkFee: '0.50', bridgeFee: '0.50' } },
      purpose: 'Liquidity for the other chain',
      requester: REQUESTER,
    });
    const result = await approveAsSeen(fx.engine, request.id, APPROVER_A);
    expect(result).toMatchObject({ ok: true, request: { state: 'pending', round: 1 } });
    expect(result.request?.reason).toContain('quote changed');
    expect(fx.sandbox.count('POST', '/v1/api/bridge-quote')).toBe(1);
    // Approved on the fresh figures, it goes out once.
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(fx.sandbox.requests.filter((r) => r.path === '/v1/api/bridge')).toHaveLength(1);
  });

  test('sends a redemption back to the approvers when the account name changed', async ({ fx }) => {
    const request = await fileDraft(fx.engine, redemptionDraft(REQUESTER, 'Somebody Else'));
    const result = await approveAsSeen(fx.engine, request.id, APPROVER_A);
    expect(result).toMatchObject({ ok: true, request: { state: 'pending', approvals: [], round: 1 } });
    expect(result.request?.reason).toContain('account name');
    const again = await approveAsSeen(fx.engine, request.id, APPROVER_A);
    expect(again).toMatchObject({ ok: true, request: { state: 'approved' } });
    await fx.engine.idle();
    expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
  });
});
