// The manifest of a new archive segment (audit/archive.ts), before it is signed: what it holds, what it
// continues from, and its entries file's digest.
import { sha256Hex } from './crypto.js';
import { type ArchiveReport, ENTRIES_FILE, SEGMENT_FORMAT, type SegmentManifest } from './segments.js';
import type { AuditEntry, ServiceEnvironment } from './types.js';

/** The manifest of a segment of `entries` (chained, in order, at least one) after `through`, before signing. */
export function unsignedManifest(
  { entries, through, text }: { entries: AuditEntry[]; through: ArchiveReport['verifiedHead']; text: string },
  {
    environment,
    now,
    reason,
    key,
  }: { environment: ServiceEnvironment; now: Date; reason: string; key: string },
): Omit<SegmentManifest, 'signature'> {
  const first = entries[0] as AuditEntry;
  const last = entries.at(-1) as AuditEntry;
  return {
    format: SEGMENT_FORMAT,
    environment,
    first: !through,
    firstSeq: first.seq ?? 0,
    lastSeq: last.seq ?? 0,
    count: entries.length,
    previousHead: through
      ? { seq: through.seq, hash: through.hash }
      : { seq: (first.seq ?? 0) - 1, hash: first.prev ?? '' },
    head: { seq: last.seq ?? 0, hash: last.hash ?? '' },
    entries: { file: ENTRIES_FILE, sha256: sha256Hex(text), bytes: Buffer.byteLength(text) },
    writtenAt: now.toISOString(),
    reason,
    key,
  };
}
