// The audit log of one service environment as a hash chain in the store: appends take the log's lock
// (shared by every replica), read the last entry, link the new one to it and move the head record by
// compare-and-set, so two replicas appending at once never fork the chain, even past a lapsed lock.
// Entries without a hash (the legacy layout) are sealed by the first chained entry.
//
// Retention never truncates silently: only entries older than the retention AND inside an earlier
// export are removed, oldest first. The shorter log is written as a new generation that starts with a
// cut marker (the last removed entry's seq and hash) and ends with a chained entry recording the cut,
// then the generation pointer moves and the old list is deleted: a crash part-way leaves the old log.
import type { Store } from '../store/index.js';
import {
  type ChainHead,
  type ChainReport,
  chainEntry,
  entryHash,
  isCutMarker,
  sealOf,
  verifyChain,
} from './audit-chain.js';
import type { ServiceEnvironment } from './ports.js';
import type { AuditEntry } from './types.js';

/** The log's first generation (the key it always had); a retention cut moves it to the next one. */
export const auditListKey = (environment: ServiceEnvironment) => `approvals:audit:${environment}`;
const generationList = (environment: ServiceEnvironment, generation: number) =>
  generation === 0 ? auditListKey(environment) : `${auditListKey(environment)}:g${generation}`;
const generationKey = (environment: ServiceEnvironment) => `approvals:audit-generation:${environment}`;
const headKey = (environment: ServiceEnvironment) => `approvals:audit-head:${environment}`;
const lockName = (environment: ServiceEnvironment) => `approvals:audit:${environment}`;
// Every step of every request appends here, and a step is not taken until its entry is written: under
// a burst, waiting longer beats failing the step.
const LOCK = { waitMs: 60_000 };
/** Appends refused in a row (another appender moved the head each time) before giving up. */
const MAX_APPEND_ATTEMPTS = 50;

export type AuditDraft = Omit<AuditEntry, 'seq' | 'prev' | 'hash' | 'environment'>;

export class AuditLog {
  constructor(private readonly store: Store) {}

