// What the audit check finds wrong beyond the chain's links, and the archive's part of it: the folder
// verifies, the store holds what it holds and reaches as far, what retention removed is in a verified
// segment, and the folder ends where the store's record of the last segment written says it does.
import { lagosTime } from '../format/display.js';
import type { ArchiveRecord } from './archive.js';
import type { ChainReport } from './chain.js';
import { short } from './crypto.js';
import type { ArchiveReport } from './segments.js';
import type { HeadProblemKind } from './signing.js';
import type { AuditEntry } from './types.js';

type AuditProblemKind =
  | HeadProblemKind
  /** The head is signed, but the entry at its seq is another one: the entries were rewritten. */
  | 'head-mismatch'
  /** No entry and no head, beside requests, a mark or an archive that say there was a chain. */
  | 'emptied'
  /** A segment of the archive does not verify. */
  | 'archive-invalid'
  /** The archive holds entries past the store's newest: the store's newest were removed. */
  | 'archive-ahead'
  /** Retention removed entries from the store past what the archive's verified segments hold. */
  | 'archive-cut-unheld'
  /** The store records a segment written that the archive's folder does not end with: it was removed. */
  | 'archive-behind'
  /** An entry in the store is not the one the archive holds for its seq. */
  | 'archive-differs';

export interface AuditProblem {
  kind: AuditProblemKind;
  /** In words; numbers and hashes only. */
  text: string;
}

/** The archive against the store: it verifies, the store holds what it holds, and reaches as far. */
export function archiveProblems(
  report: ArchiveReport,
  chained: AuditEntry[],
  chain: ChainReport,
  recorded: ArchiveRecord | undefined,
): AuditProblem[] {
  const problems: AuditProblem[] = [];
  const [first] = report.problems;
  if (first) {
    const more = report.problems.length > 1 ? ` (and ${report.problems.length - 1} more)` : '';
    problems.push({
      kind: 'archive-invalid',
      text: `the archive does not verify: segment ${first.segment}: ${first.text}${more}`,
    });
  }
  const differs = chained.find(
    (e) => report.verified.has(e.seq ?? -1) && report.verified.get(e.seq ?? -1) !== e.hash,
  );
  if (differs) {
    problems.push({
      kind: 'archive-differs',
      text: `the entry at seq ${differs.seq} is not the one the archive holds (hash ${short(report.verified.get(differs.seq ?? -1) ?? '')} there, ${short(differs.hash ?? '')} in the store): the store was changed`,
    });
  }
  const archived = report.verifiedHead;
  const newest = chained.at(-1)?.seq ?? chain.cut?.seq ?? -1;
  if (archived && newest < archived.seq) {
    problems.push({
      kind: 'archive-ahead',
      text: `the archive's segment ${archived.segment} holds entries up to seq ${archived.seq}, but the store's chain ends at seq ${newest}: entries were removed from the store`,
    });
  }
  const unheld = cutUnheld(report, chain.cut);
  if (unheld) problems.push(unheld);
  if (recorded) problems.push(...recordProblems(report, recorded));
  return problems;
}

/** Retention removes only what a verified segment holds: a cut past the archive's head lost entries. */
function cutUnheld(report: ArchiveReport, cut: ChainReport['cut']): AuditProblem | undefined {
  const archived = report.verifiedHead;
  if (!cut || (archived && archived.seq >= cut.seq)) return undefined;
  const held = archived
    ? `the archive's verified segments hold entries only up to seq ${archived.seq}: those after it are nowhere`
    : 'no verified segment of the archive holds them: they are nowhere';
  return {
    kind: 'archive-cut-unheld',
    text: `retention removed the entries up to seq ${cut.seq} from the store, but ${held}`,
  };
}

/** The folder against the store's record of the last segment written (the folder alone cannot tell). */
function recordProblems(report: ArchiveReport, recorded: ArchiveRecord): AuditProblem[] {
  // Formatted only for a problem: the Lagos formatter maps megabytes of ICU data a sound archive need not.
  const wrote = () =>
    `the store records segment ${recorded.segment} (to seq ${recorded.lastSeq}) as written ${lagosTime(recorded.at)}`;
  const last = report.last;
  if (!last || last.head.seq < recorded.lastSeq) {
    const ends = last ? `ends at segment ${last.segment} (seq ${last.head.seq})` : 'holds no segment';
    return [
      {
        kind: 'archive-behind',
        text: `${wrote()}, but the archive ${ends}: segments were removed from its end, or this replica writes to another folder (CNGN_AUDIT_ARCHIVE) than the one that wrote it`,
      },
    ];
  }
  const held = report.verified.get(recorded.lastSeq);
  if (held !== undefined && held !== recorded.hash) {
    return [
      {
        kind: 'archive-differs',
        text: `${wrote()} with head hash ${short(recorded.hash)}, but the archive holds ${short(held)} at seq ${recorded.lastSeq}: the archive was replaced`,
      },
    ];
  }
  return [];
}
