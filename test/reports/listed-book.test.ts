// What the transaction book keeps of a list the test writes: transactions that share a reference on
// one Lagos day, and a list without pagination from a service that caps its pages or ignores them.
import { describe, expect } from 'vitest';
import { treasuryFigures } from '../../src/reports/figures.js';
import { listedDeposit, onePage, listedBookTest as test } from '../support/listed-book.js';
import { lastDays } from './support.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const DAY = 86_400_000;

describe('two dated transactions sharing a reference on one Lagos day', () => {
  test('are two, each counted, when the service gives them ids', async ({ bookOf }) => {
    const listed = [
      listedDeposit('SHARED-REF', '200.00', '2026-11-20T10:00:00.000Z', { id: 'b' }),
      listedDeposit('SHARED-REF', '100.00', '2026-11-20T09:00:00.000Z', { id: 'a' }),
    ];
    const { book } = await bookOf(() => onePage(listed), NOW);
    await book.read(new Date(NOW - DAY));
    const period = lastDays(1, new Date(NOW));
    const movements = await book.movements(period.from, new Date(NOW + 1));
    const figures = treasuryFigures({ environment: 'test', period, balance: '1000.00', movements });
    expect(movements.map((m) => m.amount)).toEqual(['100.00', '200.00']);
    expect(figures).toMatchObject({ opening: '700.00', inflows: { deposit: '300.00' } });
  });

  test('are two by their creation times when the service gives no ids', async ({ bookOf }) => {
    const listed = [
      listedDeposit('SHARED-REF', '200.00', '2026-11-20T10:00:00.000Z'),
      listedDeposit('SHARED-REF', '100.00', '2026-11-20T09:00:00.000Z'),
    ];
    const { book } = await bookOf(() => onePage(listed), NOW);
    await book.read(new Date(NOW - DAY));
    expect(await book.movements(new Date(NOW - DAY), new Date(NOW + 1))).toHaveLength(2);
  });

  test('each keep one copy, with its latest outcome, however often they are read', async ({ bookOf }) => {
    let status = 'pending';
    const listed = () => [
      { ...listedDeposit('SHARED-REF', '200.00', '2026-11-20T10:00:00.000Z', { id: 'b' }), status },
      listedDeposit('SHARED-REF', '100.00', '2026-11-20T09:00:00.000Z'),
    ];
    const { book } = await bookOf(() => onePage(listed()), NOW);
    await book.read(new Date(NOW - DAY));
    status = 'completed';
    await book.read(new Date(NOW - DAY));
    const movements = await book.movements(new Date(NOW - DAY), new Date(NOW + 1));
    expect(movements.map((m) => [m.amount, m.status])).toEqual([
      ['100.00', 'succeeded'],
      ['200.00', 'succeeded'],
    ]);
  });

  test('count once when the service starts sending the id of one kept without it', async ({ bookOf }) => {
    let extra: object = {};
    const listed = () => [listedDeposit('NO-ID-YET', '100.00', '2026-11-20T09:00:00.000Z', extra)];
    const { book } = await bookOf(() => onePage(listed()), NOW);
    await book.read(new Date(NOW - DAY));
    extra = { id: 'later' };
    await book.read(new Date(NOW - DAY));
    const movements = await book.movements(new Date(NOW - DAY), new Date(NOW + 1));
    expect(movements.map((m) => [m.reference, m.id])).toEqual([['NO-ID-YET', 'later']]);
  });

  test('are read again from the service when the book was kept one movement a reference a day', async ({
    bookOf,
  }) => {
    const listed = [
      listedDeposit('SHARED-REF', '200.00', '2026-11-20T10:00:00.000Z', { id: 'b' }),
      listedDeposit('SHARED-REF', '100.00', '2026-11-20T09:00:00.000Z', { id: 'a' }),
    ];
    const { book, store, asked } = await bookOf(() => onePage(listed), NOW);
    // What an older version kept: the list read to its end, the day holding the last of the two.
    const kept = {
      reference: 'SHARED-REF',
      kind: 'deposit',
      direction: 'in',
      fee: '0.00',
      status: 'succeeded',
    };
    await store.set('reports:book-days:test:listed', {
      segments: [{ topRef: 'SHARED-REF', bottomAt: '2026-11-20T09:00:00.000Z', bottomFromEnd: 0, end: true }],
    });
    await store.set('reports:day:test:listed:2026-11-20', {
      'SHARED-REF': { ...kept, amount: '100.00', at: '2026-11-20T09:00:00.000Z' },
    });
    expect(await book.read(new Date(NOW - DAY))).toMatchObject({ listEnd: true, interrupted: false });
    expect(asked).toEqual([1]);
    const movements = await book.movements(new Date(NOW - DAY), new Date(NOW + 1));
    expect(movements.map((m) => m.amount)).toEqual(['100.00', '200.00']);
  });
});