  /**
   * Append one entry to the environment's chain; returns it as stored. The lock keeps appends one at a
   * time, but a lock can lapse (a stalled holder), so the head moves only by compare-and-set from the
   * head the entry was chained onto: of two appends chained onto the same entry one is refused and
   * chains again onto the fresh head. The head carries its entry until the list holds it, and an
   * append first puts a head's entry that its writer left out into the list: the list never runs
   * ahead of, or forks from, the head. Two appenders may both put that entry in; the copy is dropped
   * on read.
   */
  append(environment: ServiceEnvironment, draft: AuditDraft): Promise<AuditEntry> {
    return this.store.withLock(
      lockName(environment),
      async () => {
        for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
          const head = await this.store.get<ChainHead>(headKey(environment));
          const list = generationList(environment, await this.generation(environment));
          const [last] = await this.store.readList<AuditEntry>(list, -1, -1);
          let previous = last;
          let sealed: AuditEntry[] = [];
          if (last && !last.hash) {
            // Written by an older version: seal them all, or, when a chain exists before them, go on from it.
            const all = await this.store.readList<AuditEntry>(list, 0, -1);
            previous = all.findLast((entry) => entry.hash);
            sealed = previous ? [] : all;
          }
          const behind = head?.entry && previous?.hash !== head.hash && (previous?.seq ?? -1) < head.seq;
          if (behind && head.entry) {
            // The head's writer stopped between moving the head and appending its entry: append it.
            await this.store.appendToList(list, head.entry);
            continue;
          }
          const entry = chainEntry({ ...draft, environment }, previous, sealed);
          const next: ChainHead = { seq: entry.seq ?? 0, hash: entry.hash ?? '', entry };
          if (!(await this.store.compareAndSet<ChainHead>(headKey(environment), head, next))) continue;
          const [now] = await this.store.readList<AuditEntry>(list, -1, -1);
          if (now?.hash !== entry.hash) await this.store.appendToList(list, entry);
          return entry;
        }
        throw new Error(
          `the audit head of ${environment} kept moving: ${MAX_APPEND_ATTEMPTS} appends refused`,
        );
      },
      LOCK,
    );
  }

  /** Every entry, oldest first. */
  entries(environment: ServiceEnvironment): Promise<AuditEntry[]> {
    return this.read(environment, (list) => this.store.readList<AuditEntry>(list, 0, -1));
  }

  /** The newest `count` entries, oldest first. */
  latest(environment: ServiceEnvironment, count: number): Promise<AuditEntry[]> {
    return this.read(environment, (list) => this.store.readList<AuditEntry>(list, -count, -1));
  }

  /**
   * Walk the chain. The head is read before the entries: an append in between only makes the log
   * longer than its head, never shorter.
   */
  async verify(environment: ServiceEnvironment): Promise<ChainReport> {
    const head = await this.store.get<ChainHead>(headKey(environment));
    return verifyChain(await this.entries(environment), head);
  }

  /**
   * Remove the oldest entries written before `olderThan` that an export already held, and record the
   * cut. Returns how many were removed (0: nothing old enough was exported, or nothing is old enough).
   */
  cut(environment: ServiceEnvironment, olderThan: Date, now: Date): Promise<number> {
    return this.store.withLock(
      lockName(environment),
      async () => {
        const generation = await this.generation(environment);
        const entries = await this.store.readList<AuditEntry>(generationList(environment, generation), 0, -1);
        const earlier = entries[0] && isCutMarker(entries[0]) ? entries[0] : undefined;
        const start = earlier ? 1 : 0;
        const exports = entries.filter((e) => e.kind === 'audit' && e.action === 'exported' && e.exported);
        let end = start;
        while (end < entries.length) {
          const entry = entries[end] as AuditEntry;
          if (Date.parse(entry.at) >= olderThan.getTime() || !exports.some((x) => heldBy(entry, x))) break;
          end += 1;
        }
        const unchained = entries.slice(start).findIndex((e) => e.hash);
        const legacy = unchained === -1 ? entries.length - start : unchained;
        // Entries of an older version are sealed together: they go all at once or not at all.
        if (legacy > 0 && end - start < legacy) return 0;
        const removed = entries.slice(start, end);
        const lastRemoved = removed.at(-1);
        const tail = entries.findLast((e) => e.hash && !isCutMarker(e));
        if (!lastRemoved || !tail) return 0;
        const cut = {
          seq: lastRemoved.seq ?? -1,
          hash: lastRemoved.hash ?? sealOf(removed),
          count: removed.length + (earlier?.cut?.count ?? 0),
        };
        const note = `${removed.length} entries before ${olderThan.toISOString()} removed, every one held by an export`;
        const draft = {
          at: now.toISOString(),
          kind: 'audit' as const,
          action: 'cut',
          environment,
          cut,
          note,
        };
        const marker: AuditEntry = { ...draft, hash: entryHash(draft) };
        const record = chainEntry(draft, tail);
        const next = generationList(environment, generation + 1);
        await this.store.deleteList(next); // what a crash part-way through an earlier cut left
        for (const entry of [marker, ...entries.slice(end), record])
          await this.store.appendToList(next, entry);
        await this.store.set(generationKey(environment), generation + 1);
        await this.store.set<ChainHead>(headKey(environment), {
          seq: record.seq ?? 0,
          hash: record.hash ?? '',
        });
        await this.store.deleteList(generationList(environment, generation));
        return removed.length;
      },
      LOCK,
    );
  }

  private async generation(environment: ServiceEnvironment): Promise<number> {
    return (await this.store.get<number>(generationKey(environment))) ?? 0;
  }

  /** Read the current generation; read again if a cut moved it meanwhile (its old list is deleted). */
  private async read(environment: ServiceEnvironment, read: (list: string) => Promise<AuditEntry[]>) {
    for (;;) {
      const generation = await this.generation(environment);
      const entries = await read(generationList(environment, generation));
      if ((await this.generation(environment)) === generation) return withoutCopies(entries);
    }
  }
}

/** Whether an export held this entry: inside its time range, and already written when it was made. */
function heldBy(entry: AuditEntry, exportEntry: AuditEntry): boolean {
  const range = exportEntry.exported;
  const at = Date.parse(entry.at);
  if (!range || (range.from && !(at >= Date.parse(range.from))) || !(at < Date.parse(range.to))) return false;
  return entry.seq === undefined || entry.seq <= (range.lastSeq ?? -1);
}

/**
 * The list without an entry appended twice in a row (a head's entry put in by its writer and by the
 * next appender at once): the same hashed entry again adds nothing, so it is not a break.
 */
function withoutCopies(entries: AuditEntry[]): AuditEntry[] {
  return entries.filter((entry, i) => i === 0 || !entry.hash || entries[i - 1]?.hash !== entry.hash);
}
