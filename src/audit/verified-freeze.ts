// Whether the signed audit chain holds sends frozen, read only from entries that verify up to the
// signed head: a store writer without the audit signing key can rewrite or delete the freeze record,
// but cannot take a freeze out of the chain, nor put a lift into it, unnoticed. Each freeze and lift is
// appended to the chain before the record is written, so the chain's latest freeze entry says what holds:
// `frozen`, or an `unfrozen` later `unfreeze-barred` (that lift never took effect). Where what verifies
// does not reach back to that entry (no signed head, a head behind the mark or past it on another chain,
// a break, entries before a `head-unverified` finding), the answer is `unknown`, which holds sends
// frozen. An unknown episode is named by the entry a head that does not verify ends at: the one the
// next append links its `head-unverified` finding to, so the name stays when the finding goes in;
// where there is no entry (the head and the list gone), by the mark's time, which the finding records.
// Read-only; cached by the head, a head that moved on read from where the cache ended.
// docs/decisions/freeze-on-the-signed-chain.md.
import { type ChainHead, entryHash, verifyChain } from './chain.js';
import { foreignEntryProblem, HEAD_UNVERIFIED, headAhead, markedAt } from './chain-end.js';
import { type AuditSeal, type HeadMark, headProblem, markProblem } from './signing.js';
import type { AuditEntry, ServiceEnvironment } from './types.js';
import { holdsMark, links, sameHead, withHeadEntry } from './verified-read.js';

/** A freeze as its entry records it: who froze, why, when. */
interface ChainFreezeEntry {
  by: string;
  reason: string;
  at: string;
}

/** What the verified chain says of the freeze of sends. */
export type ChainFreeze = (
  | { state: 'frozen'; freeze: ChainFreezeEntry }
  | { state: 'lifted' }
  /**
   * What verifies does not reach back to the latest freeze entry: held frozen (fail-safe). `since`
   * names this episode before and after its finding goes in, so an unfreeze filed for one never lifts
   * another: when the entry the break was found at was written (the one a `head-unverified` finding
   * is chained onto, or the entry a head that does not verify ends at, which the next append's finding
   * is chained onto; the first entry after a break inside the chain), or, with no entry at all, the
   * mark's time (the finding records it).
   */
  | { state: 'unknown'; since: string }
) & {
  /**
   * Every unfreeze request the chain read names as lifting (`unfrozen`) or given up (`unfreeze-barred`):
   * spent. None where the head itself does not verify: then no unfreeze's filing is on a trusted part
   * of the chain, so verified-closings refuses every one before it lifts anything.
   */
  spent: ReadonlySet<string>;
};

/** The freeze entries read so far, in order. `reaches`: the read goes back to the chain's start (or its cut). */
interface Fold {
  reaches: boolean;
  /**
   * Where `reaches` is false: when the entry that cut the read off was written, and that finding with
   * the entry it links to (a retention cut keeps both).
   */
  since?: string | undefined;
  finding?: AuditEntry | undefined;
  spent: ReadonlySet<string>;
  /** The latest freeze entry's verdict (undefined: none read) and the `frozen` entry it holds. */
  state?: Verdict | undefined;
  frozenEntry?: AuditEntry | undefined;
  /** The lift that ended the freeze before it, and what a bar of that lift brings back. */
  lift?: { requestId: string; restores: Verdict; frozenEntry?: AuditEntry | undefined } | undefined;
}

/** A verdict before the spent requests are added to it. */
type Verdict =
  | { state: 'frozen'; freeze: ChainFreezeEntry }
  | { state: 'lifted' }
  | { state: 'unknown'; since: string };

const NONE_SPENT: ReadonlySet<string> = new Set();
const LIFTED: Verdict = { state: 'lifted' };

/** The fold's verdict where no freeze entry was read since the start or the cut-off. */
const unread = (fold: Fold): Verdict =>
  fold.reaches ? LIFTED : { state: 'unknown', since: fold.since ?? new Date(0).toISOString() };

const spending = (fold: Fold, id: string): ReadonlySet<string> => new Set([...fold.spent, id]);

/**
 * The fold after one more entry (`before`: the entry it links to, when read): only freeze entries, and a
 * finding, change it.
 */
