// Which approvals must be signed with a passkey (CNGN_SIGNED_APPROVALS), and the rule in words.
import { describe, expect, it } from 'vitest';
import {
  type ApprovalEvidence,
  describeSigningRule,
  heldAt,
  needsSignature,
  type Passkey,
  parseSigningRule,
} from '../../src/access/passkeys.js';

describe('the signing rule', () => {
  it.each([
    ['off', 'off'],
    ['', 'off'],
    ['all', 'all'],
    ['ALL', 'all'],
    ['above:250000', 'above'],
    ['above: 1,000,000.50', 'above'],
  ])('reads "%s" as %s', (text, mode) => {
    expect(parseSigningRule(text).mode).toBe(mode);
  });

  it.each(['some', 'above:', 'above:abc', 'above:-5', 'on'])('refuses "%s" with a sentence', (text) => {
    expect(() => parseSigningRule(text)).toThrow(/off, all or above|amount|negative|not/);
  });

  it('asks for no passkey when off, whatever the kind', () => {
    const off = parseSigningRule('off');
    for (const kind of [
      'withdraw',
      'whitelist',
      'settlement',
      'delegation',
      'unfreeze',
      'passkey',
    ] as const) {
      expect(needsSignature(off, kind, '5000000.00')).toBe(false);
    }
  });

  it('signs money above the amount only, and every other kind always', () => {
    const above = parseSigningRule('above:250000');
    expect(needsSignature(above, 'withdraw', '250000.00')).toBe(false);
    expect(needsSignature(above, 'withdraw', '250000.01')).toBe(true);
    expect(needsSignature(above, 'redeem', '1000.00')).toBe(false);
    expect(needsSignature(above, 'bridge', '300000.00')).toBe(true);
    for (const kind of ['whitelist', 'settlement', 'delegation', 'unfreeze', 'passkey'] as const) {
      expect(needsSignature(above, kind)).toBe(true);
    }
  });

  it('signs everything under all', () => {
    expect(needsSignature(parseSigningRule('all'), 'withdraw', '1.00')).toBe(true);
  });

  it('says the rule in words, with the amount in Naira', () => {
    expect(describeSigningRule(parseSigningRule('above:250000'))).toContain('₦250,000.00');
    expect(describeSigningRule(parseSigningRule('off'))).toContain('no passkey');
  });
});

describe('a passkey over time', () => {
  const passkey: Passkey = {
    credentialId: 'cred-1',
    user: 'U_BOLA',
    name: "Bola's MacBook",
    publicKey: 'pk',
    counter: 0,
    addedAt: '2026-11-01T10:00:00.000Z',
    registration: { requestId: 'AR-1', approvedBy: ['U_CHIDI'] },
  };
  const evidence: ApprovalEvidence = {
    credentialId: 'cred-1',
    authenticatorData: 'ad',
    clientDataJSON: 'cd',
    signature: 'sig',
    nonce: 'n',
  };

  it('counts from its registration until its revocation', () => {
    const revoked = { ...passkey, revoked: { at: '2026-11-10T10:00:00.000Z', by: 'U_BOLA' } };
    expect(heldAt(passkey, new Date('2026-10-31T10:00:00Z'))).toBe(false);
    expect(heldAt(passkey, new Date('2026-11-05T10:00:00Z'))).toBe(true);
    expect(heldAt(revoked, new Date('2026-11-05T10:00:00Z'))).toBe(true);
    expect(heldAt(revoked, new Date('2026-11-10T10:00:00Z'))).toBe(false);
    expect(evidence.credentialId).toBe(passkey.credentialId);
  });
});
