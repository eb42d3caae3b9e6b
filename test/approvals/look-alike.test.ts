import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { differingRanges, findLookAlike } from '../../src/approvals/look-alike.js';
import { toChecksumAddress } from '../../src/format/evm-address.js';

/** The characters of `text` inside the ranges, and those outside, as two strings. */
function split(text: string, ranges: Array<[number, number]>): { inside: string; outside: string } {
  let inside = '';
  let outside = '';
  for (let i = 0; i < text.length; i += 1) {
    if (ranges.some(([start, end]) => i >= start && i < end)) inside += text[i];
    else outside += text[i];
  }
  return { inside, outside };
}

/** Every marked character differs from the known one's (EVM: in any case), and every other one matches. */
function expectMarksExact(candidate: string, known: string, ranges: Array<[number, number]>): void {
  const fold = (c: string | undefined) => (candidate.startsWith('0x') ? c?.toLowerCase() : c);
  for (let i = 0; i < candidate.length; i += 1) {
    const marked = ranges.some(([start, end]) => i >= start && i < end);
    expect(fold(candidate[i]) !== fold(known[i]), `character ${i} marked: ${marked}`).toBe(marked);
  }
}

// The May 2024 WBTC loss (1,155 WBTC): the victim meant to pay the first and paid the second.
const WBTC_MEANT = '0xd9A1b0B1e1aE382DbDc898Ea68012FfcB2853a91';
const WBTC_POISONED = '0xd9A1C3788D81257612E2581A6ea0aDa244853a91';

// Published poisoning transfers on Ethereum (look-alike, then the address it imitated), one for each
// shape of matching ends seen among them: 3 to 6 leading and 4 to 7 trailing hex digits.
const POISONED: Array<[shape: string, lookAlike: string, meant: string]> = [
  ['3+4', '0x7a8b9ae9c95eac6c296d978e801442828d168d50', '0x7a8f54089bb8f188d6ef897759c7adac48228d50'],
  ['3+6', '0x5c2668c57350c2af38e296fae9d5cbc8a7a3dc37', '0x5c24023c852e21827f181765245390f010a3dc37'],
  ['4+4', '0xdbfaa66be7a1463304caa72d3f1d7025000580da', '0xdbfa1702f1721580507c2f2c3d961e5c5fc780da'],
  ['4+5', '0xc427c74b0db98ac1c8e281b7b9d9f067a6e48ed9', '0xc427d43f99b4ad901358e46c8a4704e44ca48ed9'],
  ['4+7', '0x20e82ecb231cd7d906925a75a12e7d8ab3ae5f5b', '0x20e894228b1498bd328a72a256195b8203ae5f5b'],
  ['5+5', '0x08614445574aebbfd0775b1ef85d130c5f0a763f', '0x08614ce537a2dea4d4150ee55fb7ff9acfea763f'],
  ['6+4', '0x8d56a36fc50255b0010179a8cc3804990a30b55d', '0x8d56a37d0fd42a397e7b5672233cdf86a411b55d'],
  ['6+5', '0x5cc57f19c8aea18bbfe95d6a3a449db603ff09a0', '0x5cc57ff1473dd95f0dec4d08b40e12915e1f09a0'],
];

/** `0x` + head + filler + tail: 40 hex digits. */
function evm(head: string, tail: string, fill = '0'): string {
  const address = `0x${head}${fill.repeat(40 - head.length - tail.length)}${tail}`;
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new Error(`not an EVM address: ${address}`);
  return address;
}

const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
const XBN = 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7';

