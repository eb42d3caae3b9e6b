// A treasury report from its parts: the book brought up to date and back to the period's start, the
// balance read now, the figures rebuilt from them, and the approval figures from the bot's records.
// The book and the balance must describe one moment (see readSnapshot).
import { RateBudgetError } from '../cngn/errors.js';
import type { CngnEnvironment } from '../format/environment.js';
import { type ApprovalRecords, approvalFigures } from './approval-figures.js';
import { treasuryFigures } from './figures.js';
import type { BookCoverage } from './transaction-book.js';
import type { Movement, Report, ReportPeriod } from './types.js';

/** What buildReport reads, as ports: the real ones in the bot, the same real ones in tests. */
export interface ReportDeps {
  environment: CngnEnvironment;
  /** The cNGN custody balance now (canonical decimal), read from the service (never a cached copy). */
  balance(): Promise<string>;
  book: {
    read(from: Date): Promise<BookCoverage>;
    /** The list's first page now, to compare with a read's `top`. */
    readTop(): Promise<string>;
    movements(from: Date, to: Date): Promise<Movement[]>;
  };
  approvals: ApprovalRecords;
  now(): Date;
}

export async function buildReport(period: ReportPeriod, deps: ReportDeps): Promise<Report> {
  const { coverage, balance, settled } = await readSnapshot(period.from, deps);
  // Everything kept was listed before the balance was read, so all of it is in the balance; a day's
  // slack keeps a service clock ahead of ours from leaving one out.
  const until = new Date(deps.now().getTime() + 86_400_000);
  const kept = await deps.book.movements(period.from, until);
  const movements = await withKnownFees(kept, deps.approvals);
  const treasury = treasuryFigures({
    environment: deps.environment,
    period,
    balance,
    movements,
    reachedAt: coverage.reachedAt,
    interrupted: coverage.interrupted,
    snapshotUnconfirmed: !settled,
  });
  return { period, treasury, approvals: await approvalFigures(period, deps.approvals) };
}

/** How many times the book and the balance are read before the report says they may not agree. */
const SNAPSHOT_TRIES = 3;

/**
 * The book and the balance as of one moment. The balance is read after the book; the list's first
 * page is then read again: unchanged since the book's read, nothing moved in between, so the balance
 * holds exactly what the book holds. Changed, the book is brought up to date and the balance read again,
 * a bounded number of times. Each check costs one request of the service's budget.
 */
async function readSnapshot(from: Date, deps: ReportDeps) {
  let coverage = await deps.book.read(from);
  let balance = await deps.balance();
  for (let tries = 1; ; tries++) {
    const top = await unlessBusy(deps.book.readTop());
    if (top !== undefined && top === coverage.top) return { coverage, balance, settled: true };
    if (top === undefined || tries === SNAPSHOT_TRIES) return { coverage, balance, settled: false };
    const again = await unlessBusy(deps.book.read(from));
    const now = again && (await unlessBusy(deps.balance()));
    // No budget left to try again: the last figures stand, said to be unconfirmed.
    if (!again || now === undefined) return { coverage, balance, settled: false };
    coverage = again;
    balance = now;
  }
}

/** The answer, or undefined when the request budget stayed spent past the wait. */
async function unlessBusy<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof RateBudgetError) return undefined;
    throw error;
  }
}

/** A bridge the bot filed carries the fees it was quoted; the service's list shows none. */
async function withKnownFees(movements: Movement[], records: ApprovalRecords): Promise<Movement[]> {
  return Promise.all(
    movements.map(async (movement) => {
      if (movement.kind !== 'bridge' || movement.fee !== '0.00') return movement;
      const fee = await records.feeOf(movement.reference);
      return fee ? { ...movement, fee } : movement;
    }),
  );
}
