// The treasury's figures for a period, from the current balance and the kept movements: the balance
// is rebuilt backward (closing = now's balance less what moved after the period; opening = closing
// less what moved within it), so no balance history is needed. Pure. What counts and why:
// docs/decisions/report-figures.md.
import { setImmediate } from 'node:timers/promises';
import { TZDate } from '@date-fns/tz';
import type { CngnEnvironment } from '../format/environment.js';
import { Money } from '../format/money.js';
import { LAGOS, movedBalance } from './movements.js';
import type { DayFigures, Movement, MovementKind, ReportPeriod, TreasuryFigures } from './types.js';

export interface TreasuryInput {
  environment: CngnEnvironment;
  period: ReportPeriod;
  /** The custody balance as read now (canonical decimal). */
  balance: string;
  /** Every kept movement from the period's start (or completeFrom) until the balance was read. */
  movements: readonly Movement[];
  /** The oldest time the kept history reaches back to without a gap (undefined: nothing kept). */
  reachedAt?: string | undefined;
  /** The book's read was cut short by the request budget (reachedAt is where it stopped). */
  interrupted?: boolean | undefined;
  /** The balance and the book could not be confirmed as of one moment. */
  snapshotUnconfirmed?: boolean | undefined;
}

const KINDS: readonly MovementKind[] = ['deposit', 'withdrawal', 'redemption', 'bridge', 'other'];
const LARGEST = 5;

const koboOf = (decimal: string) => Money.parseDecimal(decimal).kobo;
const sumKobo = <T>(items: readonly T[], pick: (item: T) => bigint) =>
  items.reduce((total, item) => total + pick(item), 0n);
const naira = (kobo: bigint) => Money.fromKobo(kobo).toString();

/** Start of a Lagos day (YYYY-MM-DD) as epoch ms. */
export function lagosDayStart(day: string, plusDays = 0): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new TZDate(year, month - 1, date + plusDays, LAGOS).getTime();
}

/** A movement with its time, amounts and balance effect worked out once (a month may hold 10,000). */
interface Timed {
  movement: Movement;
  at: number;
  amount: bigint;
  fee: bigint;
  /** It has moved the balance (movedBalance). */
  moved: boolean;
  /** What it did to the balance (balanceEffect): + in, − out, 0 when it has not moved it. */
  effect: bigint;
}

function timed(movement: Movement): Timed {
  const amount = koboOf(movement.amount);
  const moved = movedBalance(movement);
  const effect = moved ? (movement.direction === 'in' ? amount : -amount) : 0n;
  return { movement, at: Date.parse(movement.at), amount, fee: koboOf(movement.fee), moved, effect };
}

/** Movements worked out in one turn of the event loop (a few ms on a loaded machine). */
const TIMED_A_TURN = 1000;

export function treasuryFigures(input: TreasuryInput): TreasuryFigures {
  return figuresOf(input, countedOf(input, input.movements.map(timed)));
}

/**
 * treasuryFigures, with the movements' amounts and times worked out a slice at a time and a turn of
 * the event loop between two, so a month of 10,000 never holds it long; what is counted, and the
 * figures from it, in turns of their own.
 */
export async function treasuryFiguresInTurns(input: TreasuryInput): Promise<TreasuryFigures> {
  const all: Timed[] = [];
  for (let start = 0; start < input.movements.length; start += TIMED_A_TURN) {
    await setImmediate();
    for (const movement of input.movements.slice(start, start + TIMED_A_TURN)) all.push(timed(movement));
  }
  await setImmediate();
  const counted = countedOf(input, all);
  await setImmediate();
  return figuresOf(input, counted);
}

/** The movements a period's figures count, and its balances. */
interface Counted {
  knownFrom: number;
  inPeriod: Timed[];
  oldestFirst: Timed[];
  closing: bigint;
  opening: bigint;
  moved: Timed[];
  unreadable: Movement[];
  readable: Timed[];
}

function countedOf(input: TreasuryInput, all: readonly Timed[]): Counted {
  const from = input.period.from.getTime();
  const to = input.period.to.getTime();
  const reached = input.reachedAt === undefined ? undefined : Date.parse(input.reachedAt);
  // Before the oldest kept movement nothing is known (the list ends there, or was not read further).
  const knownFrom = reached !== undefined && reached > from ? reached : from;
  const counted = all.filter((m) => m.at >= knownFrom);
  const after = counted.filter((m) => m.at >= to);
  const inPeriod = counted.filter((m) => m.at < to);
  const oldestFirst = [...inPeriod].sort((a, b) => a.at - b.at);

  const closing = koboOf(input.balance) - sumKobo(after, (m) => m.effect);
  const opening = closing - sumKobo(inPeriod, (m) => m.effect);
  // Counted as zero everywhere (their amount is unknown), and their fee too; named instead, so the
  // reader knows, where they would have moved the balance (a failure or a pending inflow would not).
  const moved = inPeriod.filter((m) => m.moved && m.movement.unreadableAmount === undefined);
  const unreadable = counted
    .filter((m) => m.moved && m.movement.unreadableAmount !== undefined)
    .map((m) => m.movement);
  const readable = inPeriod.filter((m) => m.movement.unreadableAmount === undefined);
  return { knownFrom, inPeriod, oldestFirst, closing, opening, moved, unreadable, readable };
}

