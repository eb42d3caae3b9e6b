// The report's ports made from the bot's real parts: the service client, the store and the approval
// repository. The wiring calls this once and hands buildReport the result.
import type { ApprovalRepository } from '../approvals/index.js';
import type { CngnClient } from '../cngn/client.js';
import { cngnEntry } from '../cngn/schemas.js';
import { Money } from '../format/money.js';
import type { Store } from '../store/index.js';
import { approvalRecords } from './approval-figures.js';
import { realSleep, whenBudgetAllows } from './budget-wait.js';
import type { ReportDeps } from './build.js';
import { TransactionBook } from './transaction-book.js';

export interface ReportPartsOptions {
  client: Pick<CngnClient, 'environment' | 'getTransactions' | 'getBalanceWithTime' | 'largeReadsDone'>;
  store: Store;
  repository: ApprovalRepository;
  /** Non-reversible id of the API key (cngn/credentials keyId): each key's transactions kept apart. */
  keyId: string;
  /** How long one read of a report may wait for the request budget (default 3 minutes); the report's deadline may end it sooner. */
  maxWaitMs?: number;
  pageSize?: number;
  now?: () => Date;
  /** How the read waits for budget (tests). */
  sleep?: (ms: number) => Promise<void>;
}

export function reportDeps(options: ReportPartsOptions): ReportDeps & { book: TransactionBook } {
  const now = options.now ?? (() => new Date());
  const { client } = options;
  const maxWaitMs = options.maxWaitMs ?? 180_000;
  const sleep = options.sleep ?? realSleep;
  const book = new TransactionBook({
    store: options.store,
    source: client,
    scope: `${client.environment}:${options.keyId}`,
    maxWaitMs,
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    now: () => now().getTime(),
    sleep,
  });
  return {
    environment: client.environment,
    balance: async (deadline, signal) => {
      // Fresh: a copy cached before the book's read would leave out what the book holds.
      const read = () => client.getBalanceWithTime({ priority: 'report', fresh: true, signal });
      const until = Math.min(now().getTime() + maxWaitMs, deadline ?? Number.POSITIVE_INFINITY);
      const patience = { deadline: until, now: () => now().getTime(), sleep, signal };
      const { entries } = await whenBudgetAllows(read, patience);
      // The cNGN entry, as /cngn balance and the approval checks read it; none listed reads as zero.
      const entry = cngnEntry(entries);
      return entry ? Money.fromService(entry.balance).toString() : '0.00';
    },
    book,
    readsDone: () => client.largeReadsDone(),
    approvals: approvalRecords(options.repository),
    now,
  };
}
