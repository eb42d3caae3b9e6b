// A treasury report from its parts: the book brought up to date and back to the period's start, the
// balance read now, the figures rebuilt from them, and the approval figures from the bot's records.
// The book and the balance must describe one moment (see readSnapshot).
import { CngnErrorCode, cngnCallError } from '../cngn/errors.js';
import type { CngnEnvironment } from '../format/environment.js';
import { type ApprovalRecords, approvalFigures } from './approval-figures.js';
import { treasuryFiguresInTurns } from './figures.js';
import type { BookCoverage } from './transaction-book.js';
import type { BuildOptions, Movement, Report, ReportPeriod } from './types.js';

/** What buildReport reads, as ports: the real ones in the bot, the same real ones in tests. */
export interface ReportDeps {
  environment: CngnEnvironment;
  /**
   * The cNGN custody balance now (canonical decimal), read from the service (never a cached copy).
   * Each read waits for the request budget no later than `deadline` (epoch ms), nor longer than its
   * own limit; `signal` (the build's cut) ends a read, waiting or in flight, at once.
   */
  balance(deadline?: number, signal?: AbortSignal): Promise<string>;
  book: {
    read(from: Date, deadline?: number, signal?: AbortSignal): Promise<BookCoverage>;
    /** The list's first page now, to compare with a read's `top`. */
    readTop(deadline?: number, signal?: AbortSignal): Promise<string>;
    movements(from: Date, to: Date): Promise<Movement[]>;
  };
  approvals: ApprovalRecords;
  now(): Date;
  /**
   * The build's reads of the service are over, however they ended: what was kept for them (the thread
   * the list's pages are opened in) may go before the figures, the chart and the CSV are made.
   */
  readsDone?(): void;
}

/** How long a report's reads of the service may take, all told, unless the caller gives a deadline. */
export const READ_LIMIT_MS = 8 * 60_000;

/**
 * Kept of the read's time for the balance after the list (two of the service's one-minute windows),
 * so a list read that takes all the time it may still ends in figures.
 */
const BALANCE_RESERVE_MS = 2 * 60_000;

/** The reads' deadline for a build cut after `limitMs`: a tenth of it (a minute at most) kept for the rest. */
export function readDeadline(now: number, limitMs: number): number {
  return now + limitMs - Math.min(limitMs / 10, 60_000);
}

export async function buildReport(
  period: ReportPeriod,
  deps: ReportDeps,
  options: BuildOptions = {},
): Promise<Report> {
  const deadline = options.deadline ?? deps.now().getTime() + READ_LIMIT_MS;
  const { coverage, balance, settled } = await readSnapshot(
    period.from,
    deps,
    deadline,
    options.signal,
  ).finally(() => deps.readsDone?.());
  // Everything kept was listed before the balance was read, so all of it is in the balance; a day's
  // slack keeps a service clock ahead of ours from leaving one out.
  const until = new Date(deps.now().getTime() + 86_400_000);
  const kept = await deps.book.movements(period.from, until);
  const movements = await withKnownFees(kept, deps.approvals);
  const treasury = await treasuryFiguresInTurns({
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
 *
 * All of it is done by `deadline`, however busy the budget: the list's reads stop early enough to leave
 * time for the balance after them, and no further check or try starts once its time is gone. What was
 * read by then stands, said to be cut short (the list) or unconfirmed (the check). `signal` is the
 * build's cut: once it fires no further read is made and the build fails with its reason.
 */
async function readSnapshot(from: Date, deps: ReportDeps, deadline: number, signal?: AbortSignal) {
  const now = () => deps.now().getTime();
  // The list's reads end before the deadline by the balance's reserve (a third of the time at most).
  const listDeadline = deadline - Math.min(BALANCE_RESERVE_MS, Math.max(0, deadline - now()) / 3);
  let coverage = await deps.book.read(from, listDeadline, signal);
  let balance = await deps.balance(deadline, signal);
  for (let tries = 1; ; tries++) {
    if (now() >= deadline) return { coverage, balance, settled: false };
    const top = await unlessBusy(deps.book.readTop(deadline, signal));
    if (top !== undefined && top === coverage.top) return { coverage, balance, settled: true };
    if (top === undefined || tries === SNAPSHOT_TRIES) return { coverage, balance, settled: false };
    if (now() >= listDeadline) return { coverage, balance, settled: false };
    const again = await unlessBusy(deps.book.read(from, listDeadline, signal));
    const fresh = again && (await unlessBusy(deps.balance(deadline, signal)));
    // No budget left to try again: the last figures stand, said to be unconfirmed.
    if (!again || fresh === undefined) return { coverage, balance, settled: false };
    coverage = again;
    balance = fresh;
  }
}

/** The answer, or undefined when the request budget stayed spent past the wait. */
async function unlessBusy<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (cngnCallError(error)?.code === CngnErrorCode.RateBudget) return undefined;
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
