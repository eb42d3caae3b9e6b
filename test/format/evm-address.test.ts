import { describe, expect, it } from 'vitest';
import { checkEvmAddress, toChecksumAddress } from '../../src/format/evm-address.js';

describe('EVM addresses', () => {
  // The test vectors of EIP-55 itself: all caps, all lower, and mixed ("normal").
  const vectors = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('computes the EIP-55 checksum', () => {
    for (const v of vectors) expect(toChecksumAddress(v.toLowerCase())).toBe(v);
  });

  it('accepts checksummed addresses as they are', () => {
    for (const v of vectors) expect(checkEvmAddress(v)).toEqual({ ok: true, address: v });
  });

  it('accepts all-lower and all-upper addresses, which carry no checksum, and returns them checksummed', () => {
    for (const v of vectors) {
      const lower = `0x${v.slice(2).toLowerCase()}`;
      const upper = `0x${v.slice(2).toUpperCase()}`;
      expect(checkEvmAddress(` ${lower} `), lower).toEqual({ ok: true, address: v });
      expect(checkEvmAddress(upper), upper).toEqual({ ok: true, address: v });
    }
  });

  it('refuses a mixed-case address whose checksum is wrong: a character was mistyped', () => {
    const reason = expect.stringMatching(/^a character was mistyped: the checksum .*does not match$/);
    // The last letter's case changed; and one hex digit changed while the case stayed as it was.
    for (const typo of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d358',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FC',
    ]) {
      expect(checkEvmAddress(typo), typo).toEqual({ ok: false, reason });
    }
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
