// A month of 10,000 movements: the report over a service history of 10,000 transactions is built from
// ten pages of 1,000 (within one minute's budget of 20 requests), and its figures agree to the kobo
// with the service's own records; a build whose signal fires stops reading the list at once.
// The real client against the embedded sandbox over HTTP, with the service's limit on.
import { test as base, describe, expect } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { Money } from '../../src/format/money.js';
import { buildReport } from '../../src/reports/build.js';
import { parsePeriod } from '../../src/reports/period.js';
import type { ReportPeriod } from '../../src/reports/types.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import type { TransactionRecord } from '../../src/sandbox/types.js';
import { createStore } from '../../src/store/index.js';
import { clientFor } from '../support/cngn-client.js';
import { partsFor } from './support.js';

const NOW = Date.parse('2026-11-29T09:00:00Z');
const COUNT = 10_000;
const month = parsePeriod('2026-11', new Date(NOW)) as ReportPeriod;

/**
 * One sandbox holding a month of COUNT transactions, the real client on it with the service's limit,
 * and `seeded`, the sandbox's transactions, newest first, as it lists them: once for the file.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('service', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({
      now: () => NOW,
      settleDelayMs: 3_600_000,
      history: { count: COUNT, from: month.from.getTime() },
    });
    const { client, store } = await clientFor(sandbox, {
      environment: 'sandbox',
      rateLimit: { limit: 20, windowSeconds: 60 },
    });
    onCleanup(async () => {
      await client.close();
      await sandbox.stop();
      await store.close();
    });
    const seeded: Readonly<TransactionRecord>[] = [...sandbox.transactions()];
    expect(seeded).toHaveLength(COUNT);
    return { sandbox, client, seeded };
  })
  .extend('sandbox', { scope: 'file' }, async ({ service }) => service.sandbox)
  .extend('client', { scope: 'file' }, async ({ service }) => service.client)
  .extend('seeded', { scope: 'file' }, async ({ service }) => service.seeded);

const kobo = (text: string) => Money.parseDecimal(text).kobo;
const naira = (value: bigint) => Money.fromKobo(value).toString();
const transactionReads = (sandbox: Sandbox) =>
  sandbox.requests.filter((r) => /\/transactions\b/.test(r.path)).length;

describe('a month of 10,000 movements', () => {
  test('reads the month in ten pages and counts every movement to the kobo', async ({
    sandbox,
    client,
    seeded,
  }) => {
    const readsBefore = transactionReads(sandbox);
    const own = await createStore('memory://', { prefix: `month-${Math.random()}` });
    try {
      const report = await buildReport(
        month,
        partsFor(client, own, () => new Date(NOW + 60_000), 1000),
      );
      const t = report.treasury;
      // Ten pages of 1,000, then the first page again to confirm the balance was read as of the list.
      expect(transactionReads(sandbox) - readsBefore).toBe(11);
      expect(t.movements).toHaveLength(COUNT);
      expect(t.interrupted).toBeUndefined();
      // The service's history starts just after the month did: the figures say from when they hold.
      expect(t.completeFrom).toBe(seeded.at(-1)?.createdAt);

      // What the service's records say, summed here in kobo.
      const completed = seeded.filter((tx) => tx.status === 'completed');
      const sumOf = (types: string[]) =>
        completed.filter((tx) => types.includes(tx.trx_type)).reduce((s, tx) => s + kobo(tx.amount), 0n);
      expect(t.inflows.deposit).toBe(naira(sumOf(['fiat_buy', 'crypto_deposit'])));
      expect(t.outflows.withdrawal).toBe(naira(sumOf(['withdraw'])));
      expect(t.outflows.redemption).toBe(naira(sumOf(['fiat_redeem'])));
      expect(t.outflows.bridge).toBe(naira(sumOf(['swap'])));
      expect(t.failures).toHaveLength(seeded.filter((tx) => tx.status === 'failed').length);

      // The balance rebuilt backward: opening + in − out = closing, the closing the service's balance.
      const ins = Object.values(t.inflows).reduce((s, v) => s + kobo(v), 0n);
      const outs = Object.values(t.outflows).reduce((s, v) => s + kobo(v), 0n);
      expect(t.closing).toBe(sandbox.balance());
      expect(kobo(t.opening) + ins - outs).toBe(kobo(t.closing));
      // Each day's figures add up to the month's, and its last closing is the month's.
      const dayIns = t.days.reduce((s, d) => s + kobo(d.inflow), 0n);
      const dayOuts = t.days.reduce((s, d) => s + kobo(d.outflow), 0n);
      expect([dayIns, dayOuts]).toEqual([ins, outs]);
      expect(t.days.at(-1)?.closing).toBe(t.closing);
      // Every amount exactly as the service listed it.
      const amounts = new Map(seeded.map((tx) => [tx.trx_ref, tx.amount]));
      expect(t.movements.every((m) => m.amount === amounts.get(m.reference))).toBe(true);
    } finally {
      await own.close();
    }
  }, 120_000);

  test('stops reading the list once its signal fires', async ({ sandbox, client }) => {
    const cut = new AbortController();
    let pages = 0;
    const counting = Object.create(client) as CngnClient;
    counting.getTransactions = async (options) => {
      const page = await client.getTransactions(options);
      // The cut fires as the third page arrives.
      if (++pages === 3) cut.abort(new Error('the report took too long'));
      return page;
    };
    const own = await createStore('memory://', { prefix: `month-cut-${Math.random()}` });
    try {
      const readsBefore = transactionReads(sandbox);
      const build = buildReport(
        month,
        partsFor(counting, own, () => new Date(NOW + 60_000), 1000),
        {
          signal: cut.signal,
        },
      );
      await expect(build).rejects.toThrow('the report took too long');
      expect(pages).toBe(3);
      expect(transactionReads(sandbox) - readsBefore).toBe(3);
    } finally {
      await own.close();
    }
  }, 120_000);
});
