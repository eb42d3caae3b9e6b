// The maker-checker engine against the real client and the embedded sandbox: who may approve, tiers,
// expiry, exactly one call, outcome-unknown reconciliation and tracking to the final status.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestDraft } from '../../src/approvals/index.js';
import { redemptionDraft } from '../support/drafts.js';
import { fileDraft } from '../support/filing.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  OUTSIDER,
  REQUESTER,
  startEngineFixture,
  twoNetworks,
} from './fixture.js';

let fx: EngineFixture;
let networkId: string;

beforeEach(async () => {
  fx = await startEngineFixture();
  [networkId] = await twoNetworks(fx.client);
});
afterEach(async () => {
  await fx.close();
});

const withdrawal = (amount: string, address = DEST): RequestDraft => ({
  kind: 'withdraw',
  amount,
  payload: { amount, address, networkId, shouldSaveAddress: false },
  display: { networkName: 'Base' },
  purpose: 'Supplier payout INV-2231',
  requester: REQUESTER,
});

const withdrawCalls = () => fx.sandbox.count('POST', '/v1/api/withdraw');

describe('who may approve', () => {
  it('refuses self-approval and changes nothing', async () => {
    const request = await fileDraft(fx.engine, withdrawal('1500.50'));
    const result = await fx.engine.approve(request.id, REQUESTER);
    expect(result).toMatchObject({ ok: false, reason: 'requester' });
    expect((await fx.engine.get(request.id))?.state).toBe('pending');
    await fx.engine.idle();
    expect(withdrawCalls()).toBe(0);
  });

  it('refuses someone who is not an approver', async () => {
    const request = await fileDraft(fx.engine, withdrawal('1500.50'));
    expect(await fx.engine.approve(request.id, OUTSIDER)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    expect((await fx.engine.get(request.id))?.approvals).toEqual([]);
  });

  it('needs two distinct approvals above the tier threshold', async () => {
    const request = await fileDraft(fx.engine, withdrawal('1000000'));
    expect(request.requiredApprovals).toBe(2);
    const first = await fx.engine.approve(request.id, APPROVER_A);
    expect(first).toMatchObject({
      ok: true,
      request: { state: 'pending', approvals: [{ user: APPROVER_A }] },
    });
    expect(await fx.engine.approve(request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'already-approved',
    });
    await fx.engine.idle();
    expect(withdrawCalls()).toBe(0);
    expect(await fx.engine.approve(request.id, APPROVER_B)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(withdrawCalls()).toBe(1);
  });

  it('needs the top tier for a settlement-account change', async () => {
    const request = await fileDraft(fx.engine, {
      kind: 'settlement',
      payload: { bankName: 'GTBank', bankAccountName: 'Ada Obi', bankAccountNumber: '0123456789' },
      display: { bankCode: '058' },
      requester: REQUESTER,
    });
    expect(request.requiredApprovals).toBe(2);
    expect(await fx.engine.approve(request.id, APPROVER_A)).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    await fx.engine.idle();
    expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(0);
  });
});

describe('execution', () => {
  it('sends exactly the approved body, once, and records the reference', async () => {
    const request = await fileDraft(fx.engine, withdrawal('1500.50'));
    expect(withdrawCalls()).toBe(0);
    await fx.engine.approve(request.id, APPROVER_A);
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

  it('makes exactly one service call when 50 approve clicks arrive at once', async () => {
    const request = await fileDraft(fx.engine, withdrawal('777'));
    const clicks = Array.from({ length: 50 }, (_, i) =>
      fx.engine.approve(request.id, i % 2 ? APPROVER_A : APPROVER_B),
    );
    const results = await Promise.all(clicks);
    await fx.engine.idle();
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(withdrawCalls()).toBe(1);
  });

  it('marks a request outcome-unknown when the answer never comes, then finds it without resending', async () => {
    fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawal('4321.09'));
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
    await fx.engine.tick();
    const reconciled = await fx.engine.get(request.id);
    expect(reconciled?.state).toBe('sent');
    expect(reconciled?.history.map((h) => h.action)).toContain('reconciled');
    expect(reconciled?.outcome?.reference).toMatch(/\w+/);
    expect(withdrawCalls()).toBe(1);
  });

  it('finds an unclear whitelist addition on the whitelist instead of sending it again', async () => {
    fx.sandbox.dropResponse('POST', '/v1/api/whitelist');
    const address = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const request = await fileDraft(fx.engine, {
      kind: 'whitelist',
      payload: { networkId, address },
      display: {},
      requester: REQUESTER,
    });
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('completed');
    expect(fx.sandbox.count('POST', '/v1/api/whitelist')).toBe(1);
  });

  it('marks a refused call failed with the service message', async () => {
    fx.sandbox.setServiceAvailable(false);
    const request = await fileDraft(fx.engine, withdrawal('10'));
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    const failed = await fx.engine.get(request.id);
    expect(failed?.state).toBe('failed');
    expect(failed?.outcome?.reason).toContain('currently unavailable');
  });

  it('tracks a sent withdrawal to completed from the webhook', async () => {
    await fx.receiveWebhooks();
    const request = await fileDraft(fx.engine, withdrawal('250'));
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    const done = await fx.engine.get(request.id);
    expect(done?.state).toBe('completed');
  });

  it('tracks a sent withdrawal to completed by polling when no webhook comes', async () => {
    const request = await fileDraft(fx.engine, withdrawal('250'));
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('sent'); // not due yet
    fx.clock.advance(61_000);
    await fx.engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('completed');
  });

  it('marks a failed withdrawal failed', async () => {
    await fx.receiveWebhooks();
    const request = await fileDraft(
      fx.engine,
      withdrawal('250', '0x000000000000000000000000000000000000dEaD'),
    );
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    await fx.sandbox.settleAll();
    expect((await fx.engine.get(request.id))?.state).toBe('failed');
  });
});

describe('filing', () => {
  it('refuses a malformed draft before anything is stored', async () => {
    await expect(fileDraft(fx.engine, withdrawal('100', '0x123'))).rejects.toThrow(/address/);
    const mismatch = withdrawal('100');
    if (mismatch.kind === 'withdraw') mismatch.payload.amount = '1000.00';
    await expect(fileDraft(fx.engine, mismatch)).rejects.toThrow(/differs/);
    await expect(fileDraft(fx.engine, withdrawal('1.234'))).rejects.toThrow(/2 decimals/);
    expect(await fx.engine.openRequests()).toHaveLength(0);
  });
});

describe('reject, cancel, expiry', () => {
  it('rejects with a reason, and nothing is sent', async () => {
    const request = await fileDraft(fx.engine, withdrawal('100'));
    const result = await fx.engine.reject(request.id, APPROVER_A, 'Wrong address');
    expect(result).toMatchObject({ ok: true, request: { state: 'rejected', reason: 'Wrong address' } });
    expect(await fx.engine.approve(request.id, APPROVER_B)).toMatchObject({
      ok: false,
      reason: 'not-pending',
    });
    await fx.engine.idle();
    expect(withdrawCalls()).toBe(0);
  });

  it('lets the requester cancel, and nobody else', async () => {
    const request = await fileDraft(fx.engine, withdrawal('100'));
    expect(await fx.engine.cancel(request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'not-requester',
    });
    expect(await fx.engine.cancel(request.id, REQUESTER)).toMatchObject({
      ok: true,
      request: { state: 'cancelled' },
    });
  });

  it('expires at click time and in the sweep', async () => {
    const a = await fileDraft(fx.engine, withdrawal('100'));
    const b = await fileDraft(fx.engine, withdrawal('200'));
    fx.clock.advance(24 * 3_600_000);
    expect(await fx.engine.approve(a.id, APPROVER_A)).toMatchObject({ ok: false, reason: 'expired' });
    await fx.engine.tick();
    expect((await fx.engine.get(b.id))?.state).toBe('expired');
    await fx.engine.idle();
    expect(withdrawCalls()).toBe(0);
  });

  it('keeps an audit log of every step', async () => {
    const request = await fileDraft(fx.engine, withdrawal('100'));
    await fx.engine.approve(request.id, APPROVER_A);
    await fx.engine.idle();
    const audit = await fx.engine.audit(10);
    expect(audit.map((e) => e.action)).toEqual(['filed', 'approved', 'executing', 'sent']);
    expect(audit[1]).toMatchObject({ actor: APPROVER_A, requestId: request.id, amount: '100.00' });
  });
});

describe('stale figures', () => {
  it('sends a bridge back to the approvers when the receivable dropped since the quote', async () => {
    const [origin, destination] = await twoNetworks(fx.client);
    const request = await fileDraft(fx.engine, {
      kind: 'bridge',
      amount: '100000',
      payload: { originNetworkId: origin, destinationNetworkId: destination, destinationAddress: DEST },
      display: { quote: { amountReceivable: '99999.00', networkFee: '0.50', bridgeFee: '0.50' } },
      purpose: 'Liquidity for the other chain',
      requester: REQUESTER,
    });
    const result = await fx.engine.approve(request.id, APPROVER_A);
    expect(result).toMatchObject({ ok: true, request: { state: 'pending', round: 1 } });
    expect(result.request?.reason).toContain('quote changed');
    expect(fx.sandbox.count('POST', '/v1/api/bridge-quote')).toBe(1);
    // Approved on the fresh figures, it goes out once.
    expect(await fx.engine.approve(request.id, APPROVER_B)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(fx.sandbox.requests.filter((r) => r.path === '/v1/api/bridge')).toHaveLength(1);
  });

  it('sends a redemption back to the approvers when the account name changed', async () => {
    const request = await fileDraft(fx.engine, redemptionDraft(REQUESTER, 'Somebody Else'));
    const result = await fx.engine.approve(request.id, APPROVER_A);
    expect(result).toMatchObject({ ok: true, request: { state: 'pending', approvals: [], round: 1 } });
    expect(result.request?.reason).toContain('account name');
    const again = await fx.engine.approve(request.id, APPROVER_A);
    expect(again).toMatchObject({ ok: true, request: { state: 'approved' } });
    await fx.engine.idle();
    expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
  });
});
