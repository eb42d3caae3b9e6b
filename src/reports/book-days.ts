// How the book files movements by Lagos day: the keys, one copy of each reference however its time
// moves between reads (an undated transaction, see Movement.undated), and one of each when read back.
import type { Store } from '../store/index.js';
import { lagosDay } from './movements.js';
import type { Movement } from './types.js';

// Keyed by the layout below: a book kept under an older layout (one movement a reference a day) is not
// trusted, and is read again from the service once (see docs/decisions/report-figures.md).
export const dayKey = (scope: string, day: string) => `reports:movements:${scope}:${day}`;

/**
 * A movement's key within its day: the service's id when it sends one, else its reference and
 * creation time (two dated transactions sharing a reference are two). An undated movement is keyed by
 * its reference alone, its time moving from read to read, so a re-read replaces its own copy.
 */
export function bookKey(movement: Movement): string {
  if (movement.undated) return undatedBookKey(movement.reference);
  return movement.id === undefined ? datedBookKey(movement) : `id:${movement.id}`;
}

const undatedBookKey = (reference: string) => `ref:${reference}`;
const datedBookKey = (movement: Movement) => `at:${movement.at}:${movement.reference}`;

/**
 * Puts the movement into its day's map under its key. A dated one the service now sends with an id
 * replaces the copy kept before it had one (same reference and creation time), and one now sent with
 * its creation time the copy kept undated under the same day, so it counts once.
 */
export function fileInDay(map: Record<string, Movement>, movement: Movement): void {
  // Dated now: a copy kept while it came undated is this one (see fileUndated).
  if (!movement.undated) delete map[undatedBookKey(movement.reference)];
  if (!movement.undated && movement.id !== undefined) delete map[datedBookKey(movement)];
  map[bookKey(movement)] = movement;
}

/**
 * Where each undated movement (Movement.undated) was filed: its reference → the time it was filed
 * under. Only those: a dated movement's day never changes, and the service dates nearly all of them.
 */
const undatedKey = (scope: string) => `reports:undated:${scope}`;

/**
 * An undated movement's time changes from read to read (its update time, or when it was read), so
 * a later read could file it under another day, beside its stale copy. Each is filed under the
 * earliest time any read gave it (the nearest to its creation), its newest copy replacing the
 * older there. One that comes later with its creation time is filed under that time, whatever the
 * times before: its undated copy, under another day, then counts nowhere (see undatedDays), and
 * under the same day it is the same transaction read twice (oneOfEach). Returns the copies filed
 * under another day before, to be taken out once the new ones are stored.
 */
export async function fileUndated(
  store: Store,
  scope: string,
  movements: Movement[],
): Promise<{ day: string; reference: string }[]> {
  const key = undatedKey(scope);
  // Most pages hold no undated movement and none kept undated before: no lock, no write.
  const before = (await store.get<Record<string, string>>(key)) ?? {};
  if (!movements.some((m) => m.undated || Object.hasOwn(before, m.reference))) return [];
  return store.withLock(key, async () => {
    const index = (await store.get<Record<string, string>>(key)) ?? {};
    const stale: { day: string; reference: string }[] = [];
    let changed = false;
    for (const movement of movements) {
      const filed = Object.hasOwn(index, movement.reference) ? index[movement.reference] : undefined;
      if (!refiles(movement, filed)) continue;
      if (filed !== undefined && lagosDay(filed) !== lagosDay(movement.at)) {
        stale.push({ day: lagosDay(filed), reference: movement.reference });
      }
      index[movement.reference] = movement.at;
      changed = true;
    }
    if (changed) await store.set(key, index);
    return stale;
  });
}

/**
 * Whether the movement moves its reference's place in the index (kept at `filed`): an undated one
 * read earlier than it is filed, a dated one kept undated before. An undated one filed earlier takes
 * that time.
 */
function refiles(movement: Movement, filed: string | undefined): boolean {
  if (filed === undefined) return movement.undated === true;
  if (!movement.undated) return filed !== movement.at;
  if (filed > movement.at) return true;
  movement.at = filed;
  return false;
}

/**
 * Where each undated reference is filed (the index), read once for a read of the days: a copy of one
 * found under another day is a leftover (a write stopped between the index and the day, or two
 * replicas filing it at once), never the one that counts.
 */
export async function undatedDays(store: Store, scope: string): Promise<Map<string, string>> {
  const index = (await store.get<Record<string, string>>(undatedKey(scope))) ?? {};
  return new Map(Object.entries(index).map(([reference, at]) => [reference, lagosDay(at)]));
}

/** Takes a movement out of a day it is no longer filed under. */
export async function forget(store: Store, scope: string, day: string, reference: string): Promise<void> {
  const key = dayKey(scope, day);
  await store.withLock(key, async () => {
    const map = await store.get<Record<string, Movement>>(key);
    const kept = undatedBookKey(reference);
    if (!map || !Object.hasOwn(map, kept)) return;
    delete map[kept];
    await store.set(key, map);
  });
}

/**
 * Adds a movement to `within` (oldest first) unless its reference is there already (`place`: reference
 * → index). Then the two are one transaction read twice: the later read's copy (the later time, as an
 * update time or a read's time only grows; a final outcome over a pending one whatever the times)
 * stands, at the earlier copy's time and place (the time nearest its creation).
 */
export function oneOfEach(within: Movement[], place: Map<string, number>, movement: Movement): void {
  const index = place.get(movement.reference);
  const earlier = index === undefined ? undefined : within[index];
  // Only an undated copy moves between days: two dated ones under one reference are two transactions
  // (nothing in the service's word makes a reference unique), each counted.
  if (index === undefined || !earlier || !(earlier.undated || movement.undated)) {
    if (index === undefined) place.set(movement.reference, within.length);
    within.push(movement);
    return;
  }
  const newer = isNewer(movement, earlier) ? movement : earlier;
  // Days are read in order, so the copy met first has the earlier time.
  within[index] = { ...newer, at: earlier.at };
}

function isNewer(a: Movement, b: Movement): boolean {
  if ((a.status === 'pending') !== (b.status === 'pending')) return b.status === 'pending';
  return a.at >= b.at;
}
