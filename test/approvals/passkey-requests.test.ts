// Registering a passkey in the engine: the browser's registration (made here by a software
// authenticator with real P-256 keys) is verified, then filed as "Register a passkey for @Ade" that
// another approver approves (never its owner, never a delegate); only then is it written into the
// passkey book, with who approved it and "unsigned: first passkeys" for a click. Revocation (one's
// own, or another approver's for a lost device) is at once and on the record.
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { describe, expect } from 'vitest';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { PASSKEY_REVOKED_ACTION } from '../../src/approvals/index.js';
import { PasskeyBook } from '../../src/approvals/passkey-book.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { engineTest } from '../support/engine.js';
import { register, TEST_RP_ID, TEST_SIGNING } from '../support/passkey-registration.js';
import { StoreControls } from '../support/store-controls.js';

const ADE = 'U_ADE'; // approver
const CHIDI = 'U_CHIDI'; // approver
const DAYO = 'U_DAYO'; // approver
const BOLA = 'U_BOLA'; // not an approver: Chidi's delegate
const EKENE = 'U_EKENE'; // neither
const DAY = 86_400_000;

const test = engineTest
  .extend('engineOptions', () => ({
    engine: {
      policy: new ApprovalPolicy({ approvers: [ADE, CHIDI, DAYO], tiers: parseTiers('0:1,1000000:3') }),
      signing: TEST_SIGNING,
    },
  }))
  .extend('engine', async ({ fx }) => fx.engine);

/** `user`'s browser registers a new passkey named `name` for a fresh challenge: the filing. */
async function filed(engine: ApprovalEngine, user: string, name = "Ade's MacBook") {
  const options = await engine.passkeys.registrationChallenge(user);
  const { response, credential } = register({ challenge: options.challenge });
  return {
    result: await engine.passkeys.filePasskey(user, { response, expectedChallenge: options.challenge, name }),
    credential,
  };
}

/** File and have `approver` approve: the passkey counts. */
async function registered(engine: ApprovalEngine, user: string, approver: string, name?: string) {
  const { result, credential } = await filed(engine, user, name);
  if (!result.ok) throw new Error(result.problem);
  expect((await approveAsSeen(engine, result.request.id, approver)).ok).toBe(true);
  await engine.idle();
  return { request: result.request, credential };
}

