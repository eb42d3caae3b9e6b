import { describe, expect, it } from 'vitest';
import { checkEvmAddress, toChecksumAddress } from '../../src/format/evm-address.js';

describe('EVM addresses', () => {
  // The test vectors of EIP-55 itself.
  const vectors = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('computes the EIP-55 checksum', () => {
    for (const v of vectors) expect(toChecksumAddress(v.toLowerCase())).toBe(v);
  });

  it('accepts checksummed, all-lower and all-upper addresses', () => {
    for (const v of vectors) expect(checkEvmAddress(v)).toEqual({ ok: true, address: v });
    expect(checkEvmAddress(` ${vectors[0]?.toLowerCase()} `).ok).toBe(true);
    expect(checkEvmAddress(`0x${vectors[0]?.slice(2).toUpperCase()}`).ok).toBe(true);
  });

  it('refuses a mixed-case address whose checksum is wrong', () => {
    const typo = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
    expect(checkEvmAddress(typo)).toMatchObject({ ok: false, reason: expect.stringContaining('checksum') });
  });

  it('refuses the zero address, which no one can spend from, saying why', () => {
    for (const zero of [`0x${'0'.repeat(40)}`, `  0x${'0'.repeat(40)} `]) {
      expect(checkEvmAddress(zero)).toEqual({
        ok: false,
        reason: expect.stringMatching(/^is the zero address .*tokens sent there are lost$/),
      });
    }
    expect(checkEvmAddress(`0x${'0'.repeat(39)}1`).ok).toBe(true);
  });

  it('refuses the wrong form', () => {
    expect(checkEvmAddress('0x123').ok).toBe(false);
    expect(checkEvmAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed').ok).toBe(false);
    expect(checkEvmAddress('0xZZAeb6053F3E94C9b9A09f33669435E7Ef1BeAed').ok).toBe(false);
  });
});
