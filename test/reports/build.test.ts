// A report's balance and transaction list read as of one moment, and what the summary says when they
// could not be, or when the request budget cut the list's read short; a budget kept busy ends the
// reads by the report's deadline. The real client against the embedded sandbox over HTTP; money moves
// between the reads through the sandbox itself.
import { describe, expect } from 'vitest';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import type { CngnClient, CngnClientOptions } from '../../src/cngn/client.js';
import { keyId } from '../../src/cngn/credentials.js';
import { RateBudgetError } from '../../src/cngn/errors.js';
import { SharedRateLimiter } from '../../src/cngn/limiter.js';
import { Money } from '../../src/format/money.js';
import { buildReport } from '../../src/reports/build.js';
import { reportDeps } from '../../src/reports/deps.js';
import type { Report } from '../../src/reports/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { reportSummary } from '../../src/slack/reports/blocks.js';
import { createStore } from '../../src/store/index.js';
import { sandboxClientTest as base, type SandboxClient } from '../support/sandbox-client.js';
import { lastDays, partsFor } from './support.js';

// The sandbox's clock stands still; the bot's runs a minute ahead, so what lands at the service is in the period.
const NOW = Date.parse('2026-11-20T10:30:00Z');
const BOT_NOW = () => new Date(NOW + 60_000);
const WEEK = lastDays(7, BOT_NOW());

/**
 * `quietReport()`, a report from a book of its own, read when nothing moves: the figures to agree
 * with. The sandbox's clock stands still at NOW.
 */
const test = base
  .extend('sandboxOptions', { now: () => NOW })
  .extend('quietReport', async ({ client, defer }) => async (): Promise<Report> => {
    const own = await createStore('memory://', { prefix: `quiet-${Math.random()}` });
    defer(() => own.close());
    return buildReport(WEEK, partsFor(client, own, BOT_NOW));
  });

/** The client, with a deposit landing at the service just before each of its first `times` balance reads. */
function depositsBeforeBalance(
  { sandbox, client }: { sandbox: Sandbox; client: CngnClient },
  times: number,
): CngnClient {
  let left = times;
  const wrapper = Object.create(client) as CngnClient;
  wrapper.getBalanceWithTime = async (options) => {
    if (left-- > 0) await sandbox.simulateCryptoDeposit({ amount: '5000.00' });
    return client.getBalanceWithTime(options);
  };
  return wrapper;
}

const kobo = (text: string) => Money.parseDecimal(text).kobo;
const total = (figures: Record<string, string>) => Object.values(figures).reduce((t, v) => t + kobo(v), 0n);

function expectConsistent(sandbox: Sandbox, report: Report) {
  const t = report.treasury;
  expect(t.closing).toBe(sandbox.balance());
  expect(kobo(t.opening) + total(t.inflows) - total(t.outflows)).toBe(kobo(t.closing));
}

const notes = (report: Report) =>
  reportSummary(report, { madeAt: new Date(NOW) })
    .blocks?.filter((b) => b.type === 'context')
    .map((b) => JSON.stringify(b))
    .join('\n') ?? '';

