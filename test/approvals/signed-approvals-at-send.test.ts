// Passkey-signed approvals checked again just before the one service call (signed-support.ts): an
// approval written into the store by hand, a copy of one, the requester's own, one whose passkey was
// revoked, an approver's own beside their delegate's, figures changed after signing, or a count of
// approvals lowered below the tiers' (signed or not: the engine waits for more, and a request marked
// approved in the store anyway) sends nothing and fails the request; a delegate's signed approval in an
// approver's place is sent, and one with no delegation in effect for it (none,
// or revoked since) sends the request back to its approvers. A request's requester or count changed in
// the store breaks its filing seal and sends nothing; fresh figures the bot read itself are sealed again.
import { describe, expect } from 'vitest';
import { TOO_FEW_APPROVALS } from '../../src/approvals/approvals-needed.js';
import { DELEGATION_GONE } from '../../src/approvals/approver-left.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { STALE_APPROVAL_MS } from '../../src/approvals/executor.js';
import type { ApprovalEngine, ApprovalRequest } from '../../src/approvals/index.js';
import { FILING_SEAL_BROKEN } from '../../src/approvals/request-seal.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import { transition } from '../../src/approvals/state-machine.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import type { SoftwareAuthenticator } from '../support/authenticator.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  type EngineFixtureOptions,
  engineOn,
  OUTSIDER,
  REQUESTER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import {
  assertedByHand,
  delegateForA,
  deviceFor,
  expectSigned,
  expectUnsent,
  failedBeforeSending,
  filedForTwo,
  fileNeedingOne,
  fileNeedingTwo,
  rewrite,
  signAndApprove,
  signFor,
  signing,
  test,
  writeApprovalThenExecute,
} from './signed-support.js';

/** Someone with write access to the store lowers the request's count of approvals needed to one. */
async function lowerCount(store: Store, id: string): Promise<void> {
  await rewrite(store, id, (stored) => ({ ...stored, requiredApprovals: 1 }));
}

/** Someone with write access to the store marks the pending request approved; then it is executed. */
async function markApprovedThenExecute(
  fx: { engine: ApprovalEngine; store: Store },
  id: string,
): Promise<void> {
  await rewrite(fx.store, id, (stored) =>
    transition(stored, 'approved', { action: 'approved', actor: APPROVER_B, at: new Date() }),
  );
  await partsOf(fx.engine).executor.execute(id);
  await fx.engine.idle();
}

/** Request `id` failed with `reason` before anything was sent, and says so as its last step. */
async function expectFailedBeforeSending(fx: EngineFixture, id: string, reason: string): Promise<void> {
  const failed = await expectUnsent(fx, id, failedBeforeSending(reason));
  expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: reason });
}

/** Every request needs two approvals, signed. */
const TWO_SIGNED = { tiers: '0:2', engine: { signing } };
/** The answer to an approval that counts, the request still waiting for another. */
const PENDING = { ok: true, request: { state: 'pending' } };
/** A request sent back to its approvers for a delegation no longer in effect. */
const SENT_BACK = { state: 'pending', round: 1, approvals: [], reason: DELEGATION_GONE };

/**
 * A signs the withdrawal filed by `filedForTwo`, `meanwhile` runs, then B signs: the signatures are
 * checked again at the send, and nothing is sent.
 */
async function signedAroundThenRefused(
  fx: EngineFixture,
  networkId: string,
  meanwhile: (request: ApprovalRequest, deviceA: SoftwareAuthenticator) => Promise<void>,
): Promise<void> {
  const { request, deviceA, deviceB } = await filedForTwo(fx, networkId);
  await expectSigned(fx.engine, request.id, APPROVER_A, deviceA);
  await meanwhile(request, deviceA);
  await expectSigned(fx.engine, request.id, APPROVER_B, deviceB);
  await fx.engine.idle();
  await expectUnsent(fx, request.id, { state: 'failed', outcome: { reason: EVIDENCE_FAILED } });
}

/**
 * On an engine where every request needs two signed approvals, A's delegation to the outsider in effect
 * (`delegateForA`), and a withdrawal filed.
 */
async function delegatedRequest(startEngine: (options: EngineFixtureOptions) => Promise<EngineFixture>) {
  const { fx, networkId } = await engineOn(startEngine, TWO_SIGNED);
  const devices = await delegateForA(fx.engine);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  return { fx, request, ...devices };
}

