// The audit log's hash chain, as pure functions: each entry carries its place (`seq`), the SHA-256 of
// the entry before it (`prev`) and its own (`hash`), over a canonical serialisation (keys sorted at every
// level), so anyone re-reading the log gets the same hashes. Verification names the first broken link.
import { createHash } from 'node:crypto';
import type { AuditEntry } from './types.js';

/** `prev` of the first entry when nothing came before it. */
export const GENESIS = '0'.repeat(64);

/** JSON with object keys sorted at every level and undefined fields left out: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a finite number');
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  const fields = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`);
  return `{${fields.join(',')}}`;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The hash an entry must carry: over everything in it except the hash itself. */
export function entryHash(entry: AuditEntry): string {
  const { hash: _hash, ...rest } = entry;
  return sha256(canonicalJson(rest));
}

/**
 * Entries written before the chain existed (no hash) are sealed by the first chained entry: its `prev`
 * is the hash of all of them, so they cannot change unnoticed from then on either.
 */
export function sealOf(unchained: AuditEntry[]): string {
  return unchained.length === 0 ? GENESIS : sha256(canonicalJson(unchained));
}

/** The next entry of the chain whose last entry is `last` (undefined: the chain starts here). */
export function chainEntry(
  draft: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>,
  last: AuditEntry | undefined,
  sealed: AuditEntry[] = [],
): AuditEntry {
  const linked: AuditEntry = last?.hash
    ? { ...draft, seq: (last.seq ?? 0) + 1, prev: last.hash }
    : { ...draft, seq: 0, prev: sealOf(sealed) };
  return { ...linked, hash: entryHash(linked) };
}

export type BreakKind =
  /** Its content no longer matches its hash. */
  | 'edited'
  /** Entries are missing before it (a gap in seq), or after it (the newest ones, per the head record). */
  | 'deleted'
  /** It is out of place: the entry that belongs here is elsewhere in the log. */
  | 'reordered'
  /** Its content matches its hash, but it does not follow the entry before it: rewritten or forged. */
  | 'rewritten'
  /** It carries no hash, inside the chain. */
  | 'unchained'
  /** The entries written before the chain existed no longer match the seal the chain started with. */
  | 'legacy-edited'
  /** The log starts with a cut marker that no chained entry records: old entries removed by hand. */
  | 'unrecorded-cut';

interface ChainBreak {
  kind: BreakKind;
  /** Position in the log (0 = oldest kept) of the entry where the chain breaks. */
  index: number;
  /** The entry there (absent when the whole log is gone). */
  entry?: AuditEntry;
  /** For `deleted`: how many entries are missing before this one. */
  missing?: number;
}

export interface ChainReport {
  ok: boolean;
  /** Entries in the log. */
  total: number;
  /** Entries written before the chain existed, at the start of the log. */
  unchained: number;
  /** Chained entries checked. */
  chained: number;
  /** Where retention cut the log: the first kept entry follows the entry with this hash and seq. */
  cut?: { seq: number; hash: string; at: string; count: number };
  broken?: ChainBreak;
}

/**
 * Walk the log oldest first. Entries without a hash may only precede the chain; a retention cut marker
 * (action `cut`, kind `audit`, first in the log) says where the chain resumes. Then every entry's
 * stored hash must match its content (else: edited), its `seq` must be the next one (a gap: deleted;
 * going back, or an entry from later: reordered) and its `prev` the hash of the entry before it (else:
 * rewritten). Last, the log must reach the head record (else its newest entries were deleted).
 */
export function verifyChain(entries: AuditEntry[], head?: ChainHead): ChainReport {
  const unchained = leadingUnchained(entries);
  const start = chainStart(entries, unchained);
  if ('broken' in start) return report(entries, unchained.length, 0, start.broken);
  const { cut, position } = start;
  const walked = walkChain(entries, unchained, start);
  if (walked.broken) return report(entries, unchained.length, walked.chained, walked.broken, cut);
  const broken = unrecordedCut(entries, position, cut) ?? headNotReached(entries, cut, head);
  return report(entries, unchained.length, walked.chained, broken, cut);
}

/** The entries from before the chain began, at the start of the log: they have no hash. */
function leadingUnchained(entries: AuditEntry[]): AuditEntry[] {
  const unchained: AuditEntry[] = [];
  for (const entry of entries) {
    if (entry.hash !== undefined) break;
    unchained.push(entry);
  }
  return unchained;
}

/** Where the walk starts: after the unchained entries and the cut marker (if any), and what it expects. */
interface ChainStart {
  position: number;
  expectedSeq: number;
  expectedPrev: string;
  cut: ChainReport['cut'];
}

/** The walk's start; a cut marker that was itself edited is a break. */
function chainStart(entries: AuditEntry[], unchained: AuditEntry[]): ChainStart | { broken: ChainBreak } {
  const position = unchained.length;
  const first = entries[position];
  if (!(first && isCutMarker(first) && first.cut)) {
    return { position, expectedSeq: 0, expectedPrev: sealOf(unchained), cut: undefined };
  }
  if (entryHash(first) !== first.hash) return { broken: { kind: 'edited', index: position, entry: first } };
  // A cut marker begins its generation: no entry, chained or not, comes before it.
  if (position > 0) return { broken: { kind: 'unchained', index: 0, entry: entries[0] } };
  return {
    position: position + 1,
    expectedSeq: first.cut.seq + 1,
    expectedPrev: first.cut.hash,
    cut: { seq: first.cut.seq, hash: first.cut.hash, at: first.at, count: first.cut.count },
  };
}