describe('a report read as of one moment', () => {
  test('counts a deposit that lands between the list’s read and the balance’s', async ({
    sandbox,
    client,
    store,
    quietReport,
  }) => {
    const report = await buildReport(
      WEEK,
      partsFor(depositsBeforeBalance({ sandbox, client }, 1), store, BOT_NOW),
    );
    const quiet = await quietReport();

    expectConsistent(sandbox, report);
    expect(report.treasury.opening).toBe(quiet.treasury.opening);
    expect(report.treasury.closing).toBe(quiet.treasury.closing);
    expect(report.treasury.inflows).toEqual(quiet.treasury.inflows);
    expect(report.treasury.days).toEqual(quiet.treasury.days);
    expect(report.treasury.snapshotUnconfirmed).toBeUndefined();
    // Read once more after the deposit, then confirmed.
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(2 + 1);
    expect(notes(report)).not.toContain('could not be confirmed');
  });

  test('reads the balance from the service, not a copy cached before the list was read', async ({
    sandbox,
    client,
    store,
    quietReport,
  }) => {
    await client.getBalance();
    await sandbox.simulateCryptoDeposit({ amount: '7500.00' });
    const report = await buildReport(WEEK, partsFor(client, store, BOT_NOW));
    const quiet = await quietReport();

    expectConsistent(sandbox, report);
    expect(report.treasury.opening).toBe(quiet.treasury.opening);
  });

  test('says the figures may be off when money moves every time it is read', async ({
    sandbox,
    client,
    store,
  }) => {
    const report = await buildReport(
      WEEK,
      partsFor(depositsBeforeBalance({ sandbox, client }, Number.POSITIVE_INFINITY), store, BOT_NOW),
    );
    expect(report.treasury.snapshotUnconfirmed).toBe(true);
    // Tried a bounded number of times: three balance reads, each followed by a check of the list.
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(3);
    expect(notes(report)).toContain(
      'the balance and the transactions could not be confirmed as of one moment, so the opening, closing and daily figures may be off by the latest movements',
    );
  });

  test('says the figures are unconfirmed when no budget is left to check the list again', async ({
    client,
    store,
  }) => {
    let firstPages = 0;
    const spentAfterRead = Object.create(client) as CngnClient;
    spentAfterRead.getTransactions = async (options) => {
      if ((options?.page ?? 1) === 1 && ++firstPages > 1) throw new RateBudgetError(60);
      return client.getTransactions(options);
    };
    const report = await buildReport(WEEK, partsFor(spentAfterRead, store, BOT_NOW));
    expect(report.treasury.snapshotUnconfirmed).toBe(true);
    expect(notes(report)).toContain('(or no request budget was left to check)');
  });
});

describe('the reads’ end', () => {
  /** The client, telling when its reads are said to be done and how many reads it had served by then. */
  function toldWhenDone(client: CngnClient, failAfterPages = Number.POSITIVE_INFINITY) {
    const told: number[] = [];
    let reads = 0;
    const telling = Object.create(client) as CngnClient;
    telling.getTransactions = async (options) => {
      if (++reads > failAfterPages) throw new Error('the service went away');
      return client.getTransactions(options);
    };
    telling.getBalanceWithTime = async (options) => {
      reads++;
      return client.getBalanceWithTime(options);
    };
    telling.largeReadsDone = () => told.push(reads);
    return { telling, told, reads: () => reads };
  }

  test('tells the client once its reads are over, so the thread large pages are opened in can go', async ({
    client,
    store,
  }) => {
    const { telling, told, reads } = toldWhenDone(client);
    await buildReport(WEEK, partsFor(telling, store, BOT_NOW));
    expect(reads()).toBeGreaterThan(1);
    expect(told).toEqual([reads()]);
  });

  test('tells the client so when a read fails, too', async ({ client, store }) => {
    const { telling, told } = toldWhenDone(client, 0);
    await expect(buildReport(WEEK, partsFor(telling, store, BOT_NOW))).rejects.toThrow('went away');
    expect(told).toEqual([1]);
  });
});

describe('a read the request budget cut short', () => {
  test('says the read stopped for the budget and the next report goes on, not that the history ends', async ({
    client,
    store,
  }) => {
    // Past the second page the budget stays spent (reads do not wait here).
    const rationed = Object.create(client) as CngnClient;
    rationed.getTransactions = async (options) => {
      if ((options?.page ?? 1) > 2) throw new RateBudgetError(60);
      return client.getTransactions(options);
    };
    const month = lastDays(30, BOT_NOW());
    const report = await buildReport(month, partsFor(rationed, store, BOT_NOW));
    expect(report.treasury).toMatchObject({ interrupted: true, completeFrom: expect.any(String) });
    const text = notes(report);
    expect(text).toContain(
      "the read of the service's transactions was cut short to keep within its request budget; the next report continues where this one stopped",
    );
    expect(text).not.toContain('does not reach further back');

    // The next report goes on from there and reaches the history's real end.
    const next = await buildReport(month, partsFor(client, store, BOT_NOW));
    expect(next.treasury.interrupted).toBeUndefined();
    expect(Date.parse(next.treasury.completeFrom ?? '')).toBeLessThan(
      Date.parse(report.treasury.completeFrom ?? ''),
    );
    expect(notes(next)).toContain("the service's history does not reach further back");
  });
});