function step(fold: Fold, entry: AuditEntry, before?: AuditEntry): Fold {
  // Before a finding the bot signed on from a head it could not verify: what came before may be rewritten.
  // The requests it named stay spent: that only ever refuses a lift. The episode is named by the entry
  // the finding is chained onto, edited or not, as it was named before the finding went in
  // (VerifiedFreeze.unverified); with none, by the mark the finding records.
  if (entry.kind === 'audit' && entry.action === HEAD_UNVERIFIED) return afterFinding(fold, entry, before);
  if (entry.kind !== 'freeze') return fold;
  const { reaches, since, finding } = fold;
  if (entry.action === 'frozen') {
    const state: Verdict = {
      state: 'frozen',
      freeze: { by: entry.actor ?? '', reason: entry.note ?? '', at: entry.at },
    };
    return { reaches, since, finding, spent: fold.spent, state, frozenEntry: entry };
  }
  if (!entry.subject) return fold;
  const spent = spending(fold, entry.subject);
  if (entry.action === 'unfrozen') {
    const restores = fold.state ?? unread(fold);
    const lift = { requestId: entry.subject, restores, frozenEntry: fold.frozenEntry };
    return { reaches, since, finding, spent, state: LIFTED, lift };
  }
  const lift = fold.lift;
  if (entry.action === 'unfreeze-barred' && lift && lift.requestId === entry.subject) {
    const { restores, frozenEntry } = lift;
    return { reaches, since, finding, spent, state: restores, frozenEntry };
  }
  return entry.action === 'unfreeze-barred' ? { ...fold, spent } : fold;
}

/** `entry` was chained onto `before` (its place and its link; whether `before` was edited since aside). */
const chainedOnto = (before: AuditEntry, entry: AuditEntry): boolean =>
  before.hash !== undefined &&
  before.seq !== undefined &&
  entry.seq === before.seq + 1 &&
  entry.prev === before.hash;

/** The fold from a `head-unverified` finding on (see step). */
function afterFinding(fold: Fold, finding: AuditEntry, before: AuditEntry | undefined): Fold {
  if (before && chainedOnto(before, finding)) {
    return { reaches: false, since: before.at, finding: before, spent: fold.spent };
  }
  return { reaches: false, since: markedAt(finding) ?? finding.at, finding, spent: fold.spent };
}

function foldAll(fold: Fold, entries: readonly AuditEntry[], before?: AuditEntry): Fold {
  let folded = fold;
  let previous = before;
  for (const entry of entries) {
    folded = step(folded, entry, previous);
    previous = entry;
  }
  return folded;
}

function verdict(fold: Fold): ChainFreeze {
  return { ...(fold.state ?? unread(fold)), spent: fold.spent };
}

/**
 * The entry a retention cut of `entries` stops before, or undefined: the `frozen` entry of the freeze
 * they hold in effect (their latest freeze entry, or a barred lift's), or the entry the
 * `head-unverified` finding that holds sends frozen as unknown links to (it names the episode). Cut
 * past, the chain would forget the freeze.
 */
export function liveFreezeEntry(entries: readonly AuditEntry[]): AuditEntry | undefined {
  const fold = foldAll({ reaches: true, spent: NONE_SPENT }, entries);
  const state = fold.state ?? unread(fold);
  if (state.state === 'frozen') return fold.frozenEntry;
  return state.state === 'unknown' ? fold.finding : undefined;
}

/** What is read of the log (AuditLog): the head, then the entries. */
interface ChainReader {
  head(environment: ServiceEnvironment): Promise<ChainHead | undefined>;
  entries(environment: ServiceEnvironment): Promise<AuditEntry[]>;
  latest(environment: ServiceEnvironment, count: number): Promise<AuditEntry[]>;
}

/** The most new entries a moved head is read by from where the cache ended; past that, all again. */
const MOST_READ_ON = 500;

export class VerifiedFreeze {
  #cached: { head: ChainHead; fold: Fold } | undefined;

  constructor(
    private readonly log: ChainReader,
    private readonly environment: ServiceEnvironment,
    private readonly seal: AuditSeal,
  ) {}