describe('look-alike destinations', () => {
  it('marks the WBTC poisoning: same 4 leading and 6 trailing hex digits, another middle', () => {
    const found = findLookAlike(WBTC_POISONED, [WBTC_MEANT]);
    expect(found?.known).toBe(WBTC_MEANT);
    expect(found?.candidate).toBe(WBTC_POISONED);
    const differs = found?.differs ?? [];
    // `0xd9A1` and `853a91` match; everything marked lies between them.
    expect(differs[0]?.[0]).toBe(6);
    expect(differs.at(-1)?.[1]).toBe(WBTC_POISONED.length - 6);
    expectMarksExact(WBTC_POISONED, WBTC_MEANT, differs);
  });

  it.each(POISONED)('marks a published poisoning with %s matching hex digits', (_shape, lookAlike, meant) => {
    const found = findLookAlike(lookAlike, [meant]);
    expect(found?.known).toBe(meant);
    expectMarksExact(lookAlike, meant, found?.differs ?? []);
    // Either way round: a known look-alike makes the real one look like it too.
    expect(findLookAlike(meant, [lookAlike])?.known).toBe(lookAlike);
  });

  it('compares EVM addresses without case: a checksummed known one and a lower-case look-alike', () => {
    const found = findLookAlike(WBTC_POISONED.toLowerCase(), [WBTC_MEANT]);
    expect(found?.known).toBe(WBTC_MEANT);
    expectMarksExact(WBTC_POISONED.toLowerCase(), WBTC_MEANT, found?.differs ?? []);
    expect(findLookAlike(WBTC_POISONED, [WBTC_MEANT.toUpperCase().replace('0X', '0x')])).toBeDefined();
  });

  it('does not mark the same address, in any case, nor a candidate that is itself known', () => {
    expect(findLookAlike(WBTC_MEANT, [WBTC_MEANT])).toBeUndefined();
    expect(findLookAlike(WBTC_MEANT.toLowerCase(), [WBTC_MEANT])).toBeUndefined();
    expect(findLookAlike(toChecksumAddress(WBTC_MEANT.toLowerCase()), [WBTC_MEANT.toLowerCase()])).toBe(
      undefined,
    );
    // Paid before and whitelisted both: it is a known destination, whatever else it resembles.
    expect(findLookAlike(WBTC_POISONED, [WBTC_MEANT, WBTC_POISONED])).toBeUndefined();
    expect(differingRanges(WBTC_MEANT, WBTC_MEANT.toLowerCase())).toEqual([]);
  });

  it('does not mark honest near-misses', () => {
    // Only 2 leading and 2 trailing digits alike: 1 pair in 65,536 of random addresses is.
    expect(findLookAlike('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', [evm('A0c', 'fB48', '7')])).toBe(
      undefined,
    );
    // A long common prefix (both vanity zero-prefixed), different tails: the deposit contract and Permit2.
    expect(
      findLookAlike('0x00000000219ab540356cBB839Cbe05303d7705Fa', [
        '0x000000000022D473030F116dDEE9F6B43aC78BA3',
      ]),
    ).toBeUndefined();
    // A long common tail, different heads.
    expect(findLookAlike(evm('12ab', '5b6c7d8e9f0', '4'), [evm('98cd', '5b6c7d8e9f0', '4')])).toBeUndefined();
    // 4 leading but only 2 trailing.
    expect(findLookAlike(WBTC_MEANT, [evm('d9a1', '01')])).toBeUndefined();
  });

  it('needs 3 leading and 3 trailing significant characters: 0x and the family prefix do not count', () => {
    const known = evm('abc', 'def', '1');
    expect(findLookAlike(evm('abc', 'def', '2'), [known])).toBeDefined();
    expect(findLookAlike(evm('ab', 'def', '2'), [known])).toBeUndefined();
    expect(findLookAlike(evm('abc', 'ef', '2'), [known])).toBeUndefined();
  });

  it('of several known addresses, names the one matching most characters at the ends', () => {
    const threeAndThree = evm('d9a0', '0a91');
    const fourAndFour = evm('d9a1', '03a91');
    expect(findLookAlike(WBTC_POISONED, [threeAndThree, fourAndFour, WBTC_MEANT])?.known).toBe(WBTC_MEANT);
    expect(findLookAlike(WBTC_POISONED, [threeAndThree, fourAndFour])?.known).toBe(fourAndFour);
    // The same 4 + 6 ends as the address meant: the one differing in fewer characters is the closer copy.
    const near = `0xd9A1f${WBTC_POISONED.slice(7, 35)}0${WBTC_POISONED.slice(36)}`;
    const far = evm('d9A1', '0853a91', 'f');
    expect(findLookAlike(WBTC_POISONED, [far, WBTC_MEANT, near])?.known).toBe(near);
    expect(findLookAlike(WBTC_POISONED, [far, WBTC_MEANT])?.known).toBe(WBTC_MEANT);
  });

  it('marks Tron, Solana and XBN look-alikes case-sensitively after their prefix', () => {
    const tron = `${USDT_TRON.slice(0, 4)}zzzzzzzzzzzzzzzzzzzzzzzzzz${USDT_TRON.slice(-4)}`;
    expect(tron).toHaveLength(USDT_TRON.length);
    const found = findLookAlike(tron, [USDT_TRON]);
    expect(found?.known).toBe(USDT_TRON);
    expectMarksExact(tron, USDT_TRON, found?.differs ?? []);
    // `T` is every Tron address's first character: it does not count towards the 3.
    const tronTwo = `${USDT_TRON.slice(0, 3)}zzzzzzzzzzzzzzzzzzzzzzzzzzz${USDT_TRON.slice(-4)}`;
    expect(findLookAlike(tronTwo, [USDT_TRON])).toBeUndefined();
    // Case is part of a base58 address: `r7N…` is another start than `R7N…`.
    const swapped = `T${USDT_TRON.slice(1, 4).toLowerCase()}${tron.slice(4)}`;
    expect(findLookAlike(swapped, [USDT_TRON])).toBeUndefined();

    const solana = `${SOLANA.slice(0, 3)}${'z'.repeat(SOLANA.length - 6)}${SOLANA.slice(-3)}`;
    expect(findLookAlike(solana, [SOLANA])?.known).toBe(SOLANA);
    const xbn = `${XBN.slice(0, 5)}${'Z'.repeat(XBN.length - 9)}${XBN.slice(-4)}`;
    expect(findLookAlike(xbn, [XBN])?.known).toBe(XBN);
  });

  it('marks the whole middle of a Solana look-alike of another length', () => {
    const shorter = `${SOLANA.slice(0, 4)}${'z'.repeat(SOLANA.length - 9)}${SOLANA.slice(-4)}`;
    expect(shorter).toHaveLength(SOLANA.length - 1);
    const found = findLookAlike(shorter, [SOLANA]);
    expect(found?.differs).toEqual([[4, shorter.length - 4]]);
    expect(differingRanges(SOLANA, shorter)).toEqual([[4, SOLANA.length - 4]]);
  });

  it('compares only addresses of one shape, and nothing that is no address', () => {
    expect(findLookAlike(WBTC_POISONED, [USDT_TRON, SOLANA, XBN])).toBeUndefined();
    expect(findLookAlike('0123456789', ['0123999789'])).toBeUndefined();
    expect(findLookAlike(` ${WBTC_POISONED}`, [WBTC_MEANT])).toBeUndefined();
    expect(findLookAlike(WBTC_POISONED, [])).toBeUndefined();
    expect(differingRanges(WBTC_POISONED, USDT_TRON)).toEqual([]);
  });

  it('gives the known address its own marks, the same places for equal lengths', () => {
    const found = findLookAlike(WBTC_POISONED, [WBTC_MEANT]);
    expect(differingRanges(WBTC_MEANT, WBTC_POISONED)).toEqual(found?.differs);
    const { outside } = split(WBTC_POISONED, found?.differs ?? []);
    expect(outside.startsWith('0xd9A1')).toBe(true);
    expect(outside.endsWith('853a91')).toBe(true);
  });
});

