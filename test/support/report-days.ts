// Day figures for report charts: a realistic week, and a longer period made from a seed, for the
// chart's tests, its bench and a look at the picture.
import { Money } from '../../src/format/money.js';
import type { DayFigures } from '../../src/reports/types.js';

/** A week of a busy treasury: deposits most days, a large redemption on Thursday, a quiet Sunday. */
export const WEEK: readonly DayFigures[] = [
  { day: '2026-11-16', closing: '48250000.00', inflow: '12500000.00', outflow: '3750000.00' },
  { day: '2026-11-17', closing: '55420500.50', inflow: '9870500.50', outflow: '2700000.00' },
  { day: '2026-11-18', closing: '53170500.50', inflow: '1500000.00', outflow: '3750000.00' },
  { day: '2026-11-19', closing: '31920500.50', inflow: '750000.00', outflow: '22000000.00' },
  { day: '2026-11-20', closing: '42345500.75', inflow: '14925000.25', outflow: '4500000.00' },
  { day: '2026-11-21', closing: '44845500.75', inflow: '2500000.00', outflow: '0.00' },
  { day: '2026-11-22', closing: '44845500.75', inflow: '0.00', outflow: '0.00' },
];

/** `count` days ending on 2026-11-22, starting from `opening`, with pseudo-random movements. */
export function daysOf(count: number, opening = '25000000.00', seed = 7): DayFigures[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const end = Date.UTC(2026, 10, 22);
  let balance = Money.parseDecimal(opening);
  const days: DayFigures[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const inflow = Money.fromKobo(BigInt(Math.round(next() * 8_000_000)) * 100n + 50n);
    const out = Money.fromKobo(BigInt(Math.round(next() * 6_000_000)) * 100n);
    const outflow = out.compare(balance.plus(inflow)) > 0 ? Money.zero() : out;
    balance = balance.plus(inflow).minus(outflow);
    days.push({
      day: new Date(end - i * 86_400_000).toISOString().slice(0, 10),
      closing: balance.toString(),
      inflow: inflow.toString(),
      outflow: outflow.toString(),
    });
  }
  return days;
}