/** Each entry from the start: hashed as it reads, its seq the next one, its prev the hash before it. */
function walkChain(
  entries: AuditEntry[],
  unchained: AuditEntry[],
  start: ChainStart,
): { chained: number; broken?: ChainBreak } {
  const seqs = new Set(entries.map((e) => e.seq));
  let { expectedSeq, expectedPrev } = start;
  let chained = 0;
  for (let index = start.position; index < entries.length; index++) {
    const entry = entries[index] as AuditEntry;
    const kind = entryBreak(entry, expectedSeq, expectedPrev, seqs);
    if (kind) {
      // The first chained entry seals the older ones: a mismatch there means they changed.
      const sealed = kind === 'rewritten' && index === unchained.length && unchained.length > 0 && !start.cut;
      const missing = kind === 'deleted' ? (entry.seq as number) - expectedSeq : undefined;
      const broken = { kind: sealed ? ('legacy-edited' as const) : kind, index, entry };
      return { chained, broken: missing ? { ...broken, missing } : broken };
    }
    expectedSeq += 1;
    expectedPrev = entry.hash as string;
    chained += 1;
  }
  return { chained };
}

/** What is wrong with one entry where the walk expects `expectedSeq` after `expectedPrev`, if anything. */
function entryBreak(
  entry: AuditEntry,
  expectedSeq: number,
  expectedPrev: string,
  seqs: Set<number | undefined>,
): BreakKind | undefined {
  if (entry.hash === undefined || entry.seq === undefined) return 'unchained';
  if (entryHash(entry) !== entry.hash) return 'edited';
  if (entry.seq !== expectedSeq) {
    // The entry that belongs here is elsewhere in the log: moved. Nowhere: removed.
    return entry.seq < expectedSeq || seqs.has(expectedSeq) ? 'reordered' : 'deleted';
  }
  return entry.prev !== expectedPrev ? 'rewritten' : undefined;
}

/** A genuine cut is also recorded inside the chain, where it cannot be forged without breaking it. */
function unrecordedCut(
  entries: AuditEntry[],
  position: number,
  cut: ChainReport['cut'],
): ChainBreak | undefined {
  const marker = cut ? entries[position - 1] : undefined;
  if (!marker?.cut) return undefined;
  const recorded = entries.some(
    (e, i) =>
      i >= position &&
      e.action === 'cut' &&
      e.cut?.seq === marker.cut?.seq &&
      e.cut?.hash === marker.cut?.hash,
  );
  return recorded ? undefined : { kind: 'unrecorded-cut', index: position - 1, entry: marker };
}

/** The head record is written after each append: a log that ends before it lost its newest entries. */
function headNotReached(
  entries: AuditEntry[],
  cut: ChainReport['cut'],
  head: ChainHead | undefined,
): ChainBreak | undefined {
  const last = entries.at(-1);
  const lastSeq = last?.seq ?? (cut ? cut.seq : -1);
  if (!head || lastSeq >= head.seq) return undefined;
  const at = {
    kind: 'deleted' as const,
    index: Math.max(entries.length - 1, 0),
    missing: head.seq - lastSeq,
  };
  return last ? { ...at, entry: last } : at;
}

/** The newest entry's place and hash, kept beside the log. */
export interface ChainHead {
  seq: number;
  hash: string;
  /**
   * The entry itself, when an append moved the head to it: until it is in the list, the next append
   * puts it there first (its writer may have stopped in between), so the list always follows the head.
   */
  entry?: AuditEntry;
  /**
   * The generation (list) a retention cut or a fork repair moved the head into, set before the
   * generation pointer moves: a reader or an append that finds the pointer behind it finishes the
   * switch. Not signed: it only says which list to read, and that list must end at the signed entry.
   */
  generation?: number;
  /** The audit signing key's signature of the environment, seq and hash (see audit/signing.ts). */
  signature?: { key: string; value: string };
}

/**
 * The marker a retention cut puts first in the log: it has no seq (it is not in the chain). The cut's
 * record, linked into the chain, carries the same fields and a seq: it is an entry like any other.
 */
export function isCutMarker(entry: AuditEntry): boolean {
  return entry.kind === 'audit' && entry.action === 'cut' && entry.seq === undefined;
}

function report(
  entries: AuditEntry[],
  unchained: number,
  chained: number,
  broken?: ChainBreak,
  cut?: ChainReport['cut'],
): ChainReport {
  return {
    ok: !broken,
    total: entries.length,
    unchained,
    chained,
    ...(cut ? { cut } : {}),
    ...(broken ? { broken } : {}),
  };
}

/** The chained entries after seq `from` up to `upTo`: a retention cut's marker (first in the log) has no seq; its record has. */
export function chainedBetween(entries: AuditEntry[], from: number, upTo: number): AuditEntry[] {
  return entries.filter((e) => e.hash && e.seq !== undefined && e.seq > from && e.seq <= upTo);
}

/** The entry is the one right after the archive's last segment: its seq next, its prev that head. */
export function continues(through: { seq: number; hash: string }, first: AuditEntry): boolean {
  return first.seq === through.seq + 1 && first.prev === through.hash;
}
