// What an append finds at the end of the chain, as pure functions: a head its writer moved but whose
// entry is not in the list yet (finished by the next append), entries the signed head does not cover
// (the bot moves the head before it writes the entry, so the list is never ahead of the head by its
// own hand: someone with write access to the store put them there), and the entry recording a finding.
import { type ChainHead, canonicalJson, entryHash } from './chain.js';
import { short } from './crypto.js';
import type { HeadMark, HeadProblem } from './signing.js';
import type { AuditEntry } from './types.js';

/** The action of the entry an append writes when the head it was to extend did not verify. */
export const HEAD_UNVERIFIED = 'head-unverified';

/** A draft of an entry, before it gets its place in the chain. */
type Draft = Omit<AuditEntry, 'seq' | 'prev' | 'hash' | 'environment'>;

/** The head is ahead of the list: its writer moved it, then stopped before appending its entry. */
export function headAhead(
  head: ChainHead | undefined,
  previous: AuditEntry | undefined,
): head is ChainHead & { entry: AuditEntry } {
  if (!head?.entry || !ownEntry(head)) return false;
  return previous?.hash !== head.hash && (previous?.seq ?? -1) < head.seq;
}

/**
 * Whether the entry the head carries is the one its signed seq and hash name (the entry is outside the
 * signature): one that is not is never appended, it is a finding.
 */
function ownEntry(head: ChainHead): boolean {
  const entry = head.entry;
  if (!entry) return true;
  return entry.seq === head.seq && entry.hash === head.hash && entryHash(entry) === entry.hash;
}

/** The finding about a head carrying an entry that is not the one it names. */
export function foreignEntryProblem(head: ChainHead): HeadProblem | undefined {
  if (ownEntry(head)) return undefined;
  return {
    kind: 'head-entry-foreign',
    text: `the head at seq ${head.seq} (hash ${short(head.hash)}) carries an entry at seq ${head.entry?.seq ?? 'none'} (hash ${short(head.entry?.hash ?? '')}) that is not the one it names: the head record was edited`,
  };
}

/** Whether `list` ends at the head's own entry: the last hashed entry is the one the head names. */
export function endsAtHead(head: ChainHead | undefined, list: AuditEntry[]): boolean {
  const tail = list.findLast((e) => e.hash !== undefined && e.seq !== undefined);
  return !!head && !!tail && tail.seq === head.seq && tail.hash === head.hash;
}

/** Entries from the end of the list an append looks through for its own (see list-holds.ts). */
export const HOLDS_WINDOW = 8;

/** The list's last chained entry is one the head does not cover: past its seq, or another at its seq. */
export function lastPastHead(head: ChainHead, last: AuditEntry): boolean {
  const seq = last.seq ?? -1;
  return seq > head.seq || (seq === head.seq && last.hash !== head.hash);
}

/** Most seqs a finding names one by one; the rest are counted. */
const NAMED = 10;

/**
 * The finding about the entries of `entries` that the signed `head` does not cover, or undefined when
 * there are none (a copy of the head's own entry is one of it).
 */
export function pastHeadProblem(head: ChainHead, entries: AuditEntry[]): HeadProblem | undefined {
  const seqs = [
    ...new Set(
      entries
        .filter((e) => e.hash !== undefined && e.seq !== undefined && lastPastHead(head, e))
        .map((e) => e.seq as number),
    ),
  ];
  if (seqs.length === 0) return undefined;
  const named = seqs.slice(0, NAMED).join(', ');
  const more = seqs.length > NAMED ? ` and ${seqs.length - NAMED} more` : '';
  return {
    kind: 'entries-past-head',
    text: `the log holds entries at seq ${named}${more} that the signed head at seq ${head.seq} (hash ${short(head.hash)}) does not cover: this bot signs the head before it writes an entry, so it did not write them`,
  };
}

/**
 * A head past the mark on another chain: the entries up to the head no longer hold the mark's entry
 * at the mark's seq (a rollback and fork signed on by a replica that did not hold the mark). No entry
 * at that seq is no problem when every entry listed is past it: retention cut it.
 */
export function forkedPastMark(
  head: ChainHead,
  mark: HeadMark,
  entries: readonly AuditEntry[],
): HeadProblem | undefined {
  const chain = entries.filter((e) => e.seq === undefined || e.seq <= head.seq);
  const entry = chain.findLast((e) => e.seq === mark.seq);
  if (!entry && chain.every((e) => e.seq === undefined || e.seq > mark.seq)) return undefined;
  if (entry && entry.hash === mark.hash && entryHash(entry) === mark.hash) return undefined;
  return {
    kind: 'head-replaced',
    text: `the head at seq ${head.seq} is on another chain: the entry at seq ${mark.seq} is not the one with hash ${short(mark.hash)} this bot signed or checked there`,
  };
}

/**
 * The finding about the entry an append links to: it no longer hashes to its own hash (the bot writes
 * every entry whole, so a crash never leaves one so: a store writer edited it).
 */
export function editedEntryProblem(previous: AuditEntry | undefined): HeadProblem | undefined {
  if (!previous?.hash || entryHash(previous) === previous.hash) return undefined;
  return {
    kind: 'entry-edited',
    text: `the entry at seq ${previous.seq ?? 'none'} no longer hashes to its hash ${short(previous.hash)}: it was edited`,
  };
}

/** How a finding with nothing to link to records the mark it was found under (markOf reads it). */
const MARKED = ' marked ';

/**
 * The entry recording that an append found the head it extends unverified (in numbers and hashes).
 * `mark`: given where there is no entry to link it to (the head and the list gone); the episode it
 * starts is then named by the mark's time, as the freeze read names it before the finding goes in.
 */
export function unverifiedHeadDraft(
  problem: HeadProblem,
  head: ChainHead | undefined,
  at: string,
  mark?: HeadMark | undefined,
): Draft {
  const found = head ? `seq ${head.seq} hash ${head.hash}` : 'no head';
  return {
    at,
    kind: 'audit',
    action: HEAD_UNVERIFIED,
    subject: mark ? `${found};${MARKED}seq ${mark.seq} hash ${mark.hash} at ${mark.at}` : found,
    note: `${problem.kind}: ${problem.text}. Recorded before the next entry was linked to it.`,
  };
}

/** The time of the mark a finding with nothing to link to records, or undefined. */
export function markedAt(finding: AuditEntry): string | undefined {
  const subject = finding.subject ?? '';
  const marked = subject.indexOf(MARKED);
  if (marked < 0) return undefined;
  const at = subject.slice(subject.lastIndexOf(' at ') + ' at '.length);
  return Number.isNaN(Date.parse(at)) ? undefined : at;
}

/**
 * The list without a later copy of an entry it already holds: a head's entry put in by its writer and
 * by the next appender at once, or by an appender past a lapsed lock that stalled between its check and
 * its write while others chained on (list-holds.ts). Only an exact copy goes, the same hash over the
 * same canonical text: the entry adds nothing at its second place. Anything else under a listed hash
 * stays where it is, for the chain check to find (an edit never hides behind the entry it copies).
 */
export function withoutCopies(entries: AuditEntry[]): AuditEntry[] {
  const listed = new Map<string, AuditEntry>();
  return entries.filter((entry) => {
    if (entry.hash === undefined) return true;
    const first = listed.get(entry.hash);
    if (!first) {
      listed.set(entry.hash, entry);
      return true;
    }
    return canonicalJson(first) !== canonicalJson(entry);
  });
}
