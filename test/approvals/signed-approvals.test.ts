// Passkey-signed approvals through the engine, with real P-256 signatures from the software
// authenticator (signed-support.ts): a click is refused where a signature is needed; a signed approval
// is recorded with its assertion and sent; a replayed, misdirected or cloned assertion is refused with
// nothing recorded, as is one whose passkey was revoked while it waited; steps run again keep their
// approvals; an amount rule and the first two registrations decide when a signature is needed.
import { describe, expect } from 'vitest';
import { parseSigningRule } from '../../src/access/passkeys.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { mayApproveUnsigned, type SigningEvent } from '../../src/approvals/signed-approvals.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import { redemptionDraft } from '../support/drafts.js';
import { APPROVER_A, APPROVER_B, REQUESTER, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { deviceFor, filedForTwo, place, signAndApprove, signFor, signing, test } from './signed-support.js';

describe('signed approvals', () => {
  test('a click is refused where a signature is needed; a signed approval is recorded and sent', async ({
    fx,
    networkId,
  }) => {
    const events: SigningEvent[] = [];
    fx.engine.passkeys.signatures().onEvent((event) => events.push(event));
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect(await fx.engine.passkeys.signatures().required(request)).toBe(true);
    expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'signature-required',
    });
    expect(await fx.engine.passkeys.signingChallenge(request.id, APPROVER_A, request.round)).toMatchObject({
      ok: false,
      refusal: 'no-passkey',
    });
    const device = await deviceFor(fx.engine, APPROVER_A);
    const made = await fx.engine.passkeys.signingChallenge(request.id, APPROVER_A, request.round);
    expect(made).toMatchObject({ ok: true, allowCredentials: [device.credentialId], ...place });
    if (made.ok) expect(made.bytes).toContain(`id=${request.id}\n`);

    const { evidence, result } = await signAndApprove(fx.engine, request.id, APPROVER_A, device);
    expect(result).toMatchObject({ ok: true });
    await fx.engine.idle();
    const sent = await fx.engine.get(request.id);
    expect(sent?.state).toBe('sent');
    expect(sent?.approvals).toEqual([expect.objectContaining({ user: APPROVER_A, evidence })]);
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    expect(events).toEqual([
      { refused: 'signature-required', requestId: request.id, user: APPROVER_A },
      { signed: 'withdraw' },
    ]);
    expect(await fx.engine.passkeys.signatures().book.byCredential(device.credentialId)).toMatchObject({
      counter: 1,
      lastUsedAt: expect.any(String),
    });
  });

  test('puts each approval’s assertion and the round it signed into the audit chain', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const device = await deviceFor(fx.engine, APPROVER_A);
    const { evidence } = await signAndApprove(fx.engine, request.id, APPROVER_A, device);
    await fx.engine.idle();
    const entries = (await fx.engine.audit(20)).filter((e) => e.requestId === request.id);
    const approved = entries.find((e) => e.action === 'approved');
    expect(approved?.figures).toMatchObject({
      round: request.round,
      signatures: [{ user: APPROVER_A, ...evidence }],
    });
    expect(entries.find((e) => e.action === 'filed')?.figures?.signatures).toBeUndefined();
    expect((await fx.engine.verifyAudit()).ok).toBe(true);
  });

  test('puts a refused passkey approval on the request’s record: who, and why', async ({ fx, networkId }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const device = await deviceFor(fx.engine, APPROVER_A);
    await approveAsSeen(fx.engine, request.id, APPROVER_B);
    expect(
      (await signAndApprove(fx.engine, request.id, APPROVER_A, device, { origin: 'https://evil.example' }))
        .result,
    ).toMatchObject({ ok: false, reason: 'wrong-origin' });
    await fx.engine.idle();
    const refused = (await fx.engine.audit(20)).filter(
      (e) => e.requestId === request.id && e.action === 'signature-refused',
    );
    expect(refused.map((e) => [e.actor, e.note])).toEqual([
      [APPROVER_B, 'a passkey approval did not count: signature-required'],
      [APPROVER_A, 'a passkey approval did not count: wrong-origin'],
    ]);
    expect((await fx.engine.verifyAudit()).ok).toBe(true);
  });

  test('an assertion whose client data is JSON null is refused and on the record, not thrown', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const device = await deviceFor(fx.engine, APPROVER_A);
    const signed = await signFor(fx.engine, request, APPROVER_A, device);
    const evidence = { ...signed, clientDataJSON: Buffer.from('null').toString('base64url') };
    expect(await fx.engine.approve(request.id, APPROVER_A, { ...seenOf(request), evidence })).toMatchObject({
      ok: false,
      reason: 'bad-signature',
    });
    await fx.engine.idle();
    const refused = (await fx.engine.audit(20)).filter(
      (e) => e.requestId === request.id && e.action === 'signature-refused',
    );
    expect(refused.map((e) => [e.actor, e.note])).toEqual([
      [APPROVER_A, 'a passkey approval did not count: bad-signature'],
    ]);
  });

  test('a replayed, misdirected, another person’s or cloned assertion is refused, nothing recorded', async ({
    fx,
    networkId,
  }) => {
    const { request, deviceA, deviceB } = await filedForTwo(fx, networkId);
    const wrong = await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA, {
      origin: 'https://x.example',
    });
    expect(wrong.result).toMatchObject({ ok: false, reason: 'wrong-origin' });
    const noUv = await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA, { noUv: true });
    expect(noUv.result).toMatchObject({ ok: false, reason: 'no-user-verification' });
    // B's page, A's passkey: the challenge was issued for B, but the passkey is A's.
    const other = await signAndApprove(fx.engine, request.id, APPROVER_B, deviceA);
    expect(other.result).toMatchObject({ ok: false, reason: 'not-own-passkey' });
    expect((await fx.engine.get(request.id))?.approvals).toEqual([]);

    const good = await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
    expect(good.result).toMatchObject({ ok: true });
    // The same assertion again (its nonce is spent), as B would replay it: refused.
    const seen = seenOf((await fx.engine.get(request.id)) ?? request);
    const replayed = await fx.engine.approve(request.id, APPROVER_B, { ...seen, evidence: good.evidence });
    expect(replayed).toMatchObject({ ok: false, reason: 'challenge-used' });
    // B's authenticator, cloned: its counter goes back.
    await fx.engine.passkeys.signatures().book.advanceCounter(deviceB.credentialId, 10, 'n0', new Date());
    const cloned = await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB, { counter: 3 });
    expect(cloned.result).toMatchObject({ ok: false, reason: 'counter-went-back' });
    expect((await fx.engine.get(request.id))?.approvals).toHaveLength(1);
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('two requests signed at once by one cloned authenticator: one approval counts, the other is refused', async ({
    controlled,
  }) => {
    const { controls, fx, networkId, device } = await controlled();
    const requests = [
      await fileDraft(fx.engine, withdrawalDraft(networkId, '5000')),
      await fileDraft(fx.engine, withdrawalDraft(networkId, '6000')),
    ];
    const signed = [];
    for (const request of requests) {
      const made = await fx.engine.passkeys.signingChallenge(request.id, APPROVER_B, request.round);
      if (!made.ok || !('challenge' in made)) throw new Error('no challenge');
      // The clone signs with the counter the original has just used.
      signed.push({ request, evidence: device.assert(made.challenge, made.nonce, { counter: 1 }) });
    }
    // Both approvals meet at the passkey book's lock: neither's counter is recorded before the other's check.
    void controls.holdLock('passkeys:sandbox:write', 2);
    const results = await Promise.all(
      signed.map(({ request, evidence }) =>
        fx.engine.approve(request.id, APPROVER_B, { ...seenOf(request), evidence }),
      ),
    );
    expect(results.map((r) => (r.ok ? 'ok' : r.reason)).sort()).toEqual(['counter-went-back', 'ok']);
    const approvals = await Promise.all(
      requests.map(async (r) => (await fx.engine.get(r.id))?.approvals.length),
    );
    expect(approvals.sort()).toEqual([0, 1]);
    expect(await fx.engine.passkeys.signatures().book.byCredential(device.credentialId)).toMatchObject({
      counter: 1,
    });
  });

  test('an approval whose write is refused after its counter moved is recorded once when its step runs again', async ({
    controlled,
  }) => {
    const { controls, fx, networkId, device } = await controlled('0:2');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    let refused = false;
    controls.refuseSwap(`approval:${request.id}`, async () => {
      refused = true;
    });
    const { result } = await signAndApprove(fx.engine, request.id, APPROVER_B, device);
    expect(refused).toBe(true);
    expect(result).toMatchObject({ ok: true });
    expect((await fx.engine.get(request.id))?.approvals.map((a) => a.user)).toEqual([APPROVER_B]);
    expect(await fx.engine.passkeys.signatures().book.byCredential(device.credentialId)).toMatchObject({
      counter: 1,
    });
  });

  test('one passkey signs two requests at once; the first, refused and run again after the second, still counts', async ({
    controlled,
  }) => {
    const { controls, fx, networkId, device } = await controlled('0:2');
    const [x, y] = [
      await fileDraft(fx.engine, withdrawalDraft(networkId, '5000')),
      await fileDraft(fx.engine, withdrawalDraft(networkId, '6000')),
    ];
    const signedX = await signFor(fx.engine, x, APPROVER_B, device, { counter: 5 });
    const signedY = await signFor(fx.engine, y, APPROVER_B, device, { counter: 6 });
    // X's counter (5) is recorded, then its approval's write is refused; Y's (6) is recorded meanwhile.
    let yResult: Awaited<ReturnType<ApprovalEngine['approve']>> | undefined;
    controls.refuseSwap(`approval:${x.id}`, async () => {
      yResult = await fx.engine.approve(y.id, APPROVER_B, { ...seenOf(y), evidence: signedY });
    });
    const xResult = await fx.engine.approve(x.id, APPROVER_B, { ...seenOf(x), evidence: signedX });
    expect(yResult).toMatchObject({ ok: true });
    expect(xResult).toMatchObject({ ok: true });
    for (const request of [x, y]) {
      expect((await fx.engine.get(request.id))?.approvals.map((a) => a.user)).toEqual([APPROVER_B]);
    }
    expect(await fx.engine.passkeys.signatures().book.byCredential(device.credentialId)).toMatchObject({
      counter: 6,
    });
  });

  test('a step run again still counts after its passkey signed more than eight others meanwhile', async ({
    controlled,
  }) => {
    const { controls, fx, networkId, device } = await controlled('0:2');
    const first = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const others: ApprovalRequest[] = [];
    for (let i = 1; i <= 9; i++)
      others.push(await fileDraft(fx.engine, withdrawalDraft(networkId, `${5000 + i}`)));
    const signedFirst = await signFor(fx.engine, first, APPROVER_B, device);
    // The first's counter is recorded, then its approval's write is refused; nine more count meanwhile.
    const meanwhile: Array<Awaited<ReturnType<ApprovalEngine['approve']>>> = [];
    controls.refuseSwap(`approval:${first.id}`, async () => {
      for (const other of others) {
        meanwhile.push((await signAndApprove(fx.engine, other.id, APPROVER_B, device)).result);
      }
    });
    const result = await fx.engine.approve(first.id, APPROVER_B, { ...seenOf(first), evidence: signedFirst });
    expect(meanwhile.map((r) => r.ok)).toEqual(others.map(() => true));
    expect(result).toMatchObject({ ok: true });
    for (const request of [first, ...others]) {
      expect((await fx.engine.get(request.id))?.approvals.map((a) => a.user)).toEqual([APPROVER_B]);
    }
    expect(await fx.engine.passkeys.signatures().book.byCredential(device.credentialId)).toMatchObject({
      counter: 10,
    });
  });

  test('a passkey revoked while its checked assertion waits for the book: refused, its counter not moved', async ({
    controlled,
  }) => {
    const { controls, fx, networkId, device } = await controlled('0:2');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    const book = fx.engine.passkeys.signatures().book;
    const evidence = await signFor(fx.engine, request, APPROVER_B, device);
    // The revocation reaches the book's lock first; the approval, checked against the book before it, next.
    const bothArrived = controls.holdLock('passkeys:sandbox:write', 2);
    const revoking = book.revoke(device.credentialId, APPROVER_B, new Date());
    const approving = fx.engine.approve(request.id, APPROVER_B, { ...seenOf(request), evidence });
    await bothArrived;
    expect(await revoking).toBe(true);
    expect(await approving).toMatchObject({ ok: false, reason: 'revoked-passkey' });
    expect((await fx.engine.get(request.id))?.approvals).toEqual([]);
    expect(await book.byCredential(device.credentialId)).toMatchObject({
      counter: 0,
      revoked: { by: APPROVER_B },
    });
  });

  test('a final approval whose figures are read again first keeps its assertion', async ({ fx }) => {
    const filed = await fileDraft(fx.engine, redemptionDraft(REQUESTER, 'To be resolved'));
    const device = await deviceFor(fx.engine, APPROVER_A);
    // The bank gives another account name: sent back to the approvers, nothing approved.
    const first = await signAndApprove(fx.engine, filed.id, APPROVER_A, device);
    expect(first.result).toMatchObject({ ok: true, request: { state: 'pending', round: filed.round + 1 } });
    const second = await signAndApprove(fx.engine, filed.id, APPROVER_A, device);
    expect(second.result).toMatchObject({ ok: true, request: { state: 'approved' } });
    await fx.engine.idle();
    const sent = await fx.engine.get(filed.id);
    expect(sent?.state).toBe('sent');
    expect(sent?.approvals).toEqual([
      expect.objectContaining({ user: APPROVER_A, evidence: second.evidence }),
    ]);
    expect(fx.sandbox.count('POST', '/v1/api/redeemAsset')).toBe(1);
  });

  test('above:<amount> asks for a passkey only above that amount', async ({ startEngine }) => {
    const fx = await startEngine({
      engine: { signing: { ...signing, rule: parseSigningRule('above:1000000') } },
    });
    const [networkId] = await twoNetworks(fx.client);
    const small = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
    expect(await fx.engine.passkeys.signatures().required(small)).toBe(false);
    expect(await fx.engine.passkeys.signingChallenge(small.id, APPROVER_A, small.round)).toMatchObject({
      ok: false,
      refusal: 'signature-not-needed',
    });
    expect(await approveAsSeen(fx.engine, small.id, APPROVER_A)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(small.id))?.state).toBe('sent');
    const large = await fileDraft(fx.engine, withdrawalDraft(networkId, '1000000.01'));
    expect(await fx.engine.passkeys.signatures().required(large)).toBe(true);
  });

  test('a passkey registration may be approved by click until two people hold a passkey', async ({ fx }) => {
    const book = fx.engine.passkeys.signatures().book;
    const registration = { kind: 'passkey' } as unknown as Parameters<typeof mayApproveUnsigned>[0];
    expect(await mayApproveUnsigned(registration, book)).toBe(true);
    await deviceFor(fx.engine, APPROVER_A);
    expect(await mayApproveUnsigned(registration, book)).toBe(true);
    await deviceFor(fx.engine, APPROVER_B);
    expect(await mayApproveUnsigned(registration, book)).toBe(false);
    expect(await mayApproveUnsigned({ kind: 'withdraw' }, book)).toBe(false);
  });
});
