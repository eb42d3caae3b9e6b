// How listed transactions count in a report, in every shape the sources document: both trx_type
// vocabularies, open status words, amounts as text or numbers, the 2024 list without pagination.
import { describe, expect, it } from 'vitest';
import { transactionPageSchema, transactionSchema } from '../../src/cngn/schemas.js';
import { treasuryFigures } from '../../src/reports/figures.js';
import { balanceEffect, movementOf } from '../../src/reports/movements.js';
import { TransactionBook } from '../../src/reports/transaction-book.js';
import { createStore } from '../../src/store/index.js';
import { lastDays } from './support.js';

const SEEN = new Date('2026-11-20T10:00:00Z');
const tx = (fields: Record<string, unknown>) =>
  transactionSchema.parse({
    trx_ref: 'REF-1',
    amount: '1000.00',
    createdAt: '2026-11-19T09:00:00Z',
    ...fields,
  });

describe('a transaction as a movement', () => {
  it('reads both trx_type vocabularies and their directions', () => {
    const kinds = [
      'fiat_buy',
      'crypto_deposit',
      'deposit',
      'withdraw',
      'withdrawal',
      'fiat_redeem',
      'redeem',
      'swap',
      'bridge',
      'enaira_buy',
      'mint_reward',
      'fee_charge',
    ].map((type) => {
      const m = movementOf(tx({ trx_type: type, status: 'completed' }), SEEN);
      return `${type}:${m?.kind}:${m?.direction}`;
    });
    expect(kinds).toEqual([
      'fiat_buy:deposit:in',
      'crypto_deposit:deposit:in',
      'deposit:deposit:in',
      'withdraw:withdrawal:out',
      'withdrawal:withdrawal:out',
      'fiat_redeem:redemption:out',
      'redeem:redemption:out',
      'swap:bridge:out',
      'bridge:bridge:out',
      'enaira_buy:deposit:in',
      'mint_reward:other:in',
      'fee_charge:other:out',
    ]);
  });

  it('counts what moved the balance: successes and outgoing movements still pending', () => {
    const effect = (type: string, status: string) =>
      balanceEffect(movementOf(tx({ trx_type: type, status }), SEEN)).toString();
    expect(effect('fiat_buy', 'success')).toBe('1000.00');
    expect(effect('fiat_buy', 'pending_deposit')).toBe('0.00');
    expect(effect('withdraw', 'processing')).toBe('-1000.00');
    expect(effect('fiat_redeem', 'pending_redeem')).toBe('-1000.00');
    expect(effect('withdraw', 'failed')).toBe('0.00');
    expect(effect('withdraw', 'reversed')).toBe('0.00');
  });

  it('keeps a failure’s reason, a fee the service sends, and a number amount exactly', () => {
    const m = movementOf(
      tx({
        trx_type: 'fiat_redeem',
        status: 'failed',
        amount: 2500.5,
        fee: '12.50',
        reason: 'Provider failed to process payout',
      }),
      SEEN,
    );
    expect(m).toMatchObject({
      amount: '2500.50',
      fee: '12.50',
      status: 'failed',
      reason: 'Provider failed to process payout',
    });
  });

  it('reads zeros past the kobo place exactly, and keeps an amount it cannot read as one to name', () => {
    expect(movementOf(tx({ amount: '100.500000' }), SEEN)).toMatchObject({ amount: '100.50' });
    expect(movementOf(tx({ amount: '100.500000' }), SEEN).unreadableAmount).toBeUndefined();
    expect(movementOf(tx({ amount: '1.234567' }), SEEN)).toMatchObject({
      amount: '0.00',
      unreadableAmount: '1.234567',
    });
    expect(balanceEffect(movementOf(tx({ amount: '100.505', trx_type: 'withdraw' }), SEEN)).toString()).toBe(
      '0.00',
    );
  });

  it('names an unreadable amount only where it would have moved the balance, and counts no fee of it', () => {
    const sent = { ...movementOf(tx({ amount: '100.505', trx_type: 'withdraw' }), SEEN), fee: '10.00' };
    const failed = movementOf(
      tx({ amount: '200.505', trx_type: 'withdraw', status: 'failed', trx_ref: 'REF-FAILED' }),
      SEEN,
    );
    const figures = treasuryFigures({
      environment: 'test',
      period: lastDays(2, new Date(SEEN.getTime() + 1)),
      balance: '500.00',
      movements: [sent, failed],
    });
    expect(figures.unreadable?.map((m) => m.unreadableAmount)).toEqual(['100.505']);
    expect(figures.fees).toBe('0.00');
  });

  it('counts a negative amount in no figure and names it, rather than flip which way it moved', () => {
    const signed = movementOf(
      tx({ trx_ref: 'WD-NEG', trx_type: 'withdraw', amount: '-1000.00', status: 'completed' }),
      SEEN,
    );
    expect(signed).toMatchObject({ amount: '0.00', unreadableAmount: '-1000.00' });
    const figures = treasuryFigures({
      environment: 'live',
      period: lastDays(2, new Date(SEEN.getTime() + 1)),
      balance: '5000.00',
      movements: [
        signed,
        movementOf(tx({ trx_ref: 'IN-NEG', trx_type: 'deposit', amount: -250, status: 'completed' }), SEEN),
      ],
    });
    expect(figures).toMatchObject({ opening: '5000.00', closing: '5000.00' });
    expect(figures.outflows.withdrawal).toBe('0.00');
    expect(figures.inflows.deposit).toBe('0.00');
    expect(figures.unreadable?.map((m) => m.reference)).toEqual(['WD-NEG', 'IN-NEG']);
  });

  it('dates one without a creation time by when it was seen, and marks it undated', () => {
    const undated = movementOf(tx({ createdAt: null, updatedAt: null }), SEEN);
    expect(undated.at).toBe(SEEN.toISOString());
    expect(undated.undated).toBe(true);
    expect(movementOf(tx({}), SEEN).undated).toBeUndefined();
  });
});

