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
