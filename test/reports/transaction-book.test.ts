// The transaction book against the real client and the embedded sandbox over HTTP: what it reads of
// the service's list, and what it keeps, counted by the sandbox's own request log.
import { describe, expect } from 'vitest';
import { RateBudgetError } from '../../src/cngn/errors.js';
import { Money } from '../../src/format/money.js';
import { buildReport } from '../../src/reports/build.js';
import { TransactionBook, type TransactionSource } from '../../src/reports/transaction-book.js';
import { DEST, twoNetworks } from '../support/engine.js';
import { sandboxClientTest } from '../support/sandbox-client.js';
import { lastDays, partsFor } from './support.js';

const NOW = Date.parse('2026-11-20T10:30:00Z');
const DAY = 86_400_000;
const LONG_AGO = new Date(NOW - 60 * DAY);

/**
 * The sandbox's clock stands still at NOW. `bookOn(source)`, a book on the test's store reading
 * `source` (the client unless given); `listReads()`, the reads of the list the sandbox has seen;
 * `deposits(count)`, that many crypto deposits at the sandbox.
 */
const test = sandboxClientTest
  .extend('sandboxOptions', { now: () => NOW })
  .extend(
    'bookOn',
    async ({ client, store }) =>
      (source: TransactionSource = client) =>
        new TransactionBook({ store, source, scope: 'sandbox:test-key', pageSize: 10, now: () => NOW }),
  )
  .extend(
    'listReads',
    async ({ sandbox }) =>
      () =>
        sandbox.count('GET', '/v1/api/transactions'),
  )
  .extend('deposits', async ({ sandbox }) => async (count: number) => {
    for (let i = 0; i < count; i++) await sandbox.simulateCryptoDeposit({ amount: `${100 + i}` });
  });

