// The treasury's figures for a period, from the current balance and the kept movements: the balance
// is rebuilt backward (closing = now's balance less what moved after the period; opening = closing
// less what moved within it), so no balance history is needed. Pure. What counts and why:
// docs/decisions/report-figures.md.
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

/** A movement with its time, amount and balance effect worked out once (a month may hold 10,000). */
interface Timed {
  movement: Movement;
  at: number;
  amount: bigint;
  /** What it did to the balance (balanceEffect): + in, − out, 0 when it has not moved it. */
  effect: bigint;
}

function timed(movement: Movement): Timed {
  const amount = koboOf(movement.amount);
  const effect = movedBalance(movement) ? (movement.direction === 'in' ? amount : -amount) : 0n;
  return { movement, at: Date.parse(movement.at), amount, effect };
}

export function treasuryFigures(input: TreasuryInput): TreasuryFigures {
  const { period } = input;
  const from = period.from.getTime();
  const to = period.to.getTime();
  const reached = input.reachedAt === undefined ? undefined : Date.parse(input.reachedAt);
  // Before the oldest kept movement nothing is known (the list ends there, or was not read further).
  const knownFrom = reached !== undefined && reached > from ? reached : from;
  const counted = input.movements.map(timed).filter((m) => m.at >= knownFrom);
  const after = counted.filter((m) => m.at >= to);
  const inPeriod = counted.filter((m) => m.at < to);
  const within = inPeriod.map((m) => m.movement);
  const oldestFirst = [...inPeriod].sort((a, b) => a.at - b.at);

  const closing = koboOf(input.balance) - sumKobo(after, (m) => m.effect);
  const opening = closing - sumKobo(inPeriod, (m) => m.effect);
  const moved = inPeriod.filter((m) => movedBalance(m.movement));
  return {
    environment: input.environment,
    opening: naira(opening),
    closing: naira(closing),
    inflows: flows(moved, 'in'),
    outflows: flows(moved, 'out'),
    fees: naira(sumKobo(moved, (m) => koboOf(m.movement.fee))),
    largest: largestOf(inPeriod),
    failures: within.filter((m) => m.status === 'failed'),
    days: dayFigures(period.days, oldestFirst, closing, to),
    ...(knownFrom > from ? { completeFrom: new Date(knownFrom).toISOString() } : {}),
    ...(input.interrupted ? { interrupted: true } : {}),
    ...(input.snapshotUnconfirmed ? { snapshotUnconfirmed: true } : {}),
    movements: within,
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

/** The largest succeeded movements, largest first (the earlier first between equals). */
function largestOf(within: readonly Timed[]): Movement[] {
  return within
    .filter((m) => m.movement.status === 'succeeded')
    .sort((a, b) => compareKobo(b.amount, a.amount) || a.movement.at.localeCompare(b.movement.at))
    .slice(0, LARGEST)
    .map((m) => m.movement);
}

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
 * outflow, from the period's movements oldest first: a sum from the end and a search per day.
 */
function dayFigures(
  days: readonly string[],
  timed: readonly Timed[],
  closing: bigint,
  to: number,
): DayFigures[] {
  // after[i]: the balance effect of timed[i] and everything after it.
  const after: bigint[] = new Array(timed.length + 1).fill(0n);
  for (let i = timed.length - 1; i >= 0; i--)
    after[i] = (after[i + 1] as bigint) + (timed[i] as Timed).effect;
  return days.map((day) => {
    const start = firstAtOrAfter(timed, lagosDayStart(day));
    const end = firstAtOrAfter(timed, Math.min(lagosDayStart(day, 1), to));
    let inflow = 0n;
    let outflow = 0n;
    for (let i = start; i < end; i++) {
      const { movement, amount } = timed[i] as Timed;
      if (!movedBalance(movement)) continue;
      if (movement.direction === 'in') inflow += amount;
      else outflow += amount;
    }
    return {
      day,
      closing: naira(closing - (after[end] as bigint)),
      inflow: naira(inflow),
      outflow: naira(outflow),
    };
  });
}
