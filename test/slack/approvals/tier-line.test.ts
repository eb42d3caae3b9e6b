// The tier line says which total chose the approvals needed, with the tier's own count: a look-alike
// destination's extra approver (added at filing) is named apart, never counted as the tier's.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { tierBasisNotice } from '../../../src/slack/approvals/blocks/limits.js';
import { requestsOf } from '../builders/support.js';

const [withdrawal] = requestsOf('ordinary', 'https://basescan.org/tx/0xabc');

/** Filed into the 2-approval tier by the requester's total; `lookAlike`: its address imitates a known one. */
function split(lookAlike: boolean): ApprovalRequest {
  if (!withdrawal) throw new Error('no fixture');
  return {
    ...withdrawal,
    amount: '600000.00',
    requiredApprovals: lookAlike ? 3 : 2,
    tierBasis: { by: 'requester', total: '1200000.00', windowMs: 86_400_000 },
    preflight: {
      at: '2026-11-23T07:00:00.000Z',
      ...(lookAlike
        ? {
            lookAlike: {
              candidate: '0xd9A1C3788D81257612E2581A6ea0aDa244853a91',
              known: '0xd9A1b0B1e1aE382DbDc898Ea68012FfcB2853a91',
              differs: [[6, 36]] as Array<[number, number]>,
              knownAs: 'paid' as const,
            },
          }
        : {}),
    },
  } as ApprovalRequest;
}

const line = (request: ApprovalRequest) => JSON.stringify(tierBasisNotice(request));

describe('the tier line', () => {
  it('gives the tier’s own count, and the look-alike’s extra approver apart', () => {
    expect(line(split(true))).toContain(
      '2 approvals needed for ₦1,200,000.00 from <@UREQ> in the last 24 h, including this; +1 for the look-alike address: 3 in all',
    );
  });

  it('says nothing of a look-alike when there is none', () => {
    const text = line(split(false));
    expect(text).toContain(
      '2 approvals needed for ₦1,200,000.00 from <@UREQ> in the last 24 h, including this',
    );
    expect(text).not.toContain('look-alike');
  });
});
