// The audit log of one service environment as a hash chain in the store: appends take the log's lock
// (shared by every replica), read the last entry, link the new one to it and move the head record by
// compare-and-set, so two replicas appending at once never fork the chain, even past a lapsed lock.
// Entries without a hash (the legacy layout) are sealed by the first chained entry.
//
// With the audit signing key, each head is signed as it moves, and an append first checks the head it
// extends: one that is not this key's, or is behind this process's mark, is recorded in the chain (a
// `head-unverified` entry) before anything is linked to it, so a signature over a tampered chain can
// never hide the tampering. So is a list holding entries the signed head does not cover: the bot moves
// the head before it writes the entry, so those were put there by someone else (an `entries-past-head`
// finding, recorded before the append links anything to them).
//
// An entry's actor is named as of the step (name and e-mail from the directory, see audit/actors.ts)
// before the entry is hashed.
//
// Retention never truncates silently: only entries older than the retention AND held by a verified
// archive segment are removed, oldest first, stopping at a revocation of a delegation not yet ended
// (verified-read.ts). The shorter log is written as a new generation that starts with a cut marker (the
// last removed entry's seq and hash) and ends with a chained entry recording the cut; then the head
// moves to that entry, naming the new generation, then the generation pointer moves and the old list is
// deleted. A crash before the head moved leaves the old log whole; after it, the next read or append
// finishes the switch, so the current list is never ahead of the signed head.

import { crashPoint } from '../crash-points.js';
import type { Store } from '../store/index.js';
import { type ActorLookup, withActorDetails } from './actors.js';
import { type ChainHead, type ChainReport, chainEntry, entryHash, verifyChain } from './chain.js';
import {
  editedEntryProblem,
  endsAtHead,
  foreignEntryProblem,
  forkedPastMark,
  HOLDS_WINDOW,
  headAhead,
  lastPastHead,
  pastHeadProblem,
  unverifiedHeadDraft,
  withoutCopies,
} from './chain-end.js';
import { headText, signatureHolds } from './crypto.js';
import { cutPlan } from './cut-plan.js';
import { mendCutFork } from './fork.js';
import { listHolds } from './list-holds.js';
import { type AuditSeal, type HeadProblem, headProblem } from './signing.js';
import type { AuditEntry, ServiceEnvironment } from './types.js';

/** The log's first generation (the key it always had); a retention cut moves it to the next one. */
export const auditListKey = (environment: ServiceEnvironment) => `approvals:audit:${environment}`;
const generationList = (environment: ServiceEnvironment, generation: number) =>
  generation === 0 ? auditListKey(environment) : `${auditListKey(environment)}:g${generation}`;
const generationKey = (environment: ServiceEnvironment) => `approvals:audit-generation:${environment}`;
/** The head record: the newest entry's seq and hash, signed when there is a key. */
export const auditHeadKey = (environment: ServiceEnvironment) => `approvals:audit-head:${environment}`;
const headKey = auditHeadKey;
const lockName = (environment: ServiceEnvironment) => `approvals:audit:${environment}`;
// Every step of every request appends here, and a step is not taken until its entry is written: under
// a burst, waiting longer beats failing the step.
const LOCK = { waitMs: 60_000 };
/** Appends refused in a row (another appender moved the head each time) before giving up. */
const MAX_APPEND_ATTEMPTS = 50;

export type AuditDraft = Omit<AuditEntry, 'seq' | 'prev' | 'hash' | 'environment'>;

export { HEAD_UNVERIFIED } from './chain-end.js';

/**
 * Told when an append found the head it extends unverified, or entries past it, after the finding is
 * in the chain.
 */
export type IncidentListener = (
  environment: ServiceEnvironment,
  problem: HeadProblem,
  entry: AuditEntry,
) => void;

export class AuditLog {
  private seal: AuditSeal | undefined;
  private actors: ActorLookup | undefined;
  private readonly incidentListeners: IncidentListener[] = [];

  constructor(private readonly store: Store) {}

  /** Sign each head from now on, and check the head before extending it (see the file's comment). */
  signWith(seal: AuditSeal): void {
    this.seal = seal;
  }