const hexDigits = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

describe('look-alike properties', () => {
  it('finds every look-alike that keeps 3 or more characters at each end, and marks exactly the differences', () => {
    fc.assert(
      fc.property(
        hexDigits(40),
        hexDigits(40),
        fc.integer({ min: 3, max: 8 }),
        fc.integer({ min: 3, max: 8 }),
        (a, b, head, tail) => {
          const known = `0x${a}`;
          const candidate = `0x${a.slice(0, head)}${b.slice(head, 40 - tail)}${a.slice(40 - tail)}`;
          const found = findLookAlike(candidate, [known]);
          if (candidate === known) return expect(found).toBeUndefined();
          expect(found?.known).toBe(known);
          expectMarksExact(candidate, known, found?.differs ?? []);
        },
      ),
    );
  });

  it('never marks a pair whose ends differ within the first or last 3 characters', () => {
    fc.assert(
      fc.property(hexDigits(40), hexDigits(40), (a, b) => {
        const found = findLookAlike(`0x${b}`, [`0x${a}`]);
        const ends = a.slice(0, 3) === b.slice(0, 3) && a.slice(-3) === b.slice(-3);
        expect(found !== undefined).toBe(ends && a !== b);
      }),
    );
  });

  it('marks nothing for the same address in other case, and ranges stay inside the candidate', () => {
    fc.assert(
      fc.property(hexDigits(40), fc.array(hexDigits(40), { maxLength: 5 }), (a, others) => {
        const checksummed = toChecksumAddress(`0x${a}`);
        expect(findLookAlike(checksummed, [`0x${a}`, ...others.map((o) => `0x${o}`)])).toBeUndefined();
        const found = findLookAlike(
          `0x${a}`,
          others.map((o) => `0x${o}`),
        );
        for (const [start, end] of found?.differs ?? []) {
          expect(start).toBeGreaterThanOrEqual(5);
          expect(end).toBeLessThanOrEqual(39);
          expect(start).toBeLessThan(end);
        }
      }),
    );
  });
});