describe('the transaction book', () => {
  test('reads only what is new the second time', async ({ bookOn, listReads, deposits }) => {
    const book = bookOn();
    expect(await book.read(LONG_AGO)).toEqual({
      reachedAt: expect.any(String),
      listEnd: true,
      interrupted: false,
      top: expect.any(String),
    });
    expect(listReads()).toBe(4); // 36 seeded transactions, 10 a page
    expect(await book.movements(LONG_AGO, new Date(NOW + 1))).toHaveLength(36);

    await book.read(LONG_AGO);
    expect(listReads()).toBe(5); // the first page holds the newest kept one: nothing more to read

    await deposits(12);
    await book.read(LONG_AGO);
    expect(listReads()).toBe(7); // 12 new ones: two pages, then the kept history is known to its end
    expect(await book.movements(LONG_AGO, new Date(NOW + 1))).toHaveLength(48);
  });

  test('reads further back only past what it kept, for an older period', async ({
    sandbox,
    bookOn,
    listReads,
  }) => {
    const book = bookOn();
    await book.read(new Date(NOW - 2 * DAY));
    expect(listReads()).toBe(1); // the first page reaches back past two days
    const coverage = await book.read(LONG_AGO);
    // The first page again (for anything new), then straight on from the second.
    expect(
      sandbox.requests.filter((r) => r.path.startsWith('/v1/api/transactions')).map((r) => r.path),
    ).toEqual([
      '/v1/api/transactions?page=1&limit=10',
      '/v1/api/transactions?page=1&limit=10',
      '/v1/api/transactions?page=2&limit=10',
      '/v1/api/transactions?page=3&limit=10',
      '/v1/api/transactions?page=4&limit=10',
    ]);
    expect(coverage.listEnd).toBe(true);
  });

  test('keeps what a read cut short got, and the next read goes on from there', async ({
    client,
    bookOn,
    listReads,
  }) => {
    let pages = 0;
    const rationed: TransactionSource = {
      getTransactions: async (options) => {
        if (++pages > 2) throw new RateBudgetError(60);
        return client.getTransactions(options);
      },
    };
    const refused: TransactionSource = {
      getTransactions: async () => {
        throw new RateBudgetError(60);
      },
    };
    // Nothing read at all: what is new is unknown, so there is no report to make.
    await expect(bookOn(refused).read(LONG_AGO)).rejects.toBeInstanceOf(RateBudgetError);
    const cut = await bookOn(rationed).read(LONG_AGO);
    expect(cut).toMatchObject({ interrupted: true, listEnd: false });
    expect(await bookOn().movements(LONG_AGO, new Date(NOW + 1))).toHaveLength(20);

    expect(await bookOn().read(LONG_AGO)).toMatchObject({ interrupted: false, listEnd: true });
    expect(listReads()).toBe(2 + 3); // the first page again, then pages 3 and 4
    expect(await bookOn().movements(LONG_AGO, new Date(NOW + 1))).toHaveLength(36);
  });

  test('counts pages in what the service gives when it gives fewer than asked', async ({
    sandbox,
    client,
    bookOn,
    listReads,
    deposits,
  }) => {
    const capped: TransactionSource = {
      getTransactions: (options) => client.getTransactions({ ...options, limit: 5 }),
    };
    const book = bookOn(capped);
    await book.read(new Date(NOW - 2 * DAY));
    expect(listReads()).toBe(2);
    await deposits(3);
    await book.read(LONG_AGO);
    // Page 1 for the new ones, then on from the sixth page of five, not the third of ten.
    expect(
      sandbox.requests.filter((r) => r.path.startsWith('/v1/api/transactions')).map((r) => r.path),
    ).toEqual([
      '/v1/api/transactions?page=1&limit=5',
      '/v1/api/transactions?page=2&limit=5',
      '/v1/api/transactions?page=1&limit=5',
      '/v1/api/transactions?page=3&limit=5',
      '/v1/api/transactions?page=4&limit=5',
      '/v1/api/transactions?page=5&limit=5',
      '/v1/api/transactions?page=6&limit=5',
      '/v1/api/transactions?page=7&limit=5',
      '/v1/api/transactions?page=8&limit=5',
    ]);
    expect(await book.movements(LONG_AGO, new Date(NOW + 1))).toHaveLength(39);
  });

  test('reads a pending movement again until it ends, even below the newest kept one', async ({
    sandbox,
    client,
    bookOn,
    deposits,
  }) => {
    const [networkId] = await twoNetworks(client);
    const sent = await client.withdraw({ amount: Money.parse('2500'), address: DEST, networkId });
    await deposits(10);
    const book = bookOn();
    await book.read(new Date(NOW - DAY));
    const status = async () =>
      (await book.movements(LONG_AGO, new Date(NOW + 1))).find((m) => m.reference === sent.trxRef)?.status;
    expect(await status()).toBe('pending');

    await sandbox.settleAll();
    await deposits(1);
    await book.read(new Date(NOW - DAY));
    expect(await status()).toBe('succeeded');
  });

  test('tells whether the list’s first page changed since a read: a new movement or a new outcome', async ({
    sandbox,
    client,
    bookOn,
    deposits,
  }) => {
    const [networkId] = await twoNetworks(client);
    await client.withdraw({ amount: Money.parse('2500'), address: DEST, networkId });
    const book = bookOn();
    const { top } = await book.read(new Date(NOW - DAY));
    expect(await book.readTop()).toBe(top);
    await sandbox.settleAll();
    const settled = await book.readTop();
    expect(settled).not.toBe(top);
    await deposits(1);
    expect(await book.readTop()).not.toBe(settled);
  });

  test('says from when the figures are complete when the history is shorter than the period', async ({
    client,
    store,
  }) => {
    const parts = partsFor(client, store, () => new Date(NOW));
    const { treasury } = await buildReport(lastDays(30, new Date(NOW)), parts);
    const oldest = (await parts.book.movements(LONG_AGO, new Date(NOW + 1)))[0];
    expect(treasury.completeFrom).toBe(oldest?.at);
    // Before the history starts the balance stands at the opening figure.
    expect(treasury.days[0]?.closing).toBe(treasury.opening);
    expect(treasury.closing).toBe('1250000.00');

    const week = await buildReport(lastDays(7, new Date(NOW)), parts);
    expect(week.treasury.completeFrom).toBeUndefined();
  });
});