  /** Name each entry's actor from this directory from now on (see audit/actors.ts). */
  describeActorsWith(lookup: ActorLookup): void {
    this.actors = lookup;
  }

  /** The draft with its actor's name and e-mail as the directory gives them now (bounded in time). */
  describe(draft: AuditDraft): Promise<AuditDraft> {
    return withActorDetails(draft, this.actors);
  }

  onIncident(listener: IncidentListener): void {
    this.incidentListeners.push(listener);
  }

  /** The head record as stored (the newest entry's seq and hash, and its signature). */
  head(environment: ServiceEnvironment): Promise<ChainHead | undefined> {
    return this.store.get<ChainHead>(headKey(environment));
  }

  /**
   * Append one entry to the environment's chain; returns it as stored. The lock keeps appends one at a
   * time, but a lock can lapse (a stalled holder), so the head moves only by compare-and-set from the
   * head the entry was chained onto: of two appends chained onto the same entry one is refused and
   * chains again onto the fresh head. The head carries its entry until the list holds it, and an
   * append first puts a head's entry that its writer left out into the list: the list never runs
   * ahead of, or forks from, the head. Two appenders may both put that entry in; the copy is dropped
   * on read. `described`: the draft went through describe() already, so its actor is not looked up again.
   */
  async append(
    environment: ServiceEnvironment,
    draft: AuditDraft,
    options: { described?: boolean } = {},
  ): Promise<AuditEntry> {
    const named = this.actors && !options.described ? await this.describe(draft) : draft;
    return this.appendNamed(environment, named);
  }

  private appendNamed(environment: ServiceEnvironment, draft: AuditDraft): Promise<AuditEntry> {
    return this.store.withLock(lockName(environment), () => this.appendLocked(environment, draft), LOCK);
  }

