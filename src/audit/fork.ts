// The fork an earlier retention cut could make, found and mended. That cut linked its record past the
// previous cut's own record (it took that record for the marker), so the record reused its seq, and
// the chain, the archive and every later segment then refused it. The fork is mended only when it is
// provably that fault and nothing else: the log starts with the cut's marker, the chain holds up to
// the entry the record should have followed (the previous cut's record), the record is the marker's
// twin linked to the entry before that one, the entries after it chain from it, the head is this
// key's and names the last of them, and the archive holds nothing past the true entry. Then the record
// and the entries after it are linked again in order (their content unchanged, never archived, since
// archiving refused the fork) and an entry saying what was relinked, old and new hashes, closes it.
import { type ChainHead, canonicalJson, chainEntry, entryHash, isCutMarker, verifyChain } from './chain.js';
import type { AuditEntry } from './types.js';

/** The action of the entry that records a mended fork. */
export const FORK_REPAIRED = 'fork-repaired';

export interface CutFork {
  /** The log as it should be: marker, entries kept, the record and what followed relinked, the finding. */
  entries: AuditEntry[];
  /** The new last entry (the finding): the head moves to it. */
  last: AuditEntry;
}

/** What an entry is without its place in the chain. */
function draftOf(entry: AuditEntry): Omit<AuditEntry, 'seq' | 'prev' | 'hash'> {
  const { seq: _seq, prev: _prev, hash: _hash, ...draft } = entry;
  return draft;
}

const isCutRecord = (entry: AuditEntry | undefined) =>
  entry?.kind === 'audit' && entry.action === 'cut' && entry.seq !== undefined && entry.cut !== undefined;

/**
 * The mended log when `entries` hold exactly the fork described above, else undefined (the check then
 * reports the break as it is). `archived`: the hash the verified archive holds for a seq; `headHolds`:
 * whether the head's signature is this bot's.
 */
export function mendCutFork(
  entries: AuditEntry[],
  head: ChainHead | undefined,
  headHolds: boolean,
  archived: { hashAt: (seq: number) => string | undefined; through: number },
  now: Date,
): CutFork | undefined {
  const found = forkedRecord(entries, head);
  if (!found) return undefined;
  const { marker, index, record } = found;
  const truly = trulyFollowed(entries, found, archived);
  if (!truly) return undefined;
  // What followed the record chains from it, and the head is this key's, on the last of it.
  const after = entries.slice(index + 1);
  const previous = chainedFrom(record, after);
  if (!previous || !head || !headHolds || head.seq !== previous.seq || head.hash !== previous.hash) {
    return undefined;
  }
  if (archived.through > truly.seq) return undefined;

  const relinked: AuditEntry[] = [];
  let last = { ...truly } as AuditEntry;
  for (const entry of [record, ...after]) {
    last = chainEntry(draftOf(entry), last);
    relinked.push(last);
  }
  const newRecord = relinked[0] as AuditEntry;
  const finding = chainEntry(
    {
      at: now.toISOString(),
      kind: 'audit',
      action: FORK_REPAIRED,
      environment: marker.environment,
      subject: `seq ${record.seq} hash ${record.hash} to seq ${head.seq} hash ${head.hash}`,
      note: `A retention cut had linked its record past the previous cut's record (seq ${truly.seq}, hash ${truly.hash}), reusing its seq: a known fault of the cut, not an edit. The record (seq ${record.seq}, hash ${record.hash}) is now seq ${newRecord.seq}, hash ${newRecord.hash}, after seq ${truly.seq}; the ${after.length} entries after it (their content unchanged, never archived) are relinked after it; the head was seq ${head.seq}, hash ${head.hash}.`,
    },
    last,
  );
  return { entries: [...entries.slice(0, index), ...relinked, finding], last: finding };
}

/** The log's cut marker and the cut record the chain finds out of order, a true copy of that marker. */
interface ForkedRecord {
  marker: AuditEntry & { cut: NonNullable<AuditEntry['cut']> };
  index: number;
  record: AuditEntry;
}

/** The cut record where the check finds the chain reordered, when it repeats the log's intact marker. */
function forkedRecord(entries: AuditEntry[], head: ChainHead | undefined): ForkedRecord | undefined {
  const [marker] = entries;
  if (!marker || !isCutMarker(marker) || !marker.cut || entryHash(marker) !== marker.hash) return undefined;
  const report = verifyChain(entries, head);
  const index = report.broken?.kind === 'reordered' ? report.broken.index : -1;
  const record = entries[index];
  if (index < 1 || !record || !isCutRecord(record) || entryHash(record) !== record.hash) return undefined;
  const { hash: _markerHash, ...markerDraft } = marker;
  if (canonicalJson(draftOf(record)) !== canonicalJson(markerDraft)) return undefined;
  return { marker: { ...marker, cut: marker.cut }, index, record };
}

/**
 * The entry the record should have followed, when the record followed the one before that instead
 * (reusing its seq); undefined when the log is anything else.
 */
function trulyFollowed(
  entries: AuditEntry[],
  { marker, index, record }: ForkedRecord,
  archived: { hashAt: (seq: number) => string | undefined },
): { seq: number; hash: string } | undefined {
  const before = entries[index - 1] as AuditEntry;
  const truly: { seq: number; hash: string } =
    index === 1
      ? { seq: marker.cut.seq, hash: marker.cut.hash }
      : { seq: before.seq ?? -1, hash: before.hash ?? '' };
  if (index >= 2 && !isCutRecord(before)) return undefined;
  if (index === 1 && archived.hashAt(truly.seq) !== truly.hash) return undefined;
  const linkedTo = linkedBefore(entries, index, marker.cut, truly.seq, archived);
  if (record.seq !== truly.seq || !linkedTo || record.prev !== linkedTo) return undefined;
  return truly;
}

/** The hash of the entry before the one the record should have followed: what it linked to instead. */
function linkedBefore(
  entries: AuditEntry[],
  index: number,
  cut: { seq: number; hash: string },
  trulySeq: number,
  archived: { hashAt: (seq: number) => string | undefined },
): string | undefined {
  if (index >= 3) return entries[index - 2]?.hash;
  if (index === 2) return cut.seq === trulySeq - 1 ? cut.hash : undefined;
  return archived.hashAt(trulySeq - 1);
}

/** The last of `after` when each chains from the one before it, from `record` on; else undefined. */
function chainedFrom(record: AuditEntry, after: AuditEntry[]): AuditEntry | undefined {
  let previous = record;
  for (const entry of after) {
    const chains =
      entry.seq === (previous.seq ?? 0) + 1 &&
      entry.prev === previous.hash &&
      entryHash(entry) === entry.hash;
    if (!chains) return undefined;
    previous = entry;
  }
  return previous;
}
