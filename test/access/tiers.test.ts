// The bands of amount the approval tiers make: what the engine counts approvals by, and what
// `/cngn policy` and the audit's words show.
import { describe, expect, it } from 'vitest';
import { amountBands, parseTiers, requiredApprovals } from '../../src/access/index.js';
import { Money } from '../../src/format/money.js';

const bands = (text: string) =>
  amountBands(parseTiers(text)).map((band) => `${band.min.toString()}:${band.approvals}`);

describe('amountBands', () => {
  it('starts at ₦0, with one approval below a lowest tier above ₦0', () => {
    expect(bands('0:1,1000000:2')).toEqual(['0.00:1', '1000000.00:2']);
    expect(bands('1000000:2')).toEqual(['0.00:1', '1000000.00:2']);
  });

  it('joins a tier asking as many approvals as the band before it', () => {
    expect(bands('500:1,1000000:2')).toEqual(['0.00:1', '1000000.00:2']);
    expect(bands('0:2,500:2,1000:3,2000:3')).toEqual(['0.00:2', '1000.00:3']);
  });

  it('counts the later of two tiers from one amount, as the engine does', () => {
    expect(bands('0:1,0:2')).toEqual(['0.00:2']);
    // The later one of a pair replaced, then joined with the band before it.
    expect(bands('0:1,500:2,500:1')).toEqual(['0.00:1']);
    expect(bands('0:2,500:1,500:2,1000:3')).toEqual(['0.00:2', '1000.00:3']);
    expect(requiredApprovals(parseTiers('0:1,0:2'), Money.parse('5'), 'withdraw')).toBe(2);
  });

  it('sorts tiers not made by parseTiers, the later of equal amounts still counting', () => {
    const tier = (min: string, approvals: number) => ({ min: Money.parse(min), approvals });
    const given = [tier('2000', 3), tier('500', 2), tier('500', 1)];
    expect(amountBands(given).map((band) => `${band.min.toString()}:${band.approvals}`)).toEqual([
      '0.00:1',
      '2000.00:3',
    ]);
    expect(requiredApprovals(given, Money.parse('500'), 'withdraw')).toBe(1);
    expect(requiredApprovals(given, Money.parse('2000'), 'withdraw')).toBe(3);
  });

  it('is what requiredApprovals counts by, at each band’s edge', () => {
    const tiers = parseTiers('500:1,1000:2,5000:3');
    for (const [amount, needed] of [
      ['0', 1],
      ['499.99', 1],
      ['500', 1],
      ['999.99', 1],
      ['1000', 2],
      ['4999.99', 2],
      ['5000', 3],
    ] as const) {
      expect(requiredApprovals(tiers, Money.parse(amount), 'withdraw')).toBe(needed);
    }
  });
});
