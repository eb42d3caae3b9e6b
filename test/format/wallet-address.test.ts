import { describe, expect, it } from 'vitest';
import { addressFamily, checkWalletAddress } from '../../src/format/wallet-address.js';

const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
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
