// A treasury report from its parts: the book brought up to date and back to the period's start, the
// balance read now, the figures rebuilt from them, and the approval figures from the bot's records.
import type { CngnEnvironment } from '../format/environment.js';
import { type ApprovalRecords, approvalFigures } from './approval-figures.js';
import { treasuryFigures } from './figures.js';
import type { Movement, Report, ReportPeriod } from './types.js';

/** What buildReport reads, as ports: the real ones in the bot, the same real ones in tests. */
export interface ReportDeps {
  environment: CngnEnvironment;
  /** The cNGN custody balance now (canonical decimal), read at background priority. */
  balance(): Promise<string>;
  book: {
    read(from: Date): Promise<{ reachedAt?: string | undefined }>;
    movements(from: Date, to: Date): Promise<Movement[]>;
  };
  approvals: ApprovalRecords;
  now(): Date;
}

export async function buildReport(period: ReportPeriod, deps: ReportDeps): Promise<Report> {
  const coverage = await deps.book.read(period.from);
  const balance = await deps.balance();
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
  });
  return { period, treasury, approvals: await approvalFigures(period, deps.approvals) };
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
