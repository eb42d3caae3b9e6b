// A transaction book on a memory store over a list the test writes itself (any shape the service may
// answer in), for tests about what the book keeps of a given list rather than of the sandbox's.
import type { TransactionPage } from '../../src/cngn/schemas.js';
import { transactionPageSchema } from '../../src/cngn/schemas.js';
import { TransactionBook } from '../../src/reports/transaction-book.js';
import { createStore, type Store } from '../../src/store/index.js';
import { test } from './fixtures.js';

/** The list's answer to a page asked for (a page number from 1): any JSON the service could send. */
export type ListAnswer = (page: number) => unknown;

export interface ListedBook {
  book: TransactionBook;
  store: Store;
  /** The page numbers asked for, in order. */
  asked: number[];
}

/** A listed transaction: a completed deposit of `amount` made at `at`, under `trx_ref`. */
export function listedDeposit(trxRef: string, amount: string, at: string, extra: object = {}) {
  return { trx_ref: trxRef, trx_type: 'fiat_buy', amount, status: 'completed', createdAt: at, ...extra };
}

/** One page holding `data` whole, with the pagination the service has sent since 2025. */
export function onePage(data: unknown[]) {
  return {
    data,
    pagination: { count: data.length, pages: 1, isLastPage: true, nextPage: null, previousPage: null },
  };
}

/**
 * `bookOf(answer, now)`: a book (scope `test:listed`) reading `answer`, on a memory store of the
 * test's own, closed after it.
 */
export const listedBookTest = test.extend('bookOf', async ({ defer }) => {
  return async (answer: ListAnswer, now: number): Promise<ListedBook> => {
    const store = await createStore('memory://');
    defer(() => store.close());
    const asked: number[] = [];
    const getTransactions = async ({ page = 1 }): Promise<TransactionPage> => {
      asked.push(page);
      return transactionPageSchema.parse(answer(page));
    };
    const book = new TransactionBook({
      store,
      scope: 'test:listed',
      now: () => now,
      source: { getTransactions },
    });
    return { book, store, asked };
  };
});
