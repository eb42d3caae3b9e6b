import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { addressFamily, checkWalletAddress, hasAddressForm } from '../../src/format/wallet-address.js';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'; // Tether USD (USDT) on Tron
const XBN = 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7';

describe('wallet addresses by network family', () => {
  it('tells the family from the short code or the name, EVM otherwise', () => {
    expect(addressFamily({ name: 'Solana', shortName: 'SOL' })).toBe('solana');
    expect(addressFamily({ name: 'Tron', shortName: 'trx' })).toBe('tron');
    expect(addressFamily({ name: 'Bantu', shortName: 'XBN' })).toBe('stellar');
    expect(addressFamily({ name: 'Base', shortName: 'base' })).toBe('evm');
    expect(addressFamily({ name: 'Monad', shortName: 'monad' })).toBe('evm');
  });

  it('accepts each family its own form and refuses the others, with the reason', () => {
    const forms = { evm: EVM, solana: SOLANA, tron: TRON, stellar: XBN } as const;
    for (const [family, own] of Object.entries(forms) as Array<[keyof typeof forms, string]>) {
      expect(checkWalletAddress(family, ` ${own} `), family).toEqual({ ok: true, address: own });
      for (const [other, address] of Object.entries(forms)) {
        if (other === family) continue;
        // A Tron address is also valid base58 of Solana's length; that one overlap is format-level.
        if (family === 'solana' && other === 'tron') continue;
        expect(checkWalletAddress(family, address).ok, `${other} address on ${family}`).toBe(false);
      }
    }
    expect(checkWalletAddress('solana', `${SOLANA.slice(0, -1)}0`)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('base58'),
    });
    expect(checkWalletAddress('evm', EVM.replace('E7', 'e7')).ok).toBe(false); // wrong checksum
  });
});

describe('Tron addresses (Base58Check)', () => {
  const REAL = [
    TRON,
    'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8', // USD Coin (USDC) on Tron
    'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', // the burn address
  ];
  const MISTYPED = expect.stringMatching(/^a character was mistyped: the checksum does not match$/);

  it('accepts real Tron addresses, as typed and trimmed', () => {
    for (const address of REAL) {
      expect(checkWalletAddress('tron', `  ${address} `), address).toEqual({ ok: true, address });
    }
  });

  it('refuses an address with one character changed, or two swapped: a character was mistyped', () => {
    for (const typo of [
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u', // the last character
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLi6t', // one in the middle
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgLjj6t', // two neighbours swapped
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLJ6t', // a letter's case
    ]) {
      expect(checkWalletAddress('tron', typo), typo).toEqual({ ok: false, reason: MISTYPED });
    }
  });

  it('refuses a checksummed text that is not a Tron account (another version byte)', () => {
    const coder = createBase58check(sha256);
    const notAccount = coder.encode(Uint8Array.from([0x42, ...new Uint8Array(20).fill(7)]));
    expect(notAccount).toMatch(/^T/);
    expect(checkWalletAddress('tron', notAccount)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^is not a Tron account address/),
    });
  });

  it('tells a mistyped address from a text of the wrong form', () => {
    expect(checkWalletAddress('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^must be a Tron address: T followed by 33 base58 characters/),
    });
    // Guessing from a slash command's words goes by form, so a mistyped one still lands in the form.
    expect(hasAddressForm('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(true);
    expect(hasAddressForm('tron', 'tron')).toBe(false);
  });
});