function figuresOf(input: TreasuryInput, counted: Counted): TreasuryFigures {
  const { period } = input;
  const { knownFrom, inPeriod, oldestFirst, closing, opening, moved, unreadable, readable } = counted;
  return {
    environment: input.environment,
    opening: naira(opening),
    closing: naira(closing),
    inflows: flows(moved, 'in'),
    outflows: flows(moved, 'out'),
    fees: naira(sumKobo(moved, (m) => m.fee)),
    largest: largestOf(readable),
    failures: readable.map((m) => m.movement).filter((m) => m.status === 'failed'),
    days: dayFigures(period.days, oldestFirst, closing, period.to.getTime()),
    ...(knownFrom > period.from.getTime() ? { completeFrom: new Date(knownFrom).toISOString() } : {}),
    ...(input.interrupted ? { interrupted: true } : {}),
    ...(input.snapshotUnconfirmed ? { snapshotUnconfirmed: true } : {}),
    ...(unreadable.length ? { unreadable } : {}),
    movements: inPeriod.map((m) => m.movement),
  };
}

/** Each kind's total in one direction, over the movements that moved the balance. */
function flows(moved: readonly Timed[], direction: 'in' | 'out'): Record<MovementKind, string> {
  const totals = new Map<MovementKind, bigint>(KINDS.map((kind) => [kind, 0n]));
  for (const { movement, amount } of moved) {
    if (movement.direction !== direction) continue;
    totals.set(movement.kind, (totals.get(movement.kind) ?? 0n) + amount);
  }
  return Object.fromEntries(KINDS.map((kind) => [kind, naira(totals.get(kind) ?? 0n)])) as Record<
    MovementKind,
    string
  >;
}

/**
 * The largest succeeded movements, largest first (the earlier first between equals): one pass keeping
 * the five, not a sort of the month.
 */
function largestOf(within: readonly Timed[]): Movement[] {
  const kept: Timed[] = [];
  for (const m of within) {
    if (m.movement.status !== 'succeeded') continue;
    const last = kept[LARGEST - 1];
    if (last && byLargest(m, last) >= 0) continue;
    const at = kept.findIndex((k) => byLargest(m, k) < 0);
    kept.splice(at < 0 ? kept.length : at, 0, m);
    if (kept.length > LARGEST) kept.pop();
  }
  return kept.map((m) => m.movement);
}

const byLargest = (a: Timed, b: Timed) =>
  compareKobo(b.amount, a.amount) || a.movement.at.localeCompare(b.movement.at);

const compareKobo = (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1);

/** The first index of `timed` (oldest first) at or after `at`. */
function firstAtOrAfter(timed: readonly Timed[], at: number): number {
  let low = 0;
  let high = timed.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((timed[middle] as Timed).at < at) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Each day's closing balance (the period's closing less what moved after the day) and its inflow and
 * outflow, from the period's movements oldest first: days from the last back, each movement's effect
 * added once to what moved after, and a search per day.
 */
function dayFigures(
  days: readonly string[],
  timed: readonly Timed[],
  closing: bigint,
  to: number,
): DayFigures[] {
  const figures: DayFigures[] = [];
  // timed[counted…] have been added to `later`: what moved after the day in hand.
  let counted = timed.length;
  let later = 0n;
  for (const day of [...days].reverse()) {
    const start = firstAtOrAfter(timed, lagosDayStart(day));
    const end = firstAtOrAfter(timed, Math.min(lagosDayStart(day, 1), to));
    for (; counted > end; counted--) later += (timed[counted - 1] as Timed).effect;
    let inflow = 0n;
    let outflow = 0n;
    for (let i = start; i < end; i++) {
      const { movement, amount, moved } = timed[i] as Timed;
      if (!moved) continue;
      if (movement.direction === 'in') inflow += amount;
      else outflow += amount;
    }
    figures.push({ day, closing: naira(closing - later), inflow: naira(inflow), outflow: naira(outflow) });
  }
  return figures.reverse();
}