describe('a read the request budget keeps busy', () => {
  const MINUTE = 60_000;
  const RATE = { limit: 20, windowSeconds: 60 };

  /**
   * The service's limit enforced by the client's own shared budget, on a clock the test moves: a
   * report's wait for budget moves the clock instead of taking time. A neighbour on the same budget
   * (the bot's other background work) takes every slot as it frees, except that it leaves one to the
   * report once the report has waited 100 s, so each of the report's reads waits about two minutes.
   * `busyFrom` says whether the neighbour is at work from the start or only from the first balance read.
   */
  async function busyBudget(
    {
      sandbox,
      connect,
    }: {
      sandbox: Sandbox;
      connect: (o?: Partial<CngnClientOptions>) => Promise<SandboxClient>;
    },
    options: {
      moneyMoves: boolean;
      busyFrom: 'start' | 'balance';
      /** Told each time the report waits for budget, once the clock has moved. */
      waited?: () => void;
    },
  ) {
    let clock = NOW + MINUTE;
    const { client, store } = await connect({
      rateLimit: RATE,
      limiter: { now: () => clock },
    });
    const neighbour = new SharedRateLimiter({
      store,
      keyId: keyId(sandbox.apiKey),
      rateLimit: RATE,
      now: () => clock,
    });
    let busy = options.busyFrom === 'start';
    let servedAt = clock;
    const takeWhatFrees = async () => {
      if (!busy || clock - servedAt >= 100_000) return;
      for (;;) {
        const slot = await neighbour.acquire('background').catch((error: unknown) => {
          if (error instanceof RateBudgetError) return undefined;
          throw error;
        });
        if (!slot) return;
        await slot.release();
      }
    };
    const base = options.moneyMoves
      ? depositsBeforeBalance({ sandbox, client }, Number.POSITIVE_INFINITY)
      : client;
    const reading = Object.create(base) as CngnClient;
    reading.getTransactions = async (o) => {
      const page = await base.getTransactions(o);
      servedAt = clock;
      await takeWhatFrees();
      return page;
    };
    reading.getBalanceWithTime = async (o) => {
      const balance = await base.getBalanceWithTime(o);
      servedAt = clock;
      busy = true;
      await takeWhatFrees();
      return balance;
    };
    const parts = reportDeps({
      client: reading,
      store,
      repository: new ApprovalRepository(store, 'sandbox'),
      keyId: 'test-key',
      now: () => new Date(clock),
      pageSize: 2,
      maxWaitMs: 3 * MINUTE,
      sleep: async (ms) => {
        clock += ms;
        options.waited?.();
        await takeWhatFrees();
      },
    });
    return { parts, now: () => clock };
  }

  test('delivers by the deadline what it read, said to be cut short and unconfirmed', async ({
    sandbox,
    connect,
  }) => {
    const { parts, now } = await busyBudget({ sandbox, connect }, { moneyMoves: true, busyFrom: 'start' });
    const deadline = now() + 5 * MINUTE;
    const report = await buildReport(lastDays(30, new Date(now())), parts, { deadline });

    expect(now()).toBeLessThanOrEqual(deadline);
    expect(report.treasury).toMatchObject({ interrupted: true, snapshotUnconfirmed: true });
    const text = notes(report);
    expect(text).toContain('cut short to keep within its request budget');
    expect(text).toContain('could not be confirmed as of one moment');
  });

  test('stops checking at the deadline when money keeps moving, rather than run past it', async ({
    sandbox,
    connect,
  }) => {
    const { parts, now } = await busyBudget({ sandbox, connect }, { moneyMoves: true, busyFrom: 'balance' });
    // What the scheduled report's 10-minute build allows its reads.
    const deadline = now() + 9 * MINUTE;
    const report = await buildReport(lastDays(30, new Date(now())), parts, { deadline });

    expect(now()).toBeLessThanOrEqual(deadline);
    expect(report.treasury.interrupted).toBeUndefined();
    expect(report.treasury.snapshotUnconfirmed).toBe(true);
    expect(notes(report)).toContain('could not be confirmed as of one moment');
  });

  test('reads in full and confirms when the busy budget leaves time enough', async ({ sandbox, connect }) => {
    const { parts, now } = await busyBudget({ sandbox, connect }, { moneyMoves: false, busyFrom: 'balance' });
    const deadline = now() + 9 * MINUTE;
    const report = await buildReport(lastDays(30, new Date(now())), parts, { deadline });

    expect(now()).toBeLessThanOrEqual(deadline);
    expect(report.treasury.interrupted).toBeUndefined();
    expect(report.treasury.snapshotUnconfirmed).toBeUndefined();
    expectConsistent(sandbox, report);
  });

  test('makes no further read of the service once the build is cut, even when the budget frees', async ({
    sandbox,
    connect,
  }) => {
    const cut = new AbortController();
    const reads = () => sandbox.requests.filter((r) => r.method === 'GET').length;
    let readsAtCut: number | undefined;
    const { parts, now } = await busyBudget(
      { sandbox, connect },
      {
        moneyMoves: false,
        busyFrom: 'start',
        // The cut fires while the report waits for budget the first time; the wait then ends as usual.
        waited: () => {
          readsAtCut ??= reads();
          cut.abort(new Error('the report took too long'));
        },
      },
    );
    const build = buildReport(lastDays(30, new Date(now())), parts, {
      deadline: now() + 9 * MINUTE,
      signal: cut.signal,
    });

    await expect(build).rejects.toThrow('the report took too long');
    expect(readsAtCut).toBeGreaterThan(0);
    expect(reads()).toBe(readsAtCut);
  });
});

