// The bot's seal on each passkey record it writes to the book: an Ed25519 signature by the audit
// signing key (kept outside the store) over the record's identity: environment, credential, owner,
// public key, the registration that made it count, when it was added, and its revocation. Someone who
// can write to the store but does not hold the key cannot add a passkey of their own, swap a public
// key, or edit a revocation: the record's seal no longer holds and the passkey counts as not held.
// The counter and the last use change on every use and are not sealed. A sealed record put back
// whole (an old one, from before its revocation) still holds here; `npm run audit:verify` finds that
// from the audit chain. docs/decisions/passkey-signed-approvals.md.
import { createPublicKey, generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import type { Passkey } from '../access/index.js';
import { AuditSigner, canonicalJson } from '../audit/index.js';

/** What seals: the audit signing key (sign, and its public key as 64 hex digits). */
export type PasskeySealer = Pick<AuditSigner, 'sign' | 'publicKey'>;

/** A key made for this process alone, where no audit signing key is given: its seals end with it. */
export function processSealer(): PasskeySealer {
  return new AuditSigner(generateKeyPairSync('ed25519').privateKey, 'made for this process');
}

/** What a passkey record's seal covers (never its counter or last use). */
function sealText(environment: string, p: Passkey): string {
  return canonicalJson({
    signs: 'cngn-desk passkey',
    environment,
    credentialId: p.credentialId,
    user: p.user,
    publicKey: p.publicKey,
    requestId: p.registration.requestId,
    addedAt: p.addedAt,
    revoked: p.revoked ?? null,
  });
}

/** The record with the sealer's seal over its identity as it stands. */
export function sealPasskey(sealer: PasskeySealer, environment: string, p: Passkey): Passkey {
  const { seal: _old, ...record } = p;
  return { ...record, seal: { key: sealer.publicKey, value: sealer.sign(sealText(environment, record)) } };
}

/** A 64-hex-digit Ed25519 public key as a key object. */
function publicKeyOf(hex: string): KeyObject {
  const x = Buffer.from(hex, 'hex').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** Does the record carry a seal by `publicKey` (hex) over its identity as it stands now? */
export function sealHolds(publicKey: string, environment: string, p: Passkey): boolean {
  if (p.seal?.key !== publicKey) return false;
  return holds(publicKey, sealText(environment, p), p.seal.value);
}

/** What the closing of the first-passkeys click is sealed over: the environment and when it closed. */
const closedText = (environment: string, at: string): string =>
  canonicalJson({ signs: 'cngn-desk passkey click closed', environment, at });

/** The sticky marker that two approvers have held passkeys here, sealed. */
export interface ClickClosed {
  at: string;
  seal: { key: string; value: string };
}

export function sealClosed(sealer: PasskeySealer, environment: string, at: string): ClickClosed {
  return { at, seal: { key: sealer.publicKey, value: sealer.sign(closedText(environment, at)) } };
}

/** Does the marker carry a seal by `publicKey` over its environment and time? */
export function closedHolds(publicKey: string, environment: string, marker: ClickClosed): boolean {
  if (marker.seal?.key !== publicKey || typeof marker.at !== 'string') return false;
  return holds(publicKey, closedText(environment, marker.at), marker.seal.value);
}

/** Is `value` an Ed25519 signature by `publicKey` (hex) over `text`? */
export function holds(publicKey: string, text: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return verify(null, Buffer.from(text, 'utf8'), publicKeyOf(publicKey), Buffer.from(value, 'base64'));
  } catch {
    return false;
  }
}
