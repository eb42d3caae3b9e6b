// Whether the list already holds an entry the head moved onto, so an appender never puts it in twice.
// An appender whose lock lapsed may wake long after another replica put its entry in (finishing the
// append) and chained any number of entries after it: however far back the entry is, an entry at a
// later seq means it is listed, since whoever chained onto it put it in first. Another entry at its own
// seq is a store writer's (of two appenders chained onto one entry only one moves the head), and no
// reason to leave the entry out. The list's end tells in every case but a forged one, so an append reads
// a few entries, never the whole list.
import type { Store } from '../store/index.js';
import { HOLDS_WINDOW } from './chain-end.js';
import type { AuditEntry } from './types.js';

/** Whether `entries` hold `entry` (by hash) or an entry chained after it. */
const holdsOrPast = (entries: AuditEntry[], entry: AuditEntry) =>
  entries.some((e) => e.hash === entry.hash || (e.hash !== undefined && (e.seq ?? -1) > (entry.seq ?? 0)));

/** Whether the list's end reaches back before the entry's seq, or is the whole list. */
const reachesBefore = (end: AuditEntry[], entry: AuditEntry) =>
  end.length < HOLDS_WINDOW || end.some((e) => e.hash !== undefined && (e.seq ?? -1) < (entry.seq ?? 0));

/**
 * Whether `list` holds `entry` or entries chained after it. Its last few entries decide, unless they
 * are all at its seq or unhashed (forged copies, or the entries a first chained one seals): then the
 * whole list is read.
 */
export async function listHolds(store: Store, list: string, entry: AuditEntry): Promise<boolean> {
  const end = await store.readList<AuditEntry>(list, -HOLDS_WINDOW, -1);
  if (holdsOrPast(end, entry)) return true;
  if (reachesBefore(end, entry)) return false;
  return holdsOrPast(await store.readList<AuditEntry>(list, 0, -1), entry);
}