describe('registering a passkey', () => {
  test('gives the page a challenge for the user, user verification required, held passkeys excluded', async ({
    engine,
  }) => {
    const first = await engine.passkeys.registrationChallenge(ADE);
    expect(first).toMatchObject({
      rp: { id: TEST_RP_ID },
      user: { name: ADE },
      authenticatorSelection: { userVerification: 'required' },
      excludeCredentials: [],
    });
    // Ed25519, P-256, RSA, in that order, on every runtime (never ML-DSA, which Node 24 would add).
    expect(first.pubKeyCredParams.map((p) => p.alg)).toEqual([-8, -7, -257]);
    const { credential } = await registered(engine, ADE, CHIDI);
    const second = await engine.passkeys.registrationChallenge(ADE);
    expect(second.challenge).not.toBe(first.challenge);
    expect(second.excludeCredentials?.map((c) => c.id)).toEqual([credential.id]);
  });

  test('files "Register a passkey" for one approval besides the owner; it counts only once approved', async ({
    engine,
  }) => {
    const { result, credential } = await filed(engine, ADE);
    if (!result.ok) throw new Error(result.problem);
    expect(result.request).toMatchObject({
      kind: 'passkey',
      state: 'pending',
      requester: ADE,
      requiredApprovals: 1,
      payload: { user: ADE, name: "Ade's MacBook", credentialId: credential.id, counter: 0 },
    });
    expect(await engine.passkeys.passkeysOf(ADE)).toEqual([]);
    // The owner never approves their own registration.
    expect(await approveAsSeen(engine, result.request.id, ADE)).toMatchObject({
      ok: false,
      reason: 'requester',
    });
    expect((await approveAsSeen(engine, result.request.id, CHIDI)).ok).toBe(true);
    await engine.idle();
    expect((await engine.get(result.request.id))?.state).toBe('completed');
    const [passkey] = await engine.passkeys.passkeysOf(ADE);
    expect(passkey).toMatchObject({
      credentialId: credential.id,
      user: ADE,
      name: "Ade's MacBook",
      registration: { requestId: result.request.id, approvedBy: [CHIDI], unsigned: 'first passkeys' },
    });
    expect(passkey?.addedAt).toBeDefined();
    // On the record: the credential, its public key and who approved it, in the audit chain.
    const done = (await engine.audit(50)).find(
      (e) => e.requestId === result.request.id && e.action === 'completed',
    );
    expect(done).toMatchObject({
      kind: 'passkey',
      figures: {
        payload: { credentialId: credential.id, publicKey: passkey?.publicKey },
        approvals: [CHIDI],
      },
    });
    // The public key kept is the authenticator's own (COSE), so its signatures will verify.
    const key = new Uint8Array(Buffer.from(passkey?.publicKey ?? '', 'base64url'));
    const cose = isoCBOR.decodeFirst<Map<number, Uint8Array>>(key);
    const jwk = credential.publicKey.export({ format: 'jwk' });
    expect(Buffer.from(cose.get(-2) ?? []).toString('base64url')).toBe(jwk.x);
    expect(Buffer.from(cose.get(-3) ?? []).toString('base64url')).toBe(jwk.y);
  });

  test('is approved by an approver in their own right, never by a delegate', async ({ fx, engine }) => {
    const delegation = await engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
    expect((await approveAsSeen(engine, delegation.id, DAYO)).ok).toBe(true);
    await engine.idle();
    const { result } = await filed(engine, ADE);
    if (!result.ok) throw new Error(result.problem);
    expect(await approveAsSeen(engine, result.request.id, BOLA)).toMatchObject({
      ok: false,
      reason: 'not-approver',
    });
    // A delegate registers a passkey of their own, approved by an approver.
    const own = await registered(engine, BOLA, ADE, "Bola's phone");
    expect((await engine.get(own.request.id))?.state).toBe('completed');
    expect((await engine.passkeys.passkeysOf(BOLA)).map((p) => p.name)).toEqual(["Bola's phone"]);
  });

  test('is not held by a freeze of sends: nothing of it goes to the service', async ({ engine }) => {
    await engine.freezeSends(DAYO, 'checking a strange payout');
    const { request } = await registered(engine, ADE, CHIDI);
    expect(await engine.get(request.id)).toMatchObject({
      state: 'completed',
      outcome: { status: 'completed' },
    });
  });
});

