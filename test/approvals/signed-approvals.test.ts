// Passkey-signed approvals through the engine, with real P-256 signatures from the software
// authenticator: a click is refused where a signature is needed; a signed approval is recorded with
// its assertion and sent, a delegate's in the place of the approver who delegated too; a replayed,
// misdirected or cloned assertion is refused with nothing recorded; and just before the one service
// call, an approval written into the store by hand, a copy of one, the requester's own, an approver's
// own beside their delegate's, or figures changed after signing, sends nothing and fails the request.
import { describe, expect } from 'vitest';
import type { ApprovalEvidence } from '../../src/access/index.js';
import { parseSigningRule } from '../../src/access/passkeys.js';
import { approvalBytes, approvalChallenge } from '../../src/approvals/approval-digest.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import {
  EVIDENCE_FAILED,
  mayApproveUnsigned,
  type SigningEvent,
} from '../../src/approvals/signed-approvals.js';
import { withApproval } from '../../src/approvals/state-machine.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen, seenOf } from '../support/approve-as-seen.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  APPROVER_A,
  APPROVER_B,
  engineTest,
  OUTSIDER,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
const signing = { rule: parseSigningRule('all'), ...place };
const test = engineTest
  .extend('engineOptions', { engine: { signing } })
  /** An engine on a memory store whose writes the test controls, its first network, and Bola's passkey. */
  .extend('controlled', async ({ startEngine, defer }) => async (tiers?: string) => {
    const controls = new StoreControls();
    const store = await createStore('memory://');
    defer(() => store.close());
    const fx = await startEngine({
      store: controls.wrap(store),
      ...(tiers ? { tiers } : {}),
      engine: { signing },
    });
    const [networkId] = await twoNetworks(fx.client);
    const device = await deviceFor(fx.engine, APPROVER_B);
    return { controls, fx, networkId, device };
  });

/** A registered passkey for `user`, in the engine's book. */
async function deviceFor(engine: ApprovalEngine, user: string): Promise<SoftwareAuthenticator> {
  const device = new SoftwareAuthenticator({ user, ...place });
  await engine.passkeys.signatures().book.add(device.passkey());
  return device;
}

/**
 * A delegates to the outsider for three days, approved by B and the requester signing (every request
 * needs two approvals); passkeys for A, B, the requester and the outsider.
 */
async function delegateForA(engine: ApprovalEngine) {
  const deviceA = await deviceFor(engine, APPROVER_A);
  const deviceB = await deviceFor(engine, APPROVER_B);
  const deviceO = await deviceFor(engine, OUTSIDER);
  const deviceR = await deviceFor(engine, REQUESTER);
  const until = new Date(Date.now() + 3 * 86_400_000);
  const delegation = await engine.fileDelegation(APPROVER_A, OUTSIDER, until);
  for (const [user, device] of [
    [APPROVER_B, deviceB],
    [REQUESTER, deviceR],
  ] as const) {
    const { result } = await signAndApprove(engine, delegation.id, user, device);
    expect(result).toMatchObject({ ok: true });
  }
  await engine.idle();
  expect((await engine.get(delegation.id))?.state).toBe('completed');
  return { deviceA, deviceB, deviceO };
}

type Misbehaviour = Parameters<SoftwareAuthenticator['assert']>[2];

/** `user` signs `request`'s round with `device` as a signing page would. */
async function signFor(
  engine: ApprovalEngine,
  request: ApprovalRequest,
  user: string,
  device: SoftwareAuthenticator,
  bad: Misbehaviour = {},
) {
  const made = await engine.passkeys.signingChallenge(request.id, user, request.round);
  if (!made.ok || !('challenge' in made)) throw new Error(`no challenge: ${JSON.stringify(made)}`);
  return device.assert(made.challenge, made.nonce, bad);
}

/** `user` signs the current round of request `id` with `device` as a signing page would, then approves. */
async function signAndApprove(
  engine: ApprovalEngine,
  id: string,
  user: string,
  device: SoftwareAuthenticator,
  bad: Misbehaviour = {},
) {
  const request = await engine.get(id);
  if (!request) throw new Error('no request');
  const evidence = await signFor(engine, request, user, device, bad);
  return { evidence, result: await engine.approve(id, user, { ...seenOf(request), evidence }) };
}

/**
 * An approval by `user` (with `evidence`, if any) written into the store by hand, as someone with
 * write access could, then the executor run on the request: what was written.
 */
async function writeApprovalThenExecute(
  fx: { engine: ApprovalEngine; store: Store },
  id: string,
  user: string,
  evidence?: ApprovalEvidence,
): Promise<ApprovalRequest> {
  const repo = new ApprovalRepository(fx.store, 'sandbox');
  const stored = await repo.get(id);
  if (!stored) throw new Error('not stored');
  const written = withApproval(stored, user, new Date(), { evidence });
  expect(await repo.saveIf(stored, written)).toBe(true);
  await partsOf(fx.engine).executor.execute(id);
  await fx.engine.idle();
  return written;
}

/**
 * `user`'s assertion with `device` over `request`'s bytes and a nonce the book issued, made by hand:
 * no signing page would give `user` a challenge for it.
 */
async function assertedByHand(
  engine: ApprovalEngine,
  request: ApprovalRequest,
  user: string,
  device: SoftwareAuthenticator,
) {
  const book = engine.passkeys.signatures().book;
  const nonce = await book.issueNonce({ requestId: request.id, user, round: request.round });
  return device.assert(approvalChallenge(approvalBytes(request), nonce), nonce);
}

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

  test('a replayed, misdirected, another person’s or cloned assertion is refused, nothing recorded', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500000'));
    const deviceA = await deviceFor(fx.engine, APPROVER_A);
    const deviceB = await deviceFor(fx.engine, APPROVER_B);
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
