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
      balanceEffect(movementOf(tx({ trx_type: type, status }), SEEN) as never).toString();
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

  it('leaves out an amount that is no figure, and dates one without a time by when it was seen', () => {
    expect(movementOf(tx({ amount: '1.234567' }), SEEN)).toBeUndefined();
    expect(movementOf(tx({ createdAt: null, updatedAt: null }), SEEN)?.at).toBe(SEEN.toISOString());
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