describe('a list without pagination', () => {
  const history = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      listedDeposit(`OLD-${i}`, '100.00', new Date(NOW - (i + 1) * 3_600_000).toISOString()),
    );
  /** The service's default page of 10, whatever `limit` asks. */
  const capped = (all: unknown[], frame: (data: unknown[]) => unknown) => (page: number) =>
    frame(all.slice((page - 1) * 10, page * 10));

  for (const [form, frame] of [
    ['a bare array', (data: unknown[]) => data],
    ['pagination: null', (data: unknown[]) => ({ data, pagination: null })],
  ] as const) {
    test(`is read past a first page the service capped (${form})`, async ({ bookOf }) => {
      const { book, asked } = await bookOf(capped(history(25), frame), NOW);
      const coverage = await book.read(new Date(NOW - 7 * DAY));
      expect(coverage).toMatchObject({ listEnd: true, interrupted: false });
      // A later read knows the kept history's end from its first page.
      await book.read(new Date(NOW - 7 * DAY));
      expect(asked).toEqual([1, 2, 3, 1]);
      expect(await book.movements(new Date(NOW - 7 * DAY), new Date(NOW + 1))).toHaveLength(25);
    });
  }

  test('ends where the page after a short first one comes back empty', async ({ bookOf }) => {
    const { book, asked } = await bookOf(
      capped(history(7), (data) => data),
      NOW,
    );
    expect(await book.read(new Date(NOW - 7 * DAY))).toMatchObject({ listEnd: true });
    expect(asked).toEqual([1, 2]);
    expect(await book.movements(new Date(NOW - 7 * DAY), new Date(NOW + 1))).toHaveLength(7);
  });

  test('reads on past a page the list shifted onto what was read, when new transactions arrive', async ({
    bookOf,
  }) => {
    // Ten new transactions arrive right after the first page is read: page 2 is the old page 1.
    const arrived = Array.from({ length: 10 }, (_, i) =>
      listedDeposit(`NEW-${i}`, '100.00', new Date(NOW - i * 60_000).toISOString()),
    );
    let list = history(25);
    const answer = (page: number) => {
      const data = list.slice((page - 1) * 10, page * 10);
      if (page === 1) list = [...arrived, ...list];
      return data;
    };
    const { book, asked } = await bookOf(answer, NOW);
    expect(await book.read(new Date(NOW - 7 * DAY))).toMatchObject({ listEnd: true });
    expect(asked).toEqual([1, 2, 3, 4]);
    expect(await book.movements(new Date(NOW - 7 * DAY), new Date(NOW + 1))).toHaveLength(25);
  });

  test('ends where a service ignoring the page number lists its ties in another order each time', async ({
    bookOf,
  }) => {
    const ties = Array.from({ length: 10 }, (_, i) =>
      listedDeposit(`TIE-${i}`, '100.00', new Date(NOW - 3_600_000).toISOString()),
    );
    const { book, asked } = await bookOf(
      (page) => (page > 40 ? [] : [...ties.slice(page % 10), ...ties.slice(0, page % 10)]),
      NOW,
    );
    expect(await book.read(new Date(NOW - 7 * DAY))).toMatchObject({ listEnd: true, interrupted: false });
    expect(asked).toEqual([1, 2, 3]);
  });

  for (const count of [30, 10]) {
    test(`ends where a service ignoring the page number repeats its ${count}`, async ({ bookOf }) => {
      // The same answer for every page (an empty one far on, so a walk past the end still stops).
      const { book, asked } = await bookOf((page) => (page > 5 ? [] : history(count)), NOW);
      const coverage = await book.read(new Date(NOW - 7 * DAY));
      expect(coverage).toMatchObject({ listEnd: true, interrupted: false });
      // Once again is a list shifted by new arrivals as well; twice is the end.
      expect(asked).toEqual([1, 2, 3]);
      expect(await book.movements(new Date(NOW - 7 * DAY), new Date(NOW + 1))).toHaveLength(count);
    });
  }
});
