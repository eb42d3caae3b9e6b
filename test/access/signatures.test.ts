// Checking an approver's assertion: real P-256 keys and signatures from the software authenticator,
// each way an assertion can be wrong refused with its own reason, and a registration response that the
// library itself accepts.
import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import type { Passkey } from '../../src/access/passkeys.js';
import { type EvidenceCheck, verifyEvidence } from '../../src/access/signatures.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';

const place = { rpId: 'desk.example.com', origin: 'https://desk.example.com' };
const challenge = Buffer.from('the challenge of one request').toString('base64url');

function setUp(options: { counts?: boolean } = {}) {
  const device = new SoftwareAuthenticator({ user: 'U_BOLA', ...place, ...options });
  const registered = device.passkey();
  const check = (more: Partial<EvidenceCheck> = {}): EvidenceCheck => ({
    ...place,
    user: 'U_BOLA',
    passkey: registered,
    challenge,
    ...more,
  });
  return { device, check };
}

describe('verifyEvidence', () => {
  it('accepts an assertion by the approver’s own passkey over the challenge, with its new counter', async () => {
    const { device, check } = setUp();
    const checked = check();
    expect(await verifyEvidence(device.assert(challenge, 'n1'), checked)).toEqual({ ok: true, counter: 1 });
  });

  it('refuses a stored passkey whose key registration would not take (ES384 on P-384), before checking it', async () => {
    const device = new SoftwareAuthenticator({ user: 'U_BOLA', ...place, curve: 'P-384' });
    const check: EvidenceCheck = { ...place, user: 'U_BOLA', passkey: device.passkey(), challenge };
    expect(await verifyEvidence(device.assert(challenge, 'n1'), check)).toEqual({
      ok: false,
      reason: 'unsupported-key',
    });
  });

  it('refuses, never throws, when the stored public key is malformed or missing', async () => {
    const { device, check } = setUp();
    const stored = device.passkey();
    for (const publicKey of [null, undefined, '!!!', '']) {
      const passkey = { ...stored, publicKey } as unknown as Passkey;
      expect(await verifyEvidence(device.assert(challenge, 'n1'), check({ passkey }))).toEqual({
        ok: false,
        reason: 'unsupported-key',
      });
    }
  });

  it('accepts an authenticator that keeps no counter', async () => {
    const { device, check } = setUp({ counts: false });
    expect(await verifyEvidence(device.assert(challenge, 'n1'), check())).toEqual({ ok: true, counter: 0 });
    expect(await verifyEvidence(device.assert(challenge, 'n2'), check())).toEqual({ ok: true, counter: 0 });
  });

  it('refuses each wrong assertion with its own reason', async () => {
    const { device, check } = setUp();
    const refused = async (evidence: ReturnType<typeof device.assert>, more: Partial<EvidenceCheck> = {}) =>
      verifyEvidence(evidence, check(more));
    expect(await refused(device.assert(challenge, 'n'), { passkey: undefined })).toEqual({
      ok: false,
      reason: 'unknown-passkey',
    });
    expect(await refused(device.assert(challenge, 'n'), { user: 'U_CHIDI' })).toMatchObject({
      reason: 'not-own-passkey',
    });
    const revoked = device.passkey({ revoked: { at: new Date().toISOString(), by: 'U_BOLA' } });
    expect(await refused(device.assert(challenge, 'n'), { passkey: revoked })).toMatchObject({
      reason: 'revoked-passkey',
    });
    expect(await refused(device.assert(challenge, 'n', { origin: 'https://evil.example' }))).toMatchObject({
      reason: 'wrong-origin',
    });
    expect(await refused(device.assert(challenge, 'n', { rpId: 'evil.example' }))).toMatchObject({
      reason: 'wrong-rp',
    });
    expect(await refused(device.assert(challenge, 'n', { noUv: true }))).toMatchObject({
      reason: 'no-user-verification',
    });
    expect(await refused(device.assert('b3RoZXI', 'n'))).toMatchObject({ reason: 'wrong-challenge' });
    expect(await refused(device.assert(challenge, 'n', { badSignature: true }))).toMatchObject({
      reason: 'bad-signature',
    });
  });

  it('refuses, never throws, a client data that is JSON but no object (null, a number, a list …)', async () => {
    const { device, check } = setUp();
    for (const text of ['null', '5', 'true', '"webauthn.get"', '[]']) {
      const evidence = {
        ...device.assert(challenge, 'n'),
        clientDataJSON: Buffer.from(text).toString('base64url'),
      };
      expect(await verifyEvidence(evidence, check())).toEqual({ ok: false, reason: 'bad-signature' });
    }
  });

  it('refuses a counter that goes backwards (a cloned authenticator), unless told to skip it', async () => {
    const { device, check } = setUp();
    const used = device.passkey({ counter: 5 });
    const back = device.assert(challenge, 'n', { counter: 4 });
    expect(await verifyEvidence(back, check({ passkey: used }))).toMatchObject({
      reason: 'counter-went-back',
    });
    expect(await verifyEvidence(back, check({ passkey: used, skipCounter: true }))).toEqual({
      ok: true,
      counter: 4,
    });
  });

  it('a passkey revoked after the approval was made still counts for it (held at that time)', async () => {
    const { device, check } = setUp();
    const madeAt = new Date();
    const later = device.passkey({
      revoked: { at: new Date(madeAt.getTime() + 1000).toISOString(), by: 'U_X' },
    });
    const evidence = device.assert(challenge, 'n');
    expect(await verifyEvidence(evidence, check({ passkey: later, heldAt: madeAt }))).toMatchObject({
      ok: true,
    });
    expect(await verifyEvidence(evidence, check({ passkey: later }))).toMatchObject({
      reason: 'revoked-passkey',
    });
    const before = new Date(Date.parse(device.passkey().addedAt) - 1000);
    expect(await verifyEvidence(evidence, check({ heldAt: before }))).toMatchObject({
      reason: 'unknown-passkey',
    });
  });

  it('makes a registration response the library verifies (attestation none)', async () => {
    const device = new SoftwareAuthenticator({ user: 'U_BOLA', ...place });
    const options = await generateRegistrationOptions({
      rpName: 'cngn-desk',
      rpID: place.rpId,
      userName: 'U_BOLA',
      attestationType: 'none',
    });
    const verified = await verifyRegistrationResponse({
      response: device.registrationResponse(options.challenge),
      expectedChallenge: options.challenge,
      expectedOrigin: place.origin,
      expectedRPID: place.rpId,
      requireUserVerification: true,
    });
    expect(verified.verified).toBe(true);
    expect(Buffer.from(verified.registrationInfo?.credential.publicKey ?? []).toString('base64url')).toBe(
      device.passkey().publicKey,
    );
  });
});