describe('the 2024 list, a bare array without pagination', () => {
  it('is read to its end by page length, and adds up', async () => {
    const all = Array.from({ length: 7 }, (_, i) => ({
      trx_ref: `OLD-${i}`,
      trx_type: i % 2 ? 'withdraw' : 'fiat_buy',
      amount: '100.00',
      status: 'completed',
      receiver: '011:1234567890',
      createdAt: new Date(Date.parse('2026-11-20T09:00:00Z') - i * 3_600_000).toISOString(),
    }));
    const asked: number[] = [];
    const store = await createStore('memory://');
    const book = new TransactionBook({
      store,
      scope: 'test:old',
      pageSize: 3,
      now: () => SEEN.getTime(),
      source: {
        getTransactions: async ({ page = 1 }) => {
          asked.push(page);
          return transactionPageSchema.parse(all.slice((page - 1) * 3, page * 3));
        },
      },
    });
    expect(await book.read(new Date('2026-11-01T00:00:00Z'))).toMatchObject({
      listEnd: true,
      interrupted: false,
    });
    expect(asked).toEqual([1, 2, 3]);
    const period = lastDays(2, SEEN);
    const movements = await book.movements(period.from, new Date(SEEN.getTime() + 1));
    const figures = treasuryFigures({
      environment: 'test',
      period,
      balance: '500.00',
      movements,
      reachedAt: movements[0]?.at,
    });
    // 4 deposits and 3 withdrawals of ₦100 over the morning: ₦100 more at the end than before them.
    expect(figures).toMatchObject({
      opening: '400.00',
      closing: '500.00',
      completeFrom: '2026-11-20T03:00:00.000Z',
    });
    await store.close();
  });
});

