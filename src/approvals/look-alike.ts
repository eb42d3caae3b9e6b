// Address poisoning: an attacker makes an address whose first and last characters match one the
// business pays, and plants it where a person copies addresses from. People check the ends and skip
// the middle, so a destination that shares both ends with a known one but differs in between is
// marked. Thresholds and their reasons: docs/decisions/look-alike-thresholds.md. Pure functions.

export interface LookAlike {
  candidate: string;
  known: string;
  /** [start, end) index ranges of candidate where it differs from known */
  differs: Array<[number, number]>;
}

/** Characters that must match at each end, after the fixed prefix of the address's family. */
const LOOK_ALIKE_HEAD = 3;
const LOOK_ALIKE_TAIL = 3;

const BASE58 = '[1-9A-HJ-NP-Za-km-z]';

/**
 * Address shapes, each with the prefix every address of its kind starts with (it tells nothing apart)
 * and whether case is part of the address. Tron before Solana: `T` + 33 base58 is Tron's shape.
 */
const SHAPES = [
  { family: 'evm', pattern: /^0x[0-9a-fA-F]{40}$/, prefix: 2, caseless: true },
  { family: 'tron', pattern: new RegExp(`^T${BASE58}{33}$`), prefix: 1, caseless: false },
  { family: 'stellar', pattern: /^G[A-Z2-7]{55}$/, prefix: 1, caseless: false },
  { family: 'solana', pattern: new RegExp(`^${BASE58}{32,44}$`), prefix: 0, caseless: false },
] as const;

type Shape = (typeof SHAPES)[number];

const shapeOf = (address: string): Shape | undefined => SHAPES.find((s) => s.pattern.test(address));

/** The characters that tell addresses of one shape apart: prefix dropped, EVM in one case. */
function significant(address: string, shape: Shape): string {
  const rest = address.slice(shape.prefix);
  return shape.caseless ? rest.toLowerCase() : rest;
}

/** How many characters match at the start and at the end, never counting a character twice. */
function matchingEnds(a: string, b: string): { head: number; tail: number } {
  const shorter = Math.min(a.length, b.length);
  let head = 0;
  while (head < shorter && a[head] === b[head]) head += 1;
  // Of unequal length, each keeps at least one character between its ends: the marked middle.
  const room = a.length === b.length ? shorter - head : shorter - head - 1;
  let tail = 0;
  while (tail < room && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return { head, tail };
}

/**
 * [start, end) ranges of `text` where it differs from `other`, both addresses of one shape (EVM
 * compared without case, after `0x`). Of equal length, character by character between the matching
 * ends; of unequal length (Solana), the whole middle. Empty when they are the same address or of
 * different shapes. `findLookAlike` gives `differs` for the candidate; this gives the known one's.
 */
export function differingRanges(text: string, other: string): Array<[number, number]> {
  const shape = shapeOf(text);
  if (!shape || shapeOf(other) !== shape) return [];
  const a = significant(text, shape);
  const b = significant(other, shape);
  if (a === b) return [];
  const { head, tail } = matchingEnds(a, b);
  const offset = shape.prefix;
  if (a.length !== b.length) return head < a.length - tail ? [[offset + head, offset + a.length - tail]] : [];
  const ranges: Array<[number, number]> = [];
  for (let i = head; i < a.length - tail; i += 1) {
    if (a[i] === b[i]) continue;
    const last = ranges.at(-1);
    if (last && last[1] === offset + i) last[1] += 1;
    else ranges.push([offset + i, offset + i + 1]);
  }
  return ranges;
}

interface Match {
  known: string;
  /** Characters matching at the ends: the more, the harder the two are to tell apart at a glance. */
  ends: number;
  /** Characters that differ: the fewer, the closer the copy. */
  differing: number;
}

/**
 * The known address `candidate` could be mistaken for: one of its shape whose first 3 and last 3
 * significant characters it shares while differing in between. Of several, the one matching most
 * characters at the ends, then the one differing in fewest; the first listed on a tie. Undefined when
 * the candidate is itself known (EVM: in any case), matches none, or is no address of a known shape
 * (bank accounts are not compared: ten digits share their ends too often to mean anything).
 */
export function findLookAlike(candidate: string, known: readonly string[]): LookAlike | undefined {
  const shape = shapeOf(candidate);
  if (!shape) return undefined;
  const mine = significant(candidate, shape);
  let best: Match | undefined;
  for (const address of known) {
    if (shapeOf(address) !== shape) continue;
    const theirs = significant(address, shape);
    if (theirs === mine) return undefined;
    const { head, tail } = matchingEnds(mine, theirs);
    if (head < LOOK_ALIKE_HEAD || tail < LOOK_ALIKE_TAIL) continue;
    const match = { known: address, ends: head + tail, differing: differingCount(mine, theirs) };
    if (!best || closer(match, best)) best = match;
  }
  return best && { candidate, known: best.known, differs: differingRanges(candidate, best.known) };
}

function differingCount(a: string, b: string): number {
  if (a.length !== b.length) return Math.max(a.length, b.length);
  let count = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) count += 1;
  return count;
}

const closer = (a: Match, b: Match) => a.ends > b.ends || (a.ends === b.ends && a.differing < b.differing);