/**
 * `user`'s assertion made by hand (`assertedByHand`) written into the store as their approval (in
 * `onBehalfOf`'s place, if any), then the executor run on the request.
 */
async function writtenByHandThenExecuted(
  fx: EngineFixture,
  request: ApprovalRequest,
  user: string,
  device: SoftwareAuthenticator,
  onBehalfOf?: string,
): Promise<void> {
  const evidence = await assertedByHand(fx.engine, request, user, device);
  const written = await writeApprovalThenExecute(fx, request.id, user, evidence, onBehalfOf);
  expect(written.state).toBe('approved');
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
    await expectFailedBeforeSending(fx, request.id, EVIDENCE_FAILED);
    expect(told).toContain(`failed:${EVIDENCE_FAILED}`);
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
  });

  test('figures changed in the store after an approver signed: nothing is sent', async ({
    fx,
    networkId,
  }) => {
    // Someone with write access to the store changes where the money goes; B then signs what is there.
    await signedAroundThenRefused(fx, networkId, async (request) => {
      await rewrite(fx.store, request.id, (signed) => {
        if (signed.kind !== 'withdraw') throw new Error('not stored');
        const address = '0x000000000000000000000000000000000000dEaD';
        return { ...signed, payload: { ...signed.payload, address } };
      });
    });
  });

  test('an approval signed with a passkey revoked before the send (a lost device) sends nothing', async ({
    fx,
    networkId,
  }) => {
    await signedAroundThenRefused(fx, networkId, async (_request, deviceA) => {
      const book = fx.engine.passkeys.signatures().book;
      expect(await book.revoke(deviceA.passkey().credentialId, APPROVER_A, new Date())).toBe(true);
    });
  });

  test('another approver’s assertion copied into the store as a second approval sends nothing', async ({
    fx,
    networkId,
  }) => {
    const { request, deviceA } = await filedForTwo(fx, networkId);
    const signed = await expectSigned(fx.engine, request.id, APPROVER_A, deviceA, PENDING);
    const forged = await writeApprovalThenExecute(fx, request.id, APPROVER_B, signed.evidence);
    expect(forged.state).toBe('approved');
    await expectUnsent(fx, request.id, { state: 'failed', outcome: { reason: EVIDENCE_FAILED } });
  });

  test('an approval copied in the store as a second approval by the same approver sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileNeedingTwo(fx.engine, networkId);
    const device = await deviceFor(fx.engine, APPROVER_A);
    const signed = await expectSigned(fx.engine, request.id, APPROVER_A, device, PENDING);
    // The same approver, the same assertion and nonce: each copy verifies on its own.
    const copied = await writeApprovalThenExecute(fx, request.id, APPROVER_A, signed.evidence);
    expect(copied.state).toBe('approved');
    await expectFailedBeforeSending(fx, request.id, EVIDENCE_FAILED);
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
  });

  test('the count of approvals lowered in the store: one signature does not send what its tier asks two for', async ({
    fx,
    networkId,
  }) => {
    const request = await fileNeedingTwo(fx.engine, networkId);
    await lowerCount(fx.store, request.id);
    // B signs believing they are the first of two; the engine counts with the tiers too and waits.
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    await expectSigned(fx.engine, request.id, APPROVER_B, deviceB, PENDING);
    // The store writer marks it approved as well: the executor's own count sends nothing.
    await markApprovedThenExecute(fx, request.id);
    await expectUnsent(fx, request.id, failedBeforeSending(TOO_FEW_APPROVALS));
  });

  test('the count of approvals lowered in the store, signing off: one click does not send it either', async ({
    startEngine,
  }) => {
    const { fx, networkId } = await engineOn(startEngine, {});
    const request = await fileNeedingTwo(fx.engine, networkId);
    await lowerCount(fx.store, request.id);
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_B)).toMatchObject(PENDING);
    await markApprovedThenExecute(fx, request.id);
    await expectUnsent(fx, request.id, failedBeforeSending(TOO_FEW_APPROVALS));
  });

  test('the requester’s own signed approval written into the store sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileNeedingOne(fx.engine, networkId);
    // The requester's own registered passkey, over the request's bytes and a nonce the book issued:
    // the signing page would give the requester no challenge, so it is made as the page would.
    await writtenByHandThenExecuted(fx, request, REQUESTER, await deviceFor(fx.engine, REQUESTER));
    await expectUnsent(fx, request.id, failedBeforeSending(EVIDENCE_FAILED));
    expect((await fx.engine.audit(5)).map((e) => e.action)).toContain('failed');
  });

  test('a delegate’s signed approval in an approver’s place, with another approver’s, is sent', async ({
    startEngine,
  }) => {
    const { fx, request, deviceB, deviceO } = await delegatedRequest(startEngine);
    expect(request.requiredApprovals).toBe(2);
    await expectSigned(fx.engine, request.id, OUTSIDER, deviceO, PENDING);
    await expectSigned(fx.engine, request.id, APPROVER_B, deviceB);
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
    const { fx, networkId } = await engineOn(startEngine, TWO_SIGNED);
    await deviceFor(fx.engine, APPROVER_A);
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
    const deviceO = await deviceFor(fx.engine, OUTSIDER);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    await expectSigned(fx.engine, request.id, APPROVER_B, deviceB, PENDING);
    // The outsider's own sealed passkey signs; the store writer says it was given in A's place.
    await writtenByHandThenExecuted(fx, request, OUTSIDER, deviceO, APPROVER_A);
    await expectUnsent(fx, request.id, SENT_BACK);
  });

  test('a delegate’s approval whose delegation was revoked before the send goes back to the approvers', async ({
    startEngine,
  }) => {
    const { fx, request, deviceB, deviceO } = await delegatedRequest(startEngine);
    await expectSigned(fx.engine, request.id, OUTSIDER, deviceO, PENDING);
    expect(await fx.engine.revokeDelegations(APPROVER_A, OUTSIDER)).toHaveLength(1);
    await expectSigned(fx.engine, request.id, APPROVER_B, deviceB);
    await fx.engine.idle();
    await expectUnsent(fx, request.id, SENT_BACK);
  });

  test('an approver’s own signed approval written into the store beside their delegate’s sends nothing', async ({
    startEngine,
  }) => {
    const { fx, request, deviceA, deviceO } = await delegatedRequest(startEngine);
    expect(request.requiredApprovals).toBe(2);
    await expectSigned(fx.engine, request.id, OUTSIDER, deviceO, PENDING);
    // A's own assertion, over the request's bytes and a nonce the book issued: it verifies on its own,
    // but A already counts through the delegate (the engine would refuse A's click as already approved).
    await writtenByHandThenExecuted(fx, request, APPROVER_A, deviceA);
    await expectUnsent(fx, request.id, failedBeforeSending(EVIDENCE_FAILED));
  });
});