describe('a transaction listed without a creation time', () => {
  const DAY = 86_400_000;
  const withdrawal = (status: string, updatedAt: string | null) => ({
    trx_ref: 'WD-UNDATED',
    trx_type: 'withdraw',
    amount: '300.00',
    status,
    receiver: { address: '0xabc' },
    createdAt: null,
    updatedAt,
  });

  /** The book's stored copy of the undated withdrawal, as a read of `status` at `at` filed it. */
  const undatedCopy = (status: string, at: string) => ({
    reference: 'WD-UNDATED',
    kind: 'withdrawal',
    direction: 'out',
    amount: '300.00',
    fee: '0.00',
    at,
    status,
    undated: true,
  });

  /** A book reading a one-transaction list that `listed` gives, at the time `clock` holds. */
  async function bookOf(listed: () => Record<string, unknown>, clock: { now: number }) {
    const store = await createStore('memory://');
    const book = new TransactionBook({
      store,
      scope: 'test:undated',
      pageSize: 10,
      now: () => clock.now,
      source: {
        getTransactions: async () =>
          transactionPageSchema.parse({
            data: [listed()],
            pagination: { count: 1, pages: 1, isLastPage: true, nextPage: null, previousPage: null },
          }),
      },
    });
    return { store, book };
  }

  it('is kept once, its outcome under the day it was first filed, however its time moves', async () => {
    // Pending when first read; completed, and updated, two Lagos days later.
    const clock = { now: SEEN.getTime() };
    let listed = withdrawal('pending', null);
    const { store, book } = await bookOf(() => listed, clock);
    await book.read(new Date(SEEN.getTime() - DAY));
    clock.now = SEEN.getTime() + 2 * DAY;
    listed = withdrawal('completed', new Date(clock.now - 60_000).toISOString());
    await book.read(new Date(SEEN.getTime() - DAY));

    const movements = await book.movements(new Date(SEEN.getTime() - DAY), new Date(clock.now + DAY));
    expect(movements.map((m) => [m.reference, m.status, m.at])).toEqual([
      ['WD-UNDATED', 'succeeded', SEEN.toISOString()],
    ]);
    // Not stored under the later day at all: the book holds one copy.
    expect(await store.get('reports:movements:test:undated:2026-11-22')).toBeUndefined();
    const period = lastDays(3, new Date(clock.now));
    const figures = treasuryFigures({ environment: 'test', period, balance: '1000.00', movements });
    expect(figures).toMatchObject({ opening: '1300.00', closing: '1000.00' });
    expect(figures.outflows.withdrawal).toBe('300.00');
    await store.close();
  });

  for (const extra of [{}, { id: 'tx-1' }]) {
    const named = 'id' in extra ? 'a time and an id' : 'a time';
    it(`counts once, under its creation time, one that later comes with ${named}`, async () => {
      // First listed undated two days after it was made (filed under that day); then with its time.
      const clock = { now: SEEN.getTime() + 2 * DAY };
      let listed: Record<string, unknown> = withdrawal('completed', null);
      const { store, book } = await bookOf(() => listed, clock);
      await book.read(new Date(SEEN.getTime() - DAY));
      listed = { ...withdrawal('completed', null), ...extra, createdAt: SEEN.toISOString() };
      clock.now += 60_000;
      await book.read(new Date(SEEN.getTime() - DAY));

      const laterDay = await book.movements(new Date('2026-11-22T00:00:00Z'), new Date(clock.now + DAY));
      expect(laterDay).toEqual([]);
      const all = await book.movements(new Date(SEEN.getTime() - DAY), new Date(clock.now + DAY));
      expect(all.map((m) => [m.reference, m.at, m.undated])).toEqual([
        ['WD-UNDATED', SEEN.toISOString(), undefined],
      ]);
      await store.close();
    });
  }

  it('counts two dated transactions that share a reference on two days, each once', async () => {
    const clock = { now: SEEN.getTime() };
    const { store, book } = await bookOf(() => withdrawal('pending', null), clock);
    const dated = (kind: string, direction: string, amount: string, at: string) => ({
      reference: 'R1',
      kind,
      direction,
      amount,
      fee: '0.00',
      at,
      status: 'succeeded',
    });
    await store.set('reports:movements:test:undated:2026-11-20', {
      R1: dated('withdrawal', 'out', '300.00', '2026-11-20T10:00:00.000Z'),
    });
    await store.set('reports:movements:test:undated:2026-11-22', {
      R1: dated('deposit', 'in', '500.00', '2026-11-22T09:00:00.000Z'),
    });
    const movements = await book.movements(
      new Date('2026-11-19T00:00:00Z'),
      new Date('2026-11-23T00:00:00Z'),
    );
    expect(movements.map((m) => [m.kind, m.amount])).toEqual([
      ['withdrawal', '300.00'],
      ['deposit', '500.00'],
    ]);
    await store.close();
  });

  it('skips a copy left under a day the index no longer files its reference under', async () => {
    const clock = { now: SEEN.getTime() };
    const { store, book } = await bookOf(() => withdrawal('pending', null), clock);
    // Filed under the 20th (its newest word: failed); a stopped write left a copy under the 22nd.
    await store.set('reports:undated:test:undated', { 'WD-UNDATED': '2026-11-20T10:00:00.000Z' });
    await store.set('reports:movements:test:undated:2026-11-20', {
      'WD-UNDATED': undatedCopy('failed', '2026-11-20T10:00:00.000Z'),
    });
    await store.set('reports:movements:test:undated:2026-11-22', {
      'WD-UNDATED': undatedCopy('succeeded', '2026-11-22T09:00:00.000Z'),
    });
    const movements = await book.movements(
      new Date('2026-11-19T00:00:00Z'),
      new Date('2026-11-23T00:00:00Z'),
    );
    expect(movements.map((m) => [m.status, m.at])).toEqual([['failed', '2026-11-20T10:00:00.000Z']]);
    // A period holding only the leftover's day does not count it either.
    expect(await book.movements(new Date('2026-11-22T00:00:00Z'), new Date('2026-11-23T00:00:00Z'))).toEqual(
      [],
    );
    await store.close();
  });

  it('is given once when kept under two days already, with its newest outcome', async () => {
    const clock = { now: SEEN.getTime() };
    const { store, book } = await bookOf(() => withdrawal('pending', null), clock);
    await store.set('reports:movements:test:undated:2026-11-20', {
      'WD-UNDATED': undatedCopy('pending', '2026-11-20T10:00:00.000Z'),
    });
    await store.set('reports:movements:test:undated:2026-11-22', {
      'WD-UNDATED': undatedCopy('succeeded', '2026-11-22T09:00:00.000Z'),
    });
    const movements = await book.movements(
      new Date('2026-11-19T00:00:00Z'),
      new Date('2026-11-23T00:00:00Z'),
    );
    expect(movements.map((m) => [m.status, m.at])).toEqual([['succeeded', '2026-11-20T10:00:00.000Z']]);
    await store.close();
  });
});