describe('a report of amounts written past the kobo place', () => {
  /** The newest completed seeded transactions, `count` of them (all within the week). */
  const completed = (sandbox: Sandbox, count: number) =>
    sandbox
      .transactions()
      .filter((tx) => tx.status === 'completed')
      .slice(0, count);

  test('reads zeros past the kobo place exactly: the figures are those of the plain amounts', async ({
    sandbox,
    client,
    store,
    quietReport,
  }) => {
    const quiet = await quietReport();
    for (const tx of completed(sandbox, 2))
      sandbox.misstateAmount(tx.trx_ref, `${Money.fromService(tx.amount).toString()}0000`);
    const report = await buildReport(WEEK, partsFor(client, store, BOT_NOW));

    expect(report.treasury.opening).toBe(quiet.treasury.opening);
    expect(report.treasury.inflows).toEqual(quiet.treasury.inflows);
    expect(report.treasury.outflows).toEqual(quiet.treasury.outflows);
    expect(report.treasury.movements).toHaveLength(quiet.treasury.movements.length);
    expect(report.treasury.unreadable).toBeUndefined();
    expect(notes(report)).not.toContain('could not be read');
  });

  test('names an amount it cannot read exactly, and keeps its transaction in the list', async ({
    sandbox,
    client,
    store,
  }) => {
    const [odd] = completed(sandbox, 1);
    if (!odd) throw new Error('no completed transaction seeded');
    sandbox.misstateAmount(odd.trx_ref, '100.505');
    const report = await buildReport(WEEK, partsFor(client, store, BOT_NOW));

    expect(report.treasury.unreadable?.map((m) => [m.reference, m.unreadableAmount])).toEqual([
      [odd.trx_ref, '100.505'],
    ]);
    const listed = report.treasury.movements.find((m) => m.reference === odd.trx_ref);
    expect(listed).toMatchObject({ amount: '0.00', unreadableAmount: '100.505' });
    expect(report.treasury.largest.map((m) => m.reference)).not.toContain(odd.trx_ref);
    expect(notes(report)).toContain(
      `:warning: 1 transaction with amounts that could not be read: \`${odd.trx_ref}\` (\\"100.505\\")`,
    );
  });
});
