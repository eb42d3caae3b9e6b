// The audit log of one service environment as a hash chain in the store: appends take the log's lock
// (shared by every replica), read the last entry, link the new one to it and write a head record, so
// two replicas appending at once never fork the chain. Entries written by an older version (no hash)
// are sealed by the first chained entry.
import type { CngnEnvironment } from '../cngn/api.js';
import type { Store } from '../store/index.js';
import { type ChainHead, type ChainReport, chainEntry, verifyChain } from './audit-chain.js';
import type { AuditEntry } from './types.js';

export const auditListKey = (environment: CngnEnvironment) => `approvals:audit:${environment}`;
const headKey = (environment: CngnEnvironment) => `approvals:audit-head:${environment}`;
const lockName = (environment: CngnEnvironment) => `approvals:audit:${environment}`;

export type AuditDraft = Omit<AuditEntry, 'seq' | 'prev' | 'hash' | 'environment'>;

export class AuditLog {
  constructor(private readonly store: Store) {}

  /** Append one entry to the environment's chain; returns it as stored. */
  append(environment: CngnEnvironment, draft: AuditDraft): Promise<AuditEntry> {
    return this.store.withLock(lockName(environment), async () => {
      const list = auditListKey(environment);
      const [last] = await this.store.readList<AuditEntry>(list, -1, -1);
      let previous = last;
      let sealed: AuditEntry[] = [];
      if (last && !last.hash) {
        // Written by an older version: seal them all, or, when a chain exists before them, go on from it.
        const all = await this.store.readList<AuditEntry>(list, 0, -1);
        previous = all.findLast((entry) => entry.hash);
        sealed = previous ? [] : all;
      }
      const entry = chainEntry({ ...draft, environment }, previous, sealed);
      await this.store.appendToList(list, entry);
      await this.store.set<ChainHead>(headKey(environment), { seq: entry.seq ?? 0, hash: entry.hash ?? '' });
      return entry;
    });
  }

  /** Every entry, oldest first. */
  entries(environment: CngnEnvironment): Promise<AuditEntry[]> {
    return this.store.readList<AuditEntry>(auditListKey(environment), 0, -1);
  }

  /** The newest `count` entries, oldest first. */
  latest(environment: CngnEnvironment, count: number): Promise<AuditEntry[]> {
    return this.store.readList<AuditEntry>(auditListKey(environment), -count, -1);
  }

  /**
   * Walk the chain. The head is read before the entries: an append in between only makes the log
   * longer than its head, never shorter.
   */
  async verify(environment: CngnEnvironment): Promise<ChainReport> {
    const head = await this.store.get<ChainHead>(headKey(environment));
    return verifyChain(await this.entries(environment), head);
  }
}
