// Passkey-signed approvals checked again just before the one service call (signed-support.ts): an
// approval written into the store by hand, a copy of one, the requester's own, one whose passkey was
// revoked, an approver's own beside their delegate's, figures changed after signing, or a count of
// approvals lowered below the tiers' (signed or not), sends nothing and fails the request; a delegate's
// signed approval in an approver's place is sent, and one with no delegation in effect for it (none,
// or revoked since) sends the request back to its approvers.
import { describe, expect } from 'vitest';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { DELEGATION_GONE } from '../../src/approvals/approver-left.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  OUTSIDER,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import {
  assertedByHand,
  delegateForA,
  deviceFor,
  signAndApprove,
  signing,
  test,
  writeApprovalThenExecute,
} from './signed-support.js';

/** Someone with write access to the store lowers the request's count of approvals needed to one. */
async function lowerCount(store: Store, id: string): Promise<void> {
  const repo = new ApprovalRepository(store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  expect(await repo.saveIf(stored, { ...stored, requiredApprovals: 1 })).toBe(true);
}

describe('signed approvals', () => {
  test('an approval written into the store by hand sends nothing: the request fails, audited', async ({
    fx,
    networkId,
  }) => {
    const told: string[] = [];
    fx.engine.onChange(async (r) => {
      told.push(`${r.state}:${r.history.at(-1)?.note ?? ''}`);
    });
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    await writeApprovalThenExecute(fx, request.id, APPROVER_A);
    const failed = await fx.engine.get(request.id);
    expect(failed).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: EVIDENCE_FAILED });
    expect(told).toContain(`failed:${EVIDENCE_FAILED}`);
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('figures changed in the store after an approver signed: nothing is sent', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    const deviceA = await deviceFor(fx.engine, APPROVER_A);
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA)).result).toMatchObject({
      ok: true,
    });
    // Someone with write access to the store changes where the money goes; B then signs what is there.
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const signed = await repo.get(request.id);
    if (signed?.kind !== 'withdraw') throw new Error('not stored');
    const address = '0x000000000000000000000000000000000000dEaD';
    const changed = { ...signed, payload: { ...signed.payload, address } };
    expect(await repo.saveIf(signed, changed)).toBe(true);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('an approval signed with a passkey revoked before the send (a lost device) sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    const deviceA = await deviceFor(fx.engine, APPROVER_A);
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA)).result).toMatchObject({
      ok: true,
    });
    const book = fx.engine.passkeys.signatures().book;
    expect(await book.revoke(deviceA.passkey().credentialId, APPROVER_A, new Date())).toBe(true);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('another approver’s assertion copied into the store as a second approval sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    const deviceA = await deviceFor(fx.engine, APPROVER_A);
    await deviceFor(fx.engine, APPROVER_B);
    const signed = await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
    expect(signed.result).toMatchObject({ ok: true, request: { state: 'pending' } });
    const forged = await writeApprovalThenExecute(fx, request.id, APPROVER_B, signed.evidence);
    expect(forged.state).toBe('approved');
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('an approval copied in the store as a second approval by the same approver sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    expect(request.requiredApprovals).toBe(2);
    const deviceA = await deviceFor(fx.engine, APPROVER_A);
    const signed = await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
    expect(signed.result).toMatchObject({ ok: true, request: { state: 'pending' } });
    // The same approver, the same assertion and nonce: each copy verifies on its own.
    const copied = await writeApprovalThenExecute(fx, request.id, APPROVER_A, signed.evidence);
    expect(copied.state).toBe('approved');
    const failed = await fx.engine.get(request.id);
    expect(failed).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: EVIDENCE_FAILED });
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('the count of approvals lowered in the store: one signature does not send what its tier asks two for', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    expect(request.requiredApprovals).toBe(2);
    await lowerCount(fx.store, request.id);
    // B signs believing they are the first of two; the engine takes the stored count and approves.
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: TOO_FEW_APPROVALS, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('the count of approvals lowered in the store, signing off: one click does not send it either', async ({
    startEngine,
  }) => {
    const fx = await startEngine({});
    const [networkId] = await twoNetworks(fx.client);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    expect(request.requiredApprovals).toBe(2);
    await lowerCount(fx.store, request.id);
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject({
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: TOO_FEW_APPROVALS, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('the requester’s own signed approval written into the store sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect(request).toMatchObject({ requester: REQUESTER, requiredApprovals: 1 });
    // The requester's own registered passkey, over the request's bytes and a nonce the book issued:
    // the signing page would give the requester no challenge, so it is made as the page would.
    const device = await deviceFor(fx.engine, REQUESTER);
    const evidence = await assertedByHand(fx.engine, request, REQUESTER, device);
    const own = await writeApprovalThenExecute(fx, request.id, REQUESTER, evidence);
    expect(own.state).toBe('approved');
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('a delegate’s signed approval in an approver’s place, with another approver’s, is sent', async ({
    startEngine,
  }) => {
    const fx = await startEngine({ tiers: '0:2', engine: { signing } });
    const [networkId] = await twoNetworks(fx.client);
    const { deviceB, deviceO } = await delegateForA(fx.engine);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect(request.requiredApprovals).toBe(2);
    expect((await signAndApprove(fx.engine, request.id, OUTSIDER, deviceO)).result).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    const sent = await fx.engine.get(request.id);
    expect(sent?.state).toBe('sent');
    expect(sent?.approvals.map((a) => [a.user, a.onBehalfOf])).toEqual([
      [OUTSIDER, APPROVER_A],
      [APPROVER_B, undefined],
    ]);
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('an approval in an approver’s place written into the store with no delegation from them sends nothing', async ({
    startEngine,
  }) => {
    const fx = await startEngine({ tiers: '0:2', engine: { signing } });
    const [networkId] = await twoNetworks(fx.client);
    await deviceFor(fx.engine, APPROVER_A);
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    const deviceO = await deviceFor(fx.engine, OUTSIDER);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    // The outsider's own sealed passkey signs; the store writer says it was given in A's place.
    const evidence = await assertedByHand(fx.engine, request, OUTSIDER, deviceO);
    const written = await writeApprovalThenExecute(fx, request.id, OUTSIDER, evidence, APPROVER_A);
    expect(written.state).toBe('approved');
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'pending',
      round: 1,
      approvals: [],
      reason: DELEGATION_GONE,
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('a delegate’s approval whose delegation was revoked before the send goes back to the approvers', async ({
    startEngine,
  }) => {
    const fx = await startEngine({ tiers: '0:2', engine: { signing } });
    const [networkId] = await twoNetworks(fx.client);
    const { deviceB, deviceO } = await delegateForA(fx.engine);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect((await signAndApprove(fx.engine, request.id, OUTSIDER, deviceO)).result).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    expect(await fx.engine.revokeDelegations(APPROVER_A, OUTSIDER)).toHaveLength(1);
    expect((await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB)).result).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'pending',
      round: 1,
      approvals: [],
      reason: DELEGATION_GONE,
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('an approver’s own signed approval written into the store beside their delegate’s sends nothing', async ({
    startEngine,
  }) => {
    const fx = await startEngine({ tiers: '0:2', engine: { signing } });
    const [networkId] = await twoNetworks(fx.client);
    const { deviceA, deviceO } = await delegateForA(fx.engine);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect(request.requiredApprovals).toBe(2);
    expect((await signAndApprove(fx.engine, request.id, OUTSIDER, deviceO)).result).toMatchObject({
      ok: true,
      request: { state: 'pending' },
    });
    // A's own assertion, over the request's bytes and a nonce the book issued: it verifies on its own,
    // but A already counts through the delegate (the engine would refuse A's click as already approved).
    const evidence = await assertedByHand(fx.engine, request, APPROVER_A, deviceA);
    const own = await writeApprovalThenExecute(fx, request.id, APPROVER_A, evidence);
    expect(own.state).toBe('approved');
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });
});
