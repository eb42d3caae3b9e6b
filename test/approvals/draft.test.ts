// The engine's own check of a draft: wallet addresses of every family the service lists are filed,
// anything malformed (a bad EVM checksum, padding, garbage) never is.
import { describe, expect, it } from 'vitest';
import { checkDraft, InvalidDraftError } from '../../src/approvals/draft.js';
import type { RequestDraft } from '../../src/approvals/types.js';

const withdraw = (address: string): RequestDraft => ({
  kind: 'withdraw',
  amount: '1500',
  payload: { amount: '1500', address, networkId: 'n-1', shouldSaveAddress: false },
  display: { networkName: 'Solana' },
  purpose: 'Supplier payout INV-2231',
  requester: 'U0REQ',
});

describe('draft addresses', () => {
  it.each([
    ['EVM, checksummed', '0x52908400098527886E0F7030069857D2E4169EE7'],
    ['EVM, lower case', '0x52908400098527886e0f7030069857d2e4169ee7'],
    ['Solana', '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV'],
    ['Tron', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
    ['XBN', `G${'A'.repeat(55)}`],
  ])('files a %s address', (_name, address) => {
    expect(checkDraft(withdraw(address)).payload).toMatchObject({ address });
  });

  it.each([
    ['a bad EVM checksum', '0x52908400098527886E0F7030069857D2E4169Ee7'],
    ['surrounding spaces', ' 0x52908400098527886e0f7030069857d2e4169ee7'],
    ['garbage', 'not-an-address'],
  ])('refuses %s', (_name, address) => {
    expect(() => checkDraft(withdraw(address))).toThrow(InvalidDraftError);
  });
});

describe('draft purpose', () => {
  const address = '0x52908400098527886E0F7030069857D2E4169EE7';
  const redeem: RequestDraft = {
    kind: 'redeem',
    amount: '5000',
    payload: { amount: '5000', bankCode: '058', accountNumber: '0123456789' },
    display: {},
    purpose: 'Refund to customer',
    requester: 'U0REQ',
  };
  const bridge: RequestDraft = {
    kind: 'bridge',
    amount: '5000',
    payload: { originNetworkId: 'n-1', destinationNetworkId: 'n-2', destinationAddress: address },
    display: {},
    purpose: 'Liquidity for Base',
    requester: 'U0REQ',
  };

  it('files a withdrawal, redemption or bridge with its purpose, trimmed', () => {
    expect(checkDraft({ ...withdraw(address), purpose: '  Supplier payout INV-2231 ' }).purpose).toBe(
      'Supplier payout INV-2231',
    );
    expect(checkDraft(redeem).purpose).toBe('Refund to customer');
    expect(checkDraft(bridge).purpose).toBe('Liquidity for Base');
    // Exactly the bounds, counted in characters as people see them (an emoji is one).
    expect(checkDraft({ ...redeem, purpose: 'Tax' }).purpose).toBe('Tax');
    expect(checkDraft({ ...redeem, purpose: '💸'.repeat(140) }).purpose).toHaveLength(280);
  });

  it.each([
    ['none', undefined, /^purpose: required/],
    ['too short', ' ab ', /^purpose: at least 3 characters/],
    ['too long', 'x'.repeat(141), /^purpose: at most 140 characters \(this one has 141\)/],
    ['a line break', 'Payout\nINV-1', /^purpose: one line/],
    ['a control character', 'Payout\u0007INV-1', /^purpose: one line/],
    ['only zero-width spaces', '\u200b\u200b\u200b\u200b', /^purpose: at least 3 visible characters/],
    ['two letters among hidden ones', 'a\u200b\u202e\u2060b\ufeff', /^purpose: at least 3 visible/],
    ['blank fillers and spaces', 'ab \u3164 \u2800', /^purpose: at least 3 visible/],
  ])('refuses a payment with %s as its purpose, naming the field', (_name, purpose, reason) => {
    for (const draft of [withdraw(address), redeem, bridge]) {
      const unchecked = { ...draft, purpose } as RequestDraft;
      expect(() => checkDraft(unchecked), draft.kind).toThrow(reason);
    }
  });

  it('lets through hidden characters other than controls, to be shown marked', () => {
    expect(checkDraft({ ...redeem, purpose: 'Payout \u202eINV' }).purpose).toBe('Payout \u202eINV');
    // Three visible characters, hidden ones or not around them; a joined emoji is seen as what it joins.
    expect(checkDraft({ ...redeem, purpose: 'T\u200ba\u200bx' }).purpose).toBe('T\u200ba\u200bx');
    expect(checkDraft({ ...redeem, purpose: '👨‍👩‍👧' }).purpose).toBe('👨‍👩‍👧');
  });

  it('refuses a purpose on a request that moves no money', () => {
    const whitelist = {
      kind: 'whitelist',
      payload: { networkId: 'n-1', address },
      display: {},
      purpose: 'Supplier',
      requester: 'U0REQ',
    } as RequestDraft;
    expect(() => checkDraft(whitelist)).toThrow(InvalidDraftError);
  });
});

describe('a passkey registration draft', () => {
  const passkey = (credentialId: string): RequestDraft =>
    ({
      kind: 'passkey',
      payload: { user: 'U0ADE', name: "Ade's MacBook", credentialId, publicKey: 'pQECAyYg', counter: 0 },
      display: {},
      requester: 'U0ADE',
    }) as RequestDraft;

  it('takes a credential id of up to 1023 bytes (WebAuthn’s most), and refuses a longer one', () => {
    expect(checkDraft(passkey('A'.repeat(1364))).payload).toMatchObject({ credentialId: 'A'.repeat(1364) });
    expect(() => checkDraft(passkey('A'.repeat(1365)))).toThrow(InvalidDraftError);
  });
});
