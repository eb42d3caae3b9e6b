// Approval figures from the bot's own records: the audit log holds every step of every request with
// its time, actor and the state after it, so what happened in a period is read from its newest end
// back to the period's start, and each approved request's filing time from the request itself.
// Every kind of request counts (money, whitelist, settlement, delegation, unfreeze): each went
// through the same maker-checker path.
import type { ApprovalRepository, ApprovalRequest } from '../approvals/index.js';
import type { AuditEntry } from '../audit/index.js';
import { Money } from '../format/money.js';
import { countable } from './movements.js';
import type { ApprovalFigures, ReportPeriod } from './types.js';

/** What the figures need from the bot's records (ApprovalRepository has it: see approvalRecords). */
export interface ApprovalRecords {
  /** The steps taken from `from` on, oldest first (at least those; older ones are ignored). */
  stepsSince(from: Date): Promise<AuditEntry[]>;
  request(id: string): Promise<ApprovalRequest | undefined>;
  /** Fees the bot knows of a service reference (a bridge's quote), as canonical decimal text. */
  feeOf(reference: string): Promise<string | undefined>;
}

const FIRST_READ = 500;

/** The repository as ApprovalRecords: the audit log read backwards in growing slices. */
export function approvalRecords(repository: ApprovalRepository): ApprovalRecords {
  return {
    async stepsSince(from) {
      for (let count = FIRST_READ; ; count *= 4) {
        const entries = await repository.auditLog.latest(repository.environment, count);
        const first = entries[0];
        if (entries.length < count || !first || Date.parse(first.at) < from.getTime()) {
          const effective = await repository.tookEffect(entries);
          return entries.filter((entry, i) => effective[i] && Date.parse(entry.at) >= from.getTime());
        }
      }
    },
    request: (id) => repository.get(id),
    async feeOf(reference) {
      const id = await repository.findIdByReference(reference);
      const request = id ? await repository.get(id) : undefined;
      const quote = request?.kind === 'bridge' ? request.display.quote : undefined;
      if (!quote) return undefined;
      const fees = [quote.networkFee, quote.bridgeFee].map(countable);
      if (fees.some((fee) => fee === undefined)) return undefined;
      return fees.reduce((total: Money, fee) => total.plus(fee as Money), Money.zero()).toString();
    },
  };
}

const APPROVING = new Set(['approved', 'approval-added']);

export async function approvalFigures(
  period: ReportPeriod,
  records: ApprovalRecords,
): Promise<ApprovalFigures> {
  const from = period.from.getTime();
  const to = period.to.getTime();
  const steps = (await records.stepsSince(period.from)).filter((entry) => {
    const at = Date.parse(entry.at);
    return entry.requestId && at >= from && at < to;
  });
  const requestsWith = (action: string) =>
    new Set(steps.filter((s) => s.action === action).map((s) => s.requestId as string));

  const perApprover = new Map<string, number>();
  for (const step of steps) {
    if (!APPROVING.has(step.action) || !step.actor) continue;
    perApprover.set(step.actor, (perApprover.get(step.actor) ?? 0) + 1);
  }

  // Filing to final approval, once per request: its last final approval in the period.
  const approvedAt = new Map<string, number>();
  for (const step of steps)
    if (step.action === 'approved') approvedAt.set(step.requestId as string, Date.parse(step.at));
  const durations: number[] = [];
  for (const [id, at] of approvedAt) {
    const request = await records.request(id);
    if (request) durations.push(Math.max(0, at - Date.parse(request.createdAt)));
  }
  durations.sort((a, b) => a - b);

  return {
    filed: requestsWith('filed').size,
    approved: approvedAt.size,
    rejected: requestsWith('rejected').size,
    expired: requestsWith('expired').size,
    ...(durations.length ? { medianMs: median(durations), slowestMs: durations.at(-1) } : {}),
    perApprover: [...perApprover]
      .map(([user, count]) => ({ user, count }))
      .sort((a, b) => b.count - a.count || a.user.localeCompare(b.user)),
  };
}

/** The middle value; for an even count, the mean of the two middle ones (rounded down to the ms). */
function median(sorted: readonly number[]): number {
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return Math.floor(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}