describe('refusing a registration', () => {
  test('refuses a challenge used twice, given to someone else, or never given', async ({ engine }) => {
    const options = await engine.passkeys.registrationChallenge(ADE);
    const { response } = register({ challenge: options.challenge });
    expect(
      (
        await engine.passkeys.filePasskey(CHIDI, {
          response,
          expectedChallenge: options.challenge,
          name: 'x',
        })
      ).ok,
    ).toBe(false);
    const first = await engine.passkeys.filePasskey(ADE, {
      response,
      expectedChallenge: options.challenge,
      name: 'Key',
    });
    expect(first.ok).toBe(true);
    const again = await engine.passkeys.filePasskey(ADE, {
      response,
      expectedChallenge: options.challenge,
      name: 'Key 2',
    });
    expect(again).toEqual({
      ok: false,
      problem: 'This registration has expired or was already used: open a new link with /cngn passkey.',
    });
    const made = register({ challenge: 'bm90LWdpdmVu' });
    const never = await engine.passkeys.filePasskey(ADE, {
      response: made.response,
      expectedChallenge: 'bm90LWdpdmVu',
      name: 'K',
    });
    expect(never.ok).toBe(false);
  });

  test('refuses another origin, another relying party, another challenge, and no user verification', async ({
    engine,
  }) => {
    const cases = [
      { origin: 'https://evil.example.test' },
      { rpId: 'evil.example.test' },
      { userVerified: false },
      { otherChallenge: true },
    ];
    for (const bad of cases) {
      const options = await engine.passkeys.registrationChallenge(ADE);
      const challenge = bad.otherChallenge ? Buffer.from('another').toString('base64url') : options.challenge;
      const { response } = register({ challenge, ...bad });
      const result = await engine.passkeys.filePasskey(ADE, {
        response,
        expectedChallenge: options.challenge,
        name: 'Key',
      });
      expect(result, JSON.stringify(bad)).toMatchObject({ ok: false });
    }
    expect((await engine.openRequests()).filter((r) => r.kind === 'passkey')).toEqual([]);
  });

  test('refuses a credential already registered or waiting, a name already used, and an outsider', async ({
    engine,
  }) => {
    const { credential } = await registered(engine, ADE, CHIDI);
    const again = await engine.passkeys.registrationChallenge(ADE);
    const repeat = register({ challenge: again.challenge, credential });
    expect(
      await engine.passkeys.filePasskey(ADE, {
        response: repeat.response,
        expectedChallenge: again.challenge,
        name: 'Other',
      }),
    ).toEqual({
      ok: false,
      problem: 'This passkey is already registered.',
    });
    expect((await filed(engine, ADE, "Ade's MacBook")).result).toMatchObject({
      ok: false,
      problem: `You already have a passkey named "Ade's MacBook": choose another name.`,
    });
    const waiting = await filed(engine, ADE, 'Phone');
    expect(waiting.result.ok).toBe(true);
    const twice = await engine.passkeys.registrationChallenge(ADE);
    const same = register({ challenge: twice.challenge, credential: waiting.credential });
    const twin = await engine.passkeys.filePasskey(ADE, {
      response: same.response,
      expectedChallenge: twice.challenge,
      name: 'Tablet',
    });
    expect(twin).toMatchObject({ ok: false });
    expect((await filed(engine, EKENE, 'Mine')).result).toEqual({
      ok: false,
      problem: 'Only approvers and their delegates register passkeys here.',
    });
  });

  test('fails the execution of a credential another registration wrote meanwhile, writing nothing', async ({
    fx,
    engine,
  }) => {
    const { result, credential } = await filed(engine, ADE);
    if (!result.ok) throw new Error(result.problem);
    const book = engine.passkeys.signatures().book;
    await book.add({
      credentialId: credential.id,
      user: ADE,
      name: 'Elsewhere',
      publicKey: 'AA',
      counter: 0,
      addedAt: fx.clock.now().toISOString(),
      registration: { requestId: 'AR-OTHER', approvedBy: [DAYO] },
    });
    expect((await approveAsSeen(engine, result.request.id, CHIDI)).ok).toBe(true);
    await engine.idle();
    expect((await engine.get(result.request.id))?.state).toBe('failed');
    expect((await engine.passkeys.passkeysOf(ADE)).map((p) => p.name)).toEqual(['Elsewhere']);
  });
});