describe('the filing seal', () => {
  test('the requester rewritten in the store: the real requester’s own signed approval sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileNeedingOne(fx.engine, networkId);
    await rewrite(fx.store, request.id, (stored) => ({ ...stored, requester: OUTSIDER }));
    // The requester, an approver with a passkey, is now offered a challenge and signs their own request.
    const device = await deviceFor(fx.engine, REQUESTER);
    await expectSigned(fx.engine, request.id, REQUESTER, device, {
      ok: true,
      request: { state: 'approved' },
    });
    await fx.engine.idle();
    await expectFailedBeforeSending(fx, request.id, FILING_SEAL_BROKEN);
  });

  test('a count the limit window raised to three, lowered in the store to two: nothing is sent', async ({
    startEngine,
  }) => {
    const limits = { windowMs: 24 * 3_600_000 };
    const tiers = '0:1,1000000:2,2000000:3';
    const { fx, networkId } = await engineOn(startEngine, { tiers, engine: { signing, limits } });
    const byOutsider = (amount: string) => ({ ...withdrawalDraft(networkId, amount), requester: OUTSIDER });
    await fileDraft(fx.engine, byOutsider('1200000'));
    const request = await fileDraft(fx.engine, byOutsider('900000'));
    expect(request).toMatchObject({ requiredApprovals: 3, tierBasis: { by: 'requester' } });
    await rewrite(fx.store, request.id, (stored) => ({ ...stored, requiredApprovals: 2 }));
    for (const user of [APPROVER_A, APPROVER_B]) {
      const { result } = await signAndApprove(fx.engine, request.id, user, await deviceFor(fx.engine, user));
      expect(result).toMatchObject({ ok: true });
    }
    await fx.engine.idle();
    await expectUnsent(fx, request.id, failedBeforeSending(FILING_SEAL_BROKEN));
  });

  test('a settlement whose account name changed before its late send goes back, and is sent once signed again', async ({
    fx,
  }) => {
    fx.sandbox.setAccountName('0123456789', 'ADA OBI');
    const request = await fileDraft(fx.engine, {
      kind: 'settlement',
      payload: { bankName: 'GTBank', bankAccountName: 'ADA OBI', bankAccountNumber: '0123456789' },
      display: { bankCode: '058' },
      requester: REQUESTER,
    });
    expect(request.requiredApprovals).toBe(2);
    const devices = [
      [APPROVER_A, await deviceFor(fx.engine, APPROVER_A)],
      [APPROVER_B, await deviceFor(fx.engine, APPROVER_B)],
    ] as const;
    // Approved, not sent (the bot stopped): the core records the approvals without the executor.
    for (const [user, device] of devices) {
      const current = await fx.engine.get(request.id);
      if (!current) throw new Error('not stored');
      const evidence = await signFor(fx.engine, current, user, device);
      const done = await partsOf(fx.engine).core.approve(request.id, user, { ...seenOf(current), evidence });
      expect(done).toMatchObject({ ok: true });
    }
    expect((await fx.engine.get(request.id))?.state).toBe('approved');
    fx.sandbox.setAccountName('0123456789', 'ADA OBI AND SONS');
    fx.clock.advance(STALE_APPROVAL_MS + 60_000);
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'pending',
      round: 1,
      payload: { bankAccountName: 'ADA OBI AND SONS' },
    });
    for (const [user, device] of devices) {
      expect((await signAndApprove(fx.engine, request.id, user, device)).result).toMatchObject({ ok: true });
    }
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('completed');
    expect(fx.sandbox.count('PUT', '/v1/api/bank-account')).toBe(1);
  });

  test('an open request filed unsealed is sealed before the bot takes its first click', async ({
    fx,
    networkId,
  }) => {
    const unsealed = await fileDraft(fx.engine, withdrawalDraft(networkId, '5100'));
    await rewrite(fx.store, unsealed.id, ({ sealed: _seal, ...stored }) => stored as ApprovalRequest);
    // What a start does before Slack takes clicks (the rest of the engine's start comes after).
    await fx.engine.openTrail();
    const device = await deviceFor(fx.engine, APPROVER_A);
    expect((await signAndApprove(fx.engine, unsealed.id, APPROVER_A, device)).result).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    expect((await fx.engine.get(unsealed.id))?.state).toBe('sent');
  });

  test('an open request filed unsealed is sealed once at start, and is sent; a broken seal is not renewed', async ({
    fx,
    networkId,
  }) => {
    const unsealed = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const changed = await fileDraft(fx.engine, withdrawalDraft(networkId, '6000'));
    expect(unsealed.sealed).toBeDefined();
    // As a request filed before requests were sealed is stored; and one rewritten in the store.
    await rewrite(fx.store, unsealed.id, ({ sealed: _seal, ...stored }) => stored as ApprovalRequest);
    await rewrite(fx.store, changed.id, (stored) => ({ ...stored, requester: OUTSIDER }));
    await fx.engine.start();
    await fx.engine.idle();
    const sealed = await fx.engine.get(unsealed.id);
    expect(sealed?.sealed).toBeDefined();
    expect(partsOf(fx.engine).core.signed.filingSeal.holds(sealed as ApprovalRequest)).toBe(true);
    expect((await fx.engine.get(changed.id))?.sealed).toEqual(changed.sealed);
    const device = await deviceFor(fx.engine, APPROVER_A);
    for (const id of [unsealed.id, changed.id]) {
      expect((await signAndApprove(fx.engine, id, APPROVER_A, device)).result).toMatchObject({ ok: true });
    }
    await fx.engine.idle();
    expect((await fx.engine.get(unsealed.id))?.state).toBe('sent');
    expect(await fx.engine.get(changed.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FILING_SEAL_BROKEN },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });
});
