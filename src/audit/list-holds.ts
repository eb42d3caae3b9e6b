// Whether the list already holds an entry the head moved onto, so an appender never puts it in twice.
// An appender whose lock lapsed may wake long after another replica put its entry in (finishing the
// append) and chained any number of entries after it. Only the entry's hash proves it listed: the entry
// itself, or one whose prev is its hash. A seq proves nothing (a store writer may list any seq), so one
// forged entry never keeps a genuine one out. The list's last few entries tell unless some entry there
// is past the entry's seq: then the end back as far as the head has moved since is read, and the whole
// list only when that end does not reach back before the entry.
import type { Store } from '../store/index.js';
import { HOLDS_WINDOW } from './chain-end.js';
import type { AuditEntry } from './types.js';

/** Whether `entries` hold `entry` or the entry chained onto it, by hash. */
const holds = (entries: AuditEntry[], entry: AuditEntry) =>
  entry.hash !== undefined && entries.some((e) => e.hash === entry.hash || e.prev === entry.hash);

/** Whether any of `entries` is chained at a seq past the entry's (a reason to look further back). */
const anyPast = (entries: AuditEntry[], entry: AuditEntry) =>
  entries.some((e) => e.hash !== undefined && (e.seq ?? -1) > (entry.seq ?? 0));

/** Whether the list's end reaches back before the entry's seq, or is the whole list. */
const reachesBefore = (end: AuditEntry[], entry: AuditEntry, window: number) =>
  end.length < window || end.some((e) => e.hash !== undefined && (e.seq ?? -1) < (entry.seq ?? 0));

/**
 * Whether `list` holds `entry` or the entry chained onto it. `headSeq` reads the seq the head is at
 * now (asked only when the list's end holds entries past the entry's seq).
 */
export async function listHolds(
  store: Store,
  list: string,
  entry: AuditEntry,
  headSeq: () => Promise<number | undefined>,
): Promise<boolean> {
  const end = await store.readList<AuditEntry>(list, -HOLDS_WINDOW, -1);
  if (holds(end, entry)) return true;
  if (!anyPast(end, entry)) return false;
  // As pastMark sizes its window: the entries chained since, and a few more.
  const window = Math.max(HOLDS_WINDOW, ((await headSeq()) ?? 0) - (entry.seq ?? 0) + HOLDS_WINDOW);
  const since = window > HOLDS_WINDOW ? await store.readList<AuditEntry>(list, -window, -1) : end;
  if (holds(since, entry)) return true;
  if (reachesBefore(since, entry, window)) return false;
  return holds(await store.readList<AuditEntry>(list, 0, -1), entry);
}