describe('revoking a passkey', () => {
  test('the owner ends their own at once, on the record', async ({ fx, engine }) => {
    const { request, credential } = await registered(engine, ADE, CHIDI);
    expect(await engine.passkeys.revokePasskey(ADE, ADE, 'No such key')).toMatchObject({ ok: false });
    const revoked = await engine.passkeys.revokePasskey(ADE, ADE, "Ade's MacBook");
    expect(revoked).toMatchObject({
      ok: true,
      revoked: [{ credentialId: credential.id, revoked: { by: ADE } }],
    });
    expect(await engine.passkeys.passkeysOf(ADE)).toEqual([]);
    const kept = await new PasskeyBook(fx.store, engine.environment()).byCredential(credential.id);
    expect(kept?.revoked).toMatchObject({ by: ADE, note: 'revoked by its owner' });
    expect((await engine.get(request.id))?.history.at(-1)).toMatchObject({
      action: PASSKEY_REVOKED_ACTION,
      actor: ADE,
    });
    const entry = (await engine.audit(50)).find((e) => e.action === PASSKEY_REVOKED_ACTION);
    expect(entry).toMatchObject({ requestId: request.id, kind: 'passkey', actor: ADE });
    expect(await engine.passkeys.revokePasskey(ADE, ADE, "Ade's MacBook")).toMatchObject({ ok: false });
  });

  test.for([
    ['two spaces', 'Ade’s  MacBook'],
    ['an ideographic space', 'Ade’s\u3000MacBook'],
    ['a no-break space', 'Ade’s\u00a0MacBook'],
  ])(
    'one filed with %s in its name is revoked by the words a command hears',
    async ([, name], { engine }) => {
      await registered(engine, ADE, CHIDI, name);
      // `/cngn passkey revoke Ade’s  MacBook` reaches the engine as words joined by one space.
      const revoked = await engine.passkeys.revokePasskey(DAYO, ADE, 'ade’s macbook');
      expect(revoked).toMatchObject({ ok: true, revoked: [{ revoked: { by: DAYO } }] });
      expect(await engine.passkeys.passkeysOf(ADE)).toEqual([]);
    },
  );

  test("another approver ends someone's (a lost device); a delegate or an outsider cannot", async ({
    engine,
  }) => {
    await registered(engine, ADE, CHIDI);
    expect(await engine.passkeys.revokePasskey(BOLA, ADE, "Ade's MacBook")).toEqual({
      ok: false,
      problem: "Only an approver can revoke someone else's passkey.",
    });
    expect(await engine.passkeys.revokePasskey(EKENE, ADE, "Ade's MacBook")).toMatchObject({ ok: false });
    expect((await engine.passkeys.passkeysOf(ADE)).length).toBe(1);
    const revoked = await engine.passkeys.revokePasskey(DAYO, ADE, "Ade's MacBook");
    expect(revoked).toMatchObject({
      ok: true,
      revoked: [{ revoked: { by: DAYO, note: 'revoked by another approver' } }],
    });
    expect(await engine.passkeys.passkeysOf(ADE)).toEqual([]);
  });
});

describe('a registration whose write was interrupted', () => {
  test('is settled from the book: completed when written, failed (it does not count) when not', async ({
    fx,
    engine,
  }) => {
    const { repo } = partsOf(engine).core;
    const book = engine.passkeys.signatures().book;
    const at = fx.clock.now().toISOString();
    const interrupted = async (name: string) => {
      const { result } = await filed(engine, ADE, name);
      if (!result.ok) throw new Error(result.problem);
      const step = { at, state: 'outcome-unknown' as const, action: 'interrupted' };
      const unknown = {
        ...result.request,
        state: 'outcome-unknown' as const,
        approvals: [{ user: CHIDI, at }],
        history: [...result.request.history, step],
      };
      await repo.save(unknown);
      return unknown;
    };
    const written = await interrupted('Written');
    const p = written.payload;
    await book.add({ ...p, addedAt: at, registration: { requestId: written.id, approvedBy: [CHIDI] } });
    const lost = await interrupted('Lost');
    await engine.tick();
    expect((await engine.get(written.id))?.state).toBe('completed');
    expect(await engine.get(lost.id)).toMatchObject({
      state: 'failed',
      outcome: {
        reason:
          'writing the passkey was not confirmed, and it is now barred from landing later; it does not count. Register it again.',
      },
    });
    expect((await engine.passkeys.passkeysOf(ADE)).map((k) => k.name)).toEqual(['Written']);
  });

  test('is failed only once the book bars it: a write still under way never makes the passkey count', async ({
    startEngine,
    engineOptions,
    defer,
  }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const { engine } = await startEngine({ ...engineOptions, store: controls.wrap(memory) });
    const { result, credential } = await filed(engine, ADE);
    if (!result.ok) throw new Error(result.problem);
    const late = controls.answerLate('passkeys:', (next) => JSON.stringify(next).includes(credential.id));
    expect((await approveAsSeen(engine, result.request.id, CHIDI)).ok).toBe(true);
    await engine.idle();
    expect((await engine.get(result.request.id))?.state).toBe('outcome-unknown');
    await engine.tick();
    expect(await engine.get(result.request.id)).toMatchObject({ state: 'failed' });
    // The write the store was still running commits now: refused, since the book it read changed.
    expect(await late.landed()).toBe(false);
    expect(await engine.passkeys.passkeysOf(ADE)).toEqual([]);
    // Its owner registers again, with a new credential, and that one counts.
    await registered(engine, ADE, CHIDI, 'Again');
    expect((await engine.passkeys.passkeysOf(ADE)).map((k) => k.name)).toEqual(['Again']);
  });
});
