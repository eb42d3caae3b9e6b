// What a retention cut of the log removes and records, as pure functions (AuditLog.cut writes it).

import { isCutMarker, sealOf } from './chain.js';
import type { AuditEntry } from './types.js';
import { liveFreezeEntry } from './verified-freeze.js';
import { holdsLiveDelegation } from './verified-read.js';

/**
 * Where a cut of `entries` from `start` ends: past every entry older than `olderThan` that `archived`
 * holds, in a row, up to the first that grants or revokes a delegation not yet ended at `now` (the
 * chain is where that grant and that revocation hold, verified-read.ts: they stay until the delegation
 * ends), and before the `frozen` entry of a freeze still in effect (verified-freeze.ts: the chain
 * holds sends frozen by it). Undefined when it would split the entries of an older version, which are sealed together:
 * they go all at once or not at all.
 */
function cutEnd(
  entries: AuditEntry[],
  start: number,
  olderThan: Date,
  archived: (entry: AuditEntry) => boolean,
  now: Date,
): number | undefined {
  let end = start;
  const liveFreeze = liveFreezeEntry(entries);
  while (end < entries.length) {
    const entry = entries[end] as AuditEntry;
    if (Date.parse(entry.at) >= olderThan.getTime() || !archived(entry)) break;
    if (holdsLiveDelegation(entry, now) || entry === liveFreeze) break;
    end += 1;
  }
  const unchained = entries.slice(start).findIndex((e) => e.hash);
  const legacy = unchained === -1 ? entries.length - start : unchained;
  return legacy > 0 && end - start < legacy ? undefined : end;
}

/**
 * What a cut of `entries` removes (up to `end`), what it records, and the entry its record follows:
 * the chain's last entry, whatever it is (an earlier cut's record too; the head's, see rewritable()):
 * only the marker is outside the chain. Undefined when it removes nothing.
 */
export function cutPlan(
  entries: AuditEntry[],
  olderThan: Date,
  archived: (entry: AuditEntry) => boolean,
  now: Date,
) {
  const earlier = entries[0] && isCutMarker(entries[0]) ? entries[0] : undefined;
  const start = earlier ? 1 : 0;
  const end = cutEnd(entries, start, olderThan, archived, now);
  if (end === undefined) return undefined;
  const removed = entries.slice(start, end);
  const lastRemoved = removed.at(-1);
  const tail = entries.findLast((e) => e.hash && e.seq !== undefined);
  if (!lastRemoved || !tail) return undefined;
  return { removed, end, cut: cutOf(removed, lastRemoved, earlier), tail };
}

/** What a cut removing `removed` records: the last entry it removed, and how many all cuts so far removed. */
function cutOf(removed: AuditEntry[], lastRemoved: AuditEntry, earlier: AuditEntry | undefined) {
  return {
    seq: lastRemoved.seq ?? -1,
    hash: lastRemoved.hash ?? sealOf(removed),
    count: removed.length + (earlier?.cut?.count ?? 0),
  };
}
