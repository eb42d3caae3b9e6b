// What an archive write (audit/archive.ts) comes to, and its shorthands.

export type ArchiveOutcome = (
  | { written: true; segment: string; firstSeq: number; lastSeq: number; count: number }
  | { written: false; reason: 'nothing-new' | 'not-due'; through?: number }
  /** Another writer claimed the segment's first seq meanwhile (its lock had lapsed): the next round goes on. */
  | { written: false; reason: 'taken'; why: string }
  /** The chain or the archive does not verify, or the folder is not the one the others write to. */
  | { written: false; reason: 'refused'; why: string }
) & {
  /** What the writer met among the claims and an operator should hear of (each told to onNote as it happened). */
  notes?: string[];
};

export function refused(why: string): ArchiveOutcome {
  return { written: false, reason: 'refused', why };
}

export function taken(why: string): ArchiveOutcome {
  return { written: false, reason: 'taken', why };
}

export function withNotes(outcome: ArchiveOutcome, notes: string[]): ArchiveOutcome {
  return notes.length > 0 ? { ...outcome, notes } : outcome;
}