  private async appendLocked(environment: ServiceEnvironment, draft: AuditDraft): Promise<AuditEntry> {
    // The finding about an unverified head goes in first, then the entry asked for.
    const state: AppendState = { draft, pending: [draft], found: undefined };
    for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
      const entry = await this.appendAttempt(environment, state);
      if (entry) return entry;
    }
    throw new Error(`the audit head of ${environment} kept moving: ${MAX_APPEND_ATTEMPTS} appends refused`);
  }

  /**
   * One try at moving the head onto the next pending draft: the entry when the draft asked for is in
   * the chain, undefined to try again (the head moved meanwhile, or a finding went in first).
   */
  private async appendAttempt(
    environment: ServiceEnvironment,
    state: AppendState,
  ): Promise<AuditEntry | undefined> {
    const { head, list, previous: last, sealed } = await this.chainEnd(environment);
    let previous = last;
    if (headAhead(head, previous)) {
      // The head's writer stopped between moving the head and appending its entry: append it, unless
      // the list holds it already, an older entry put in again after it: the chain goes on from it.
      if (!(await listHolds(this.store, list, head.entry, this.headSeq(environment)))) {
        await this.store.appendToList(list, head.entry);
        return undefined;
      }
      previous = head.entry;
    }
    if (this.seal && !state.found) {
      const found = await this.headFinding(environment, head, list, previous);
      if (found === 'moved') return undefined;
      this.findingFirst(environment, state, found, head, previous);
    }
    const entry = chainEntry({ ...(state.pending[0] as AuditDraft), environment }, previous, sealed);
    const next = this.signed(environment, { seq: entry.seq ?? 0, hash: entry.hash ?? '', entry });
    if (!(await this.store.compareAndSet<ChainHead>(headKey(environment), head, next))) return undefined;
    // The list holds it too, unless another appender put it in (list-holds.ts); an appender past a lapsed
    // lock stalling between check and write puts it in again later: reads drop that copy (withoutCopies).
    if (!(await listHolds(this.store, list, entry, this.headSeq(environment))))
      await this.store.appendToList(list, entry);
    if (state.pending.length > 1 && state.found) {
      // The finding is in the chain: the mark follows the chain as it now is.
      this.seal?.marks.reset(environment, next, new Date(entry.at));
      for (const listener of this.incidentListeners) listener(environment, state.found, entry);
      state.pending = state.pending.slice(1);
      return undefined;
    }
    this.seal?.marks.raise(environment, next, new Date(entry.at));
    return entry;
  }

  /** Reads the seq the head of `environment` is at now (see list-holds.ts). */
  private headSeq(environment: ServiceEnvironment): () => Promise<number | undefined> {
    return async () => (await this.store.get<ChainHead>(headKey(environment)))?.seq;
  }

  /**
   * A finding goes into the chain before the draft asked for; with no entry to link it to, it records
   * the mark (unverifiedHeadDraft).
   */
  private findingFirst(
    environment: ServiceEnvironment,
    state: AppendState,
    found: HeadProblem | undefined,
    head: ChainHead | undefined,
    previous: AuditEntry | undefined,
  ): void {
    state.found = found;
    if (!found) return;
    const mark = previous?.hash ? undefined : this.seal?.marks.get(environment);
    state.pending = [unverifiedHeadDraft(found, head, state.draft.at, mark), state.draft];
  }

  /** What an append finds wrong with the head it extends (see the file's comment), or undefined. */
  private async headFinding(
    environment: ServiceEnvironment,
    head: ChainHead | undefined,
    list: string,
    previous: AuditEntry | undefined,
  ): Promise<HeadProblem | 'moved' | undefined> {
    const seal = this.seal;
    const found =
      (seal && headProblem(seal, environment, head)) ??
      (head && foreignEntryProblem(head)) ??
      editedEntryProblem(previous);
    return (
      found ??
      (await this.pastHead(environment, head, list, previous)) ??
      (await this.pastMark(environment, head, list))
    );
  }

  /** A head past the mark on a chain that no longer holds the mark's entry (see forkedPastMark). */
  private async pastMark(
    environment: ServiceEnvironment,
    head: ChainHead | undefined,
    list: string,
  ): Promise<HeadProblem | undefined> {
    const mark = this.seal?.marks.get(environment);
    if (!head || !mark || head.seq <= mark.seq) return undefined;
    // The list's end back to the mark's seq (the entries since, as another replica appended them),
    // not the whole list at every replica's first append after another's; the whole list only when
    // that end does not reach back as far as the mark.
    const window = head.seq - mark.seq + HOLDS_WINDOW;
    const end = await this.store.readList<AuditEntry>(list, -window, -1);
    const reaches = end.length < window || end.some((e) => e.seq !== undefined && e.seq <= mark.seq);
    return forkedPastMark(head, mark, reaches ? end : await this.store.readList<AuditEntry>(list, 0, -1));
  }

  /**
   * The entries past a head this key signed (see chain-end.ts), or undefined; `moved` when the head
   * moved while the list was read (another appender past a lapsed lock wrote them: read again).
   */
  private async pastHead(
    environment: ServiceEnvironment,
    head: ChainHead | undefined,
    list: string,
    previous: AuditEntry | undefined,
  ): Promise<HeadProblem | 'moved' | undefined> {
    if (!head?.signature || !previous?.hash || !lastPastHead(head, previous)) return undefined;
    // The head never comes back to an entry once it left it: the same head read after the list means
    // nobody moved it meanwhile, so nobody appending through it wrote what lies past it.
    const now = await this.store.get<ChainHead>(headKey(environment));
    if (now?.seq !== head.seq || now.hash !== head.hash) return 'moved';
    return pastHeadProblem(head, await this.store.readList<AuditEntry>(list, 0, -1));
  }

  /**
   * The end of the chain as an append finds it: the head, the generation's list, the entry to chain
   * onto, and the entries an older version wrote without hashes (sealed by the append when no chain
   * exists before them; otherwise the append goes on from the last hashed one).
   */
  private async chainEnd(environment: ServiceEnvironment): Promise<{
    head: ChainHead | undefined;
    list: string;
    previous: AuditEntry | undefined;
    sealed: AuditEntry[];
  }> {
    const head = await this.store.get<ChainHead>(headKey(environment));
    const list = generationList(environment, await this.current(environment, head));
    const [last] = await this.store.readList<AuditEntry>(list, -1, -1);
    if (!last || last.hash) return { head, list, previous: last, sealed: [] };
    const all = await this.store.readList<AuditEntry>(list, 0, -1);
    const previous = all.findLast((entry) => entry.hash);
    return { head, list, previous, sealed: previous ? [] : all };
  }

  /**
   * Whether a cut or a repair may rewrite the log under `head`: the head verifies (this key's, at or
   * past the mark, carrying no other entry) and the list ends at its entry. Entries past it are left to
   * the next append to record; a head ahead of the list (an append stopped part-way), to it to finish.
   */
  private rewritable(environment: ServiceEnvironment, head: ChainHead | undefined, entries: AuditEntry[]) {
    if (!head || !endsAtHead(head, entries) || foreignEntryProblem(head)) return false;
    return !this.seal || !headProblem(this.seal, environment, head);
  }

  /** Every entry, oldest first. */
  async entries(environment: ServiceEnvironment): Promise<AuditEntry[]> {
    return withoutCopies(await this.read(environment, 0));
  }

  /** The newest `count` entries, oldest first: a copy left out is made up for from further back. */
  async latest(environment: ServiceEnvironment, count: number): Promise<AuditEntry[]> {
    for (let want = count; ; want += count) {
      const listed = await this.read(environment, -want);
      const entries = withoutCopies(listed);
      if (entries.length >= count || listed.length < want) return entries.slice(-count);
    }
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
   * Remove the oldest entries written before `olderThan` that `archived` says a verified archive segment
   * holds, and record the cut. Returns how many were removed (0: nothing old enough was archived, or
   * nothing is old enough).
   */
  cut(
    environment: ServiceEnvironment,
    olderThan: Date,
    now: Date,
    archived: (entry: AuditEntry) => boolean,
  ): Promise<number> {
    return this.store.withLock(
      lockName(environment),
      async () => {
        const read = await this.head(environment);
        const generation = await this.current(environment, read);
        // Without copies: one carried into the new generation past its first listing would break it.
        const list = generationList(environment, generation);
        const entries = withoutCopies(await this.store.readList<AuditEntry>(list, 0, -1));
        if (!this.rewritable(environment, read, entries)) return 0;
        const plan = cutPlan(entries, olderThan, archived, now);
        if (!plan) return 0;
        const { removed, end, cut, tail } = plan;
        const note = `${removed.length} entries before ${olderThan.toISOString()} removed, every one held by a verified archive segment`;
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
        await this.clearLeftovers(environment, generation);
        for (const entry of [marker, ...entries.slice(end), record])
          await this.store.appendToList(next, entry);
        crashPoint('audit-cut-written');
        // Head first: the current list is never ahead of the signed head, even after a crash here.
        const head = this.signed(environment, {
          seq: record.seq ?? 0,
          hash: record.hash ?? '',
          generation: generation + 1,
        });
        // From the head read: an append past a lapsed lock that moved it meanwhile makes the cut give up
        // (its unused list goes at the next cut).
        if (!(await this.store.compareAndSet<ChainHead>(headKey(environment), read, head))) return 0;
        crashPoint('audit-cut-headed');
        this.seal?.marks.raise(environment, head, now);
        await this.movePointer(environment, generation, generation + 1);
        crashPoint('audit-cut-switched');
        await this.store.deleteList(generationList(environment, generation));
        return removed.length;
      },
      LOCK,
    );
  }

  /**
   * Mend the fork an earlier retention cut could make, only when it is provably that fault
   * (audit/fork.ts), written as a cut is: a new generation, then the head (naming it) and the mark,
   * then the pointer.
   * Returns the entry that records it, or undefined when there was nothing to mend.
   */
  mendFork(
    environment: ServiceEnvironment,
    archived: { hashAt: (seq: number) => string | undefined; through: number },
    now: Date,
  ): Promise<AuditEntry | undefined> {
    return this.store.withLock(
      lockName(environment),
      async () => {
        const seal = this.seal;
        if (!seal) return undefined;
        const head = await this.store.get<ChainHead>(headKey(environment));
        const generation = await this.current(environment, head);
        const list = generationList(environment, generation);
        const entries = withoutCopies(await this.store.readList<AuditEntry>(list, 0, -1));
        if (!head || !this.rewritable(environment, head, entries)) return undefined;
        const holds =
          head?.signature?.key === seal.signer.publicKey &&
          signatureHolds(
            headText(environment, head.seq, head.hash),
            head.signature.value,
            head.signature.key,
          );
        const mended = mendCutFork(entries, head, holds, archived, now);
        if (!mended) return undefined;
        const next = generationList(environment, generation + 1);
        await this.clearLeftovers(environment, generation);
        for (const entry of mended.entries) await this.store.appendToList(next, entry);
        const signed = this.signed(environment, {
          seq: mended.last.seq ?? 0,
          hash: mended.last.hash ?? '',
          generation: generation + 1,
        });
        if (!(await this.store.compareAndSet<ChainHead>(headKey(environment), head, signed)))
          return undefined;
        seal.marks.reset(environment, signed, now);
        await this.movePointer(environment, generation, generation + 1);
        await this.store.deleteList(list);
        return mended.last;
      },
      LOCK,
    );
  }

  /**
   * Sign the head as it stands when nobody signed it yet and this process keeps no mark for it (the
   * chain was kept before it was signed): trust on first use, so call it only once the chain verified.
   * True when it was signed now.
   */
  adopt(environment: ServiceEnvironment, now: Date): Promise<boolean> {
    return this.store.withLock(
      lockName(environment),
      async () => {
        const seal = this.seal;
        const head = await this.store.get<ChainHead>(headKey(environment));
        if (!seal || !head || head.signature || seal.marks.get(environment)) return false;
        const signed = this.signed(environment, head);
        if (!(await this.store.compareAndSet<ChainHead>(headKey(environment), head, signed))) return false;
        seal.marks.raise(environment, signed, now);
        return true;
      },
      LOCK,
    );
  }

  /** The head, signed when there is a key. */
  private signed(environment: ServiceEnvironment, head: ChainHead): ChainHead {
    return this.seal ? this.seal.signer.signHead(environment, head) : head;
  }

  private async generation(environment: ServiceEnvironment): Promise<number> {
    return (await this.store.get<number>(generationKey(environment))) ?? 0;
  }

  /**
   * The log's generation: the pointer's, or the newer one `head` names when a cut or a repair moved
   * the head and stopped before the pointer (the switch is finished here: pointer, then the old list
   * deleted). A generation whose list does not end at the head's entry is no switch the bot left
   * half-done (the head was edited): the pointer's stands, and the check reports the head.
   */
  private async current(environment: ServiceEnvironment, head: ChainHead | undefined): Promise<number> {
    const pointer = await this.generation(environment);
    const target = head?.generation;
    if (target === undefined || target <= pointer) return pointer;
    const [last] = await this.store.readList<AuditEntry>(generationList(environment, target), -1, -1);
    if (last?.hash !== head?.hash) return pointer;
    if (!(await this.movePointer(environment, pointer, target))) return this.generation(environment);
    await this.store.deleteList(generationList(environment, pointer));
    return target;
  }

  /**
   * What a crash part-way through an earlier cut or repair left beside `generation`: its unused new
   * list, or (stopped after the pointer moved) its old one, which nothing reads again.
   */
  private async clearLeftovers(environment: ServiceEnvironment, generation: number): Promise<void> {
    await this.store.deleteList(generationList(environment, generation + 1));
    if (generation > 0) await this.store.deleteList(generationList(environment, generation - 1));
  }

  /** Move the generation pointer from `from` to `to`; false when it is no longer at `from`. */
  private async movePointer(environment: ServiceEnvironment, from: number, to: number): Promise<boolean> {
    const key = generationKey(environment);
    const stored = await this.store.get<number>(key);
    if ((stored ?? 0) !== from) return false;
    return this.store.compareAndSet<number>(key, stored, to);
  }

  /** The current generation's list (a switch the head names finished), again if a cut moved it meanwhile. */
  private async read(environment: ServiceEnvironment, from: number): Promise<AuditEntry[]> {
    for (;;) {
      const generation = await this.current(environment, await this.head(environment));
      const list = generationList(environment, generation);
      const entries = await this.store.readList<AuditEntry>(list, from, -1);
      if ((await this.generation(environment)) === generation) return entries;
    }
  }
}

/** An append under way: the draft asked for, what is still to go in before it, and a head finding. */
interface AppendState {
  draft: AuditDraft;
  pending: AuditDraft[];
  found: HeadProblem | undefined;
}