  /** The freeze as the chain stands now (see the file's comment). */
  async read(): Promise<ChainFreeze> {
    // The mark as it was before the head was read: an append here may raise it past that head meanwhile.
    const mark = this.seal.marks.get(this.environment);
    const head = await this.log.head(this.environment);
    // No chain at all, and this process never signed or checked one: nothing was ever frozen on it.
    if (!head) return mark ? this.unverified(undefined, mark) : { state: 'lifted', spent: NONE_SPENT };
    const cached = this.#cached;
    const unchanged = cached !== undefined && sameHead(cached.head, head);
    const problem = unchanged
      ? markProblem(head, mark)
      : headProblem(this.seal, this.environment, head, mark);
    if (problem || foreignEntryProblem(head)) return this.unverified(head, mark);
    if (cached && unchanged) return verdict(cached.fold);
    const fold =
      (cached && (await this.readOn(cached.head, cached.fold, head))) ??
      foldOf(await this.log.entries(this.environment), head, mark);
    if (!fold) return this.unverified(head, mark);
    this.#cached = { head, fold };
    if (head.signature) this.seal.marks.raise(this.environment, head, new Date());
    return verdict(fold);
  }

  /**
   * Unknown, where the head (or what it ends at) does not verify: named by when the entry the next
   * append chains onto was written (the head's own entry, put in the list first when it is not there
   * yet; else the list's last, edited or not), which its finding is chained onto; with no entry, by the
   * mark's time, which its finding records: the name is alike before and after the finding (step).
   */
  private async unverified(head: ChainHead | undefined, mark: HeadMark | undefined): Promise<ChainFreeze> {
    const last = (await this.log.latest(this.environment, 1)).findLast((e) => e.hash !== undefined);
    const entry = headAhead(head, last) ? head.entry : last;
    const since = entry?.at ?? mark?.at ?? new Date(0).toISOString();
    return { state: 'unknown', since, spent: NONE_SPENT };
  }

  /** The entries from the cached head to `head`, folded on when they link on from it; else undefined. */
  private async readOn(from: ChainHead, known: Fold, head: ChainHead): Promise<Fold | undefined> {
    const count = head.seq - from.seq;
    if (count <= 0 || count > MOST_READ_ON || (from.generation ?? 0) !== (head.generation ?? 0)) {
      return undefined;
    }
    const latest = withHeadEntry(await this.log.latest(this.environment, count + 16), head);
    const start = latest.findLastIndex((e) => e.seq === from.seq && e.hash === from.hash);
    const end = latest.findLastIndex((e) => e.seq === head.seq && e.hash === head.hash);
    if (start < 0 || end - start !== count) return undefined;
    const fresh = latest.slice(start, end + 1);
    if (entryHash(fresh.at(-1) as AuditEntry) !== head.hash) return undefined;
    if (!fresh.every((entry, i) => i === 0 || links(fresh[i - 1] as AuditEntry, entry))) return undefined;
    return foldAll(known, fresh.slice(1), fresh[0]);
  }
}

/**
 * The freeze entries of `listed` up to the signed `head`: all of them when the chain verifies whole;
 * else those linked back from the head, which do not reach back to the start. Undefined: nothing verifies.
 */
function foldOf(
  listed: readonly AuditEntry[],
  head: ChainHead,
  mark: HeadMark | undefined,
): Fold | undefined {
  const entries = withHeadEntry(listed, head);
  const end = entries.findLastIndex((e) => e.seq === head.seq && e.hash === head.hash);
  const last = entries[end];
  if (!last || entryHash(last) !== last.hash) return undefined;
  const chain = entries.slice(0, end + 1);
  if (mark && !holdsMark(chain, mark)) return undefined;
  if (verifyChain(chain, head).ok) return foldAll({ reaches: true, spent: NONE_SPENT }, chain);
  let first = end;
  while (first > 0 && links(chain[first - 1] as AuditEntry, chain[first] as AuditEntry)) first -= 1;
  const since = (chain[first] as AuditEntry).at;
  return foldAll({ reaches: false, since, spent: NONE_SPENT }, chain.slice(first), chain[first - 1]);
}
