// Shared by every store's claimAndWrite.
import type { StoreClaim, StoreWrite } from './types.js';

/** Refuses a claimAndWrite that names one key (or set) twice: the stores could not apply it alike. */
export function checkDistinctWrites(claim: StoreClaim, writes: StoreWrite[]): void {
  const names = [
    `key:${claim.key}`,
    ...writes.map((write) => (write.kind === 'addToSet' ? `set:${write.set}` : `key:${write.key}`)),
  ];
  if (new Set(names).size !== names.length) throw new Error('claimAndWrite names one key or set twice');
}
