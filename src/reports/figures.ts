// The treasury's figures for a period, from the current balance and the kept movements: the balance
// is rebuilt backward (closing = now's balance less what moved after the period; opening = closing
// less what moved within it), so no balance history is needed. Pure. What counts and why:
// docs/decisions/report-figures.md.
import { TZDate } from '@date-fns/tz';
import type { CngnEnvironment } from '../format/environment.js';
import { Money } from '../format/money.js';
import { balanceEffect, LAGOS, movedBalance } from './movements.js';
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

const sum = (movements: readonly Movement[], pick: (m: Movement) => Money) =>
  movements.reduce((total, m) => total.plus(pick(m)), Money.zero());
const amountOf = (m: Movement) => Money.parseDecimal(m.amount);

/** Start of a Lagos day (YYYY-MM-DD) as epoch ms. */
export function lagosDayStart(day: string, plusDays = 0): number {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new TZDate(year, month - 1, date + plusDays, LAGOS).getTime();
}

export function treasuryFigures(input: TreasuryInput): TreasuryFigures {
  const { period } = input;
  const from = period.from.getTime();
  const to = period.to.getTime();
  const reached = input.reachedAt === undefined ? undefined : Date.parse(input.reachedAt);
  // Before the oldest kept movement nothing is known (the list ends there, or was not read further).
  const knownFrom = reached !== undefined && reached > from ? reached : from;
  const counted = input.movements.filter((m) => Date.parse(m.at) >= knownFrom);
  const after = counted.filter((m) => Date.parse(m.at) >= to);
  const within = counted.filter((m) => Date.parse(m.at) < to);

  const closing = Money.parseDecimal(input.balance).minus(sum(after, balanceEffect));
  const opening = closing.minus(sum(within, balanceEffect));
  const moved = within.filter(movedBalance);
  const flows = (direction: 'in' | 'out') =>
    Object.fromEntries(
      KINDS.map((kind) => [
        kind,
        sum(
          moved.filter((m) => m.direction === direction && m.kind === kind),
          amountOf,
        ).toString(),
      ]),
    ) as Record<MovementKind, string>;
  const succeeded = within.filter((m) => m.status === 'succeeded');
  const largest = [...succeeded]
    .sort((a, b) => amountOf(b).compare(amountOf(a)) || a.at.localeCompare(b.at))
    .slice(0, LARGEST);

  const days: DayFigures[] = period.days.map((day) => {
    const start = lagosDayStart(day);
    const end = Math.min(lagosDayStart(day, 1), to);
    const later = within.filter((m) => Date.parse(m.at) >= end);
    const today = moved.filter((m) => Date.parse(m.at) >= start && Date.parse(m.at) < end);
    return {
      day,
      closing: closing.minus(sum(later, balanceEffect)).toString(),
      inflow: sum(
        today.filter((m) => m.direction === 'in'),
        amountOf,
      ).toString(),
      outflow: sum(
        today.filter((m) => m.direction === 'out'),
        amountOf,
      ).toString(),
    };
  });

  return {
    environment: input.environment,
    opening: opening.toString(),
    closing: closing.toString(),
    inflows: flows('in'),
    outflows: flows('out'),
    fees: sum(moved, (m) => Money.parseDecimal(m.fee)).toString(),
    largest,
    failures: within.filter((m) => m.status === 'failed'),
    days,
    ...(knownFrom > from ? { completeFrom: new Date(knownFrom).toISOString() } : {}),
    ...(input.interrupted ? { interrupted: true } : {}),
    ...(input.snapshotUnconfirmed ? { snapshotUnconfirmed: true } : {}),
    movements: within,
  };
}
