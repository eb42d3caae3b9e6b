// The bot's seal on the passkey book's records: a passkey written straight into the store (by someone
// with write access to it but not the audit signing key) cannot approve, and an approval signed with
// it and written beside the request sends nothing; a sealed record whose public key or revocation is
// edited in the store counts as not held.
import { describe, expect } from 'vitest';
import type { Passkey } from '../../src/access/passkeys.js';
import { parseSigningRule } from '../../src/access/passkeys.js';
import { approvalBytes, approvalChallenge } from '../../src/approvals/approval-digest.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { EVIDENCE_FAILED } from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { APPROVER_A, engineTest, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
const test = engineTest.extend('engineOptions', {
  engine: { signing: { rule: parseSigningRule('all'), ...place } },
});
const BOOK = 'passkeys:sandbox';

const bookOf = (engine: ApprovalEngine) => engine.passkeys.signatures().book;

describe('sealed passkeys', () => {
  test('a passkey written straight into the store cannot approve, and its approval sends nothing', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const device = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
    await fx.store.set(BOOK, [device.passkey()]);
    expect(await bookOf(fx.engine).heldBy(APPROVER_A)).toEqual([]);
    expect(await fx.engine.passkeys.signingChallenge(request.id, APPROVER_A, request.round)).toMatchObject({
      ok: false,
      refusal: 'no-passkey',
    });
    // The writer can also write a nonce, and sign the request's bytes with the key they added.
    const nonce = await bookOf(fx.engine).issueNonce({
      requestId: request.id,
      user: APPROVER_A,
      round: request.round,
    });
    const evidence = device.assert(approvalChallenge(approvalBytes(request), nonce), nonce);
    expect(await fx.engine.approve(request.id, APPROVER_A, { ...seenOf(request), evidence })).toMatchObject({
      ok: false,
      reason: 'unknown-passkey',
    });
    const repo = new ApprovalRepository(fx.store, 'sandbox');
    const stored = await repo.get(request.id);
    if (!stored) throw new Error('not stored');
    expect(await repo.saveIf(stored, withApproval(stored, APPROVER_A, new Date(), { evidence }))).toBe(true);
    await partsOf(fx.engine).executor.execute(request.id);
    await fx.engine.idle();
    expect(await fx.engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: EVIDENCE_FAILED, nothingSent: true },
    });
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('a sealed record with its public key swapped in the store counts as not held', async ({ fx }) => {
    const own = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
    const thief = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
    expect(await bookOf(fx.engine).add(own.passkey())).toBe(true);
    expect(await bookOf(fx.engine).heldBy(APPROVER_A)).toHaveLength(1);
    const [sealed] = (await fx.store.get<Passkey[]>(BOOK)) ?? [];
    await fx.store.set(BOOK, [{ ...sealed, publicKey: thief.passkey().publicKey }]);
    expect(await bookOf(fx.engine).heldBy(APPROVER_A)).toEqual([]);
    expect(await bookOf(fx.engine).byCredential(own.credentialId)).toBeUndefined();
  });

  test('a revocation edited out of a record leaves the passkey not held; use keeps the seal', async ({
    fx,
  }) => {
    const device = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
    const book = bookOf(fx.engine);
    expect(await book.add(device.passkey())).toBe(true);
    expect(await book.advanceCounter(device.credentialId, 4, 'n1', new Date())).toBe(true);
    expect(await book.heldBy(APPROVER_A)).toHaveLength(1);
    expect(await book.revoke(device.credentialId, APPROVER_A, new Date())).toBe(true);
    expect(await book.byCredential(device.credentialId)).toMatchObject({ revoked: { by: APPROVER_A } });
    const [revoked] = (await fx.store.get<Passkey[]>(BOOK)) ?? [];
    const { revoked: _gone, ...unrevoked } = revoked as Passkey;
    await fx.store.set(BOOK, [unrevoked]);
    expect(await book.heldBy(APPROVER_A)).toEqual([]);
    expect(await book.byCredential(device.credentialId)).toBeUndefined();
  });

  test('revoking a record written into the store does not seal it', async ({ fx }) => {
    const device = new SoftwareAuthenticator({ user: APPROVER_A, ...place });
    await fx.store.set(BOOK, [device.passkey()]);
    expect(await bookOf(fx.engine).revoke(device.credentialId, APPROVER_A, new Date())).toBe(false);
    expect(await bookOf(fx.engine).sealed()).toEqual([]);
  });
});
