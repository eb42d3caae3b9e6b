// Arguments that prefill the filing forms: an address is recognised whatever its network family, and
// network words, amounts and account numbers are never taken for one.
import { describe, expect, it } from 'vitest';
import { looksLikeAddress } from '../../../src/slack/approvals/commands/filing.js';

describe('looksLikeAddress', () => {
  it.each([
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
    'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
    `G${'A'.repeat(55)}`,
  ])('takes %s for an address', (word) => {
    expect(looksLikeAddress(word)).toBe(true);
  });

  it.each(['base', 'bsc', 'solana', 'tron', 'xbn', '1500', '₦1,500.50', '0123456789', undefined])(
    'does not take %s for one',
    (word) => {
      expect(looksLikeAddress(word)).toBe(false);
    },
  );
});
