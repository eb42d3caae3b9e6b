// A month of thousands of movements: the figures worked out a slice at a time (as a report does) are
// the figures worked out at once, and agree with the plain definitions: each day's closing is the
// period's closing less what moved after the day, the largest five are the top of a sort of them all.
import { expect, test } from 'vitest';
import { treasuryFigures, treasuryFiguresInTurns } from '../../src/reports/figures.js';
import { balanceEffect } from '../../src/reports/movements.js';
import type { Movement } from '../../src/reports/types.js';
import { lastDays } from './support.js';

const NOW = new Date('2026-11-29T10:00:00Z');
const kobo = (decimal: string) => BigInt(decimal.replace('.', ''));

/** `count` movements spread over the last 30 days, oldest first, with equal amounts and times among them. */
function month(count: number): Movement[] {
  const from = NOW.getTime() - 30 * 86_400_000;
  return Array.from({ length: count }, (_, i) => {
    const status = i % 11 === 0 ? 'failed' : i % 7 === 0 ? 'pending' : 'succeeded';
    return {
      reference: `ref-${String(i).padStart(5, '0')}`,
      kind: i % 3 === 0 ? 'deposit' : i % 3 === 1 ? 'withdrawal' : 'bridge',
      direction: i % 3 === 0 ? 'in' : 'out',
      // Every 50th is one of a few large amounts, so the largest five tie on amount and time.
      amount:
        i % 50 === 0
          ? `${900_000 + (i % 200)}.00`
          : `${(i * 37) % 5_000}.${String(i % 100).padStart(2, '0')}`,
      fee: i % 3 === 2 ? '1.25' : '0.00',
      at: new Date(from + Math.floor(i / 2) * Math.floor((30 * 86_400_000) / count) * 2).toISOString(),
      status,
    };
  });
}

test('works out a month of 3,000 movements a slice at a time to the figures worked out at once', async () => {
  const movements = month(3_000);
  const period = lastDays(30, NOW);
  const input = { environment: 'test' as const, period, balance: '123456789.00', movements };
  const inTurns = await treasuryFiguresInTurns(input);
  expect(inTurns).toEqual(treasuryFigures(input));

  // Each day's closing: the period's closing less every balance effect after the day's end.
  const closing = kobo(inTurns.closing);
  for (const [i, day] of inTurns.days.entries()) {
    const end =
      i + 1 < period.days.length ? Date.parse(`${period.days[i + 1]}T00:00:00+01:00`) : NOW.getTime();
    const later = movements
      .filter((m) => Date.parse(m.at) >= end && Date.parse(m.at) < NOW.getTime())
      .reduce((sum, m) => sum + balanceEffect(m).kobo, 0n);
    expect([day.day, kobo(day.closing)]).toEqual([day.day, closing - later]);
  }

  // The largest five: a stable sort of every succeeded movement, largest first, earlier first.
  const sorted = movements
    .filter((m) => m.status === 'succeeded')
    .sort((a, b) => Number(kobo(b.amount) - kobo(a.amount)) || a.at.localeCompare(b.at));
  expect(inTurns.largest.map((m) => m.reference)).toEqual(sorted.slice(0, 5).map((m) => m.reference));
});
