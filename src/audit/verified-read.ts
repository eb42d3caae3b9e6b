// The grants and revocations of delegations as the signed audit chain records them, read only from
// entries that verify up to the signed head: a store writer without the audit signing key can mark a
// delegation request completed, or take a revocation step out of its history, but cannot put a grant
// into the chain, nor take a revocation out of it, unnoticed. Where the chain does not
// verify whole, only what the signed head vouches for (the entries linked back from it) is read, and
// delegations filed before the newest of them count for none: a revocation may have been taken out
// before it. So do those filed before a recorded break (a `head-unverified` finding: the bot signed on
// from a head it could not verify, over entries that may have been rewritten and linked again). A head
// behind the mark, or past it over another entry at the mark's seq, vouches for nothing. Read-only;
// cached by the head, a head that moved on read from where the cache ended, and every revocation read
// kept for the process's life (a grant only while the chain holds it).
// docs/decisions/revocation-on-the-signed-chain.md, docs/decisions/grant-on-the-signed-chain.md.
import { LONGEST_DELEGATION_MS } from '../access/index.js';
import { type ChainHead, entryHash, verifyChain } from './chain.js';
import { foreignEntryProblem, HEAD_UNVERIFIED } from './chain-end.js';
import { type AuditSeal, type HeadMark, headProblem, markProblem } from './signing.js';
import type { AuditEntry, ServiceEnvironment } from './types.js';

/** The action of a delegation request's step (and its audit entry) that ends the delegation. */
export const DELEGATION_REVOKED = 'delegation-revoked';

/**
 * The action of the step (and its audit entry) that moves a request to completed, whichever way its
 * outcome was learnt (the answer recorded, or an unanswered write found in the store: both name the
 * step after the state it reaches): for a delegation request, the grant.
 */
const COMPLETED_ACTION = 'completed';

/** The entry grants the delegation of its request: the move of a delegation request to completed. */
function grants(entry: AuditEntry): boolean {
  return entry.kind === 'delegation' && entry.action === COMPLETED_ACTION && entry.state === 'completed';
}

function revokes(entry: AuditEntry): boolean {
  return entry.kind === 'delegation' && entry.action === DELEGATION_REVOKED;
}

/**
 * The entry grants or revokes a delegation that has not ended by its own date (`until`, which its
 * request's filing seal covers) at `now`: a retention cut keeps it. No delegation runs longer than
 * LONGEST_DELEGATION_MS from its filing, which came before its grant and its revocation: an entry whose
 * end cannot be read is kept that long.
 */
export function holdsLiveDelegation(entry: AuditEntry, now: Date): boolean {
  if (!grants(entry) && !revokes(entry)) return false;
  const latest = Date.parse(entry.at) + LONGEST_DELEGATION_MS;
  const until = entry.figures?.payload.until;
  const end = typeof until === 'string' ? Date.parse(until) : Number.NaN;
  return now.getTime() < (Number.isNaN(end) ? latest : Math.min(end, latest));
}

/** A revocation as its entry records it: when, by whom (absent: the bot itself), why. */
interface ChainRevocation {
  at: string;
  actor?: string;
  note?: string;
}

/** A grant as its entry records it: when the delegation request completed. */
interface ChainGrant {
  at: string;
}

/** What the chain says of delegations. */
export interface ChainDelegations {
  /** The delegation request ids the verified entries record as completed: the delegations granted. */
  granted: ReadonlyMap<string, ChainGrant>;
  /** The delegation request ids the verified entries record as revoked. */
  revoked: ReadonlyMap<string, ChainRevocation>;
  /**
   * A delegation counts only when its request was filed after this (ms since the epoch): -Infinity when
   * the chain verifies whole, +Infinity when nothing in it verifies (no signed head, or one that fails).
   */
  filedAfter: number;
}

/** What is read of the log (AuditLog): the head, then the entries. */
interface ChainReader {
  head(environment: ServiceEnvironment): Promise<ChainHead | undefined>;
  entries(environment: ServiceEnvironment): Promise<AuditEntry[]>;
  latest(environment: ServiceEnvironment, count: number): Promise<AuditEntry[]>;
}

const NOTHING_VERIFIES: ChainDelegations = {
  granted: new Map(),
  revoked: new Map(),
  filedAfter: Number.POSITIVE_INFINITY,
};

/** The most new entries a moved head is read by from where the cache ended; past that, all again. */
const MOST_READ_ON = 500;

export class VerifiedDelegations {
  #cached: { head: ChainHead; read: ChainDelegations } | undefined;
  /** Every revocation read under a verified head (a delegation revoked stays revoked; granted again is another). */
  #ever: ReadonlyMap<string, ChainRevocation> = new Map();

  constructor(
    private readonly log: ChainReader,
    private readonly environment: ServiceEnvironment,
    private readonly seal: AuditSeal,
  ) {}

  /** The grants and revocations on the chain as it stands now (see the file's comment). */
  async read(): Promise<ChainDelegations> {
    // The mark as it was before the head was read: an append here may raise it past that head meanwhile.
    const mark = this.seal.marks.get(this.environment);
    const head = await this.log.head(this.environment);
    if (!head?.signature) return NOTHING_VERIFIES;
    const cached = this.#cached;
    // The cached head's signature was verified when it was cached, so the same head (signature and key
    // alike) is not verified again; the mark is checked at every read: a head rolled back fails here.
    const unchanged = cached !== undefined && sameHead(cached.head, head);
    const problem = unchanged
      ? markProblem(head, mark)
      : headProblem(this.seal, this.environment, head, mark);
    if (problem || foreignEntryProblem(head)) return NOTHING_VERIFIES;
    if (cached && unchanged) return cached.read;
    const found =
      (cached && (await this.readOn(cached.head, cached.read, head))) ??
      delegationsOf(await this.log.entries(this.environment), head, mark);
    if (found === NOTHING_VERIFIES) return found;
    // A revocation read under a verified head stays read: one taken out of the chain later (a rollback
    // behind a mark this process has not seen) does not bring its delegation back. A grant is not kept:
    // one the chain no longer holds counts for none.
    const read = { ...found, revoked: withRevocations(this.#ever, [], found.revoked) };
    this.#ever = read.revoked;
    this.#cached = { head, read };
    this.seal.marks.raise(this.environment, head, new Date());
    return read;
  }

  /**
   * The entries from the cached head to `head`, when they link on from it in the same generation: what
   * was read before stays what it was (its entries verified then). Undefined: read everything again.
   */
  private async readOn(
    from: ChainHead,
    known: ChainDelegations,
    head: ChainHead,
  ): Promise<ChainDelegations | undefined> {
    const count = head.seq - from.seq;
    if (count <= 0 || count > MOST_READ_ON || (from.generation ?? 0) !== (head.generation ?? 0)) {
      return undefined;
    }
    const latest = withHeadEntry(await this.log.latest(this.environment, count + 16), head);
    const start = latest.findLastIndex((e) => e.seq === from.seq && e.hash === from.hash);
    const end = latest.findLastIndex((e) => e.seq === head.seq && e.hash === head.hash);
    if (start < 0 || end - start !== count) return undefined;
    const fresh = latest.slice(start, end + 1);
    // The newest entry must be the one the signed head names, not another under its seq and hash.
    if (entryHash(fresh.at(-1) as AuditEntry) !== head.hash) return undefined;
    if (!fresh.every((entry, i) => i === 0 || links(fresh[i - 1] as AuditEntry, entry))) return undefined;
    const added = fresh.slice(1);
    return {
      granted: withGrants(known.granted, added),
      revoked: withRevocations(known.revoked, added),
      filedAfter: Math.max(known.filedAfter, lastFinding(added)),
    };
  }
}

/**
 * The grants and revocations in `entries` up to the signed `head`: all of them when the chain verifies
 * whole; else those of the entries linked back from the head, with the newest time among them.
 */
function delegationsOf(
  listed: readonly AuditEntry[],
  head: ChainHead,
  mark: HeadMark | undefined,
): ChainDelegations {
  const entries = withHeadEntry(listed, head);
  const end = entries.findLastIndex((e) => e.seq === head.seq && e.hash === head.hash);
  const last = entries[end];
  if (!last || entryHash(last) !== last.hash) return NOTHING_VERIFIES;
  const chain = entries.slice(0, end + 1);
  // A head at or past the mark holds the mark's entry, else it is another chain (a rollback and fork).
  if (mark && !holdsMark(chain, mark)) return NOTHING_VERIFIES;
  if (verifyChain(chain, head).ok) return stepsOf(chain, lastFinding(chain));
  let first = end;
  while (first > 0 && links(chain[first - 1] as AuditEntry, chain[first] as AuditEntry)) first -= 1;
  const vouched = chain.slice(first);
  return stepsOf(vouched, newestTime(vouched));
}

/** The grants and revocations `entries` record, for delegations filed after `filedAfter`. */
function stepsOf(entries: readonly AuditEntry[], filedAfter: number): ChainDelegations {
  return {
    granted: withGrants(new Map(), entries),
    revoked: withRevocations(new Map(), entries),
    filedAfter,
  };
}

/**
 * The newest time among `entries` and their last finding; a loop, since spreading a long chain into
 * Math.max overflows the stack.
 */
function newestTime(entries: readonly AuditEntry[]): number {
  let newest = lastFinding(entries);
  for (const entry of entries) newest = Math.max(newest, Date.parse(entry.at));
  return newest;
}

/**
 * The chain holds the mark's entry at the mark's seq; when no entry is at that seq, it must have been
 * cut by retention (every entry listed is past it).
 */
export function holdsMark(chain: readonly AuditEntry[], mark: HeadMark): boolean {
  const entry = chain.findLast((e) => e.seq === mark.seq);
  if (!entry) return chain.every((e) => e.seq === undefined || e.seq > mark.seq);
  return entry.hash === mark.hash && entryHash(entry) === mark.hash;
}

/**
 * When the newest `head-unverified` finding among `entries` was recorded (-Infinity: none): the bot
 * signed on from a head it could not verify, so what came before may have been rewritten, links and all.
 */
function lastFinding(entries: readonly AuditEntry[]): number {
  const found = entries.findLast((e) => e.kind === 'audit' && e.action === HEAD_UNVERIFIED);
  return found ? Date.parse(found.at) : Number.NEGATIVE_INFINITY;
}

/** `entry` follows `before` in the chain: `before` hashes as it reads, and `entry` names it. */
export function links(before: AuditEntry, entry: AuditEntry): boolean {
  return (
    before.hash !== undefined &&
    before.seq !== undefined &&
    entryHash(before) === before.hash &&
    entry.seq === before.seq + 1 &&
    entry.prev === before.hash
  );
}

/**
 * The list with the head's own entry at its end when an append moved the head and has not put the
 * entry in the list yet (the head carries it; foreignEntryProblem checked it is the one it names).
 */
export function withHeadEntry(entries: readonly AuditEntry[], head: ChainHead): AuditEntry[] {
  const holds = entries.some((e) => e.seq === head.seq && e.hash === head.hash);
  return holds || !head.entry ? [...entries] : [...entries, head.entry];
}

function withRevocations(
  known: ReadonlyMap<string, ChainRevocation>,
  entries: readonly AuditEntry[],
  more: ReadonlyMap<string, ChainRevocation> = new Map(),
): ReadonlyMap<string, ChainRevocation> {
  const revoked = new Map(known);
  for (const [id, revocation] of more) if (!revoked.has(id)) revoked.set(id, revocation);
  for (const entry of entries) {
    const id = entry.requestId;
    if (!revokes(entry) || !id || revoked.has(id)) continue;
    revoked.set(id, {
      at: entry.at,
      ...(entry.actor ? { actor: entry.actor } : {}),
      ...(entry.note ? { note: entry.note } : {}),
    });
  }
  return revoked;
}

function withGrants(
  known: ReadonlyMap<string, ChainGrant>,
  entries: readonly AuditEntry[],
): ReadonlyMap<string, ChainGrant> {
  const granted = new Map(known);
  for (const entry of entries) {
    const id = entry.requestId;
    if (grants(entry) && id && !granted.has(id)) granted.set(id, { at: entry.at });
  }
  return granted;
}

/** The same head: nobody appended, cut or signed since (seq, hash, generation, signature and key alike). */
export function sameHead(a: ChainHead, b: ChainHead): boolean {
  return (
    a.seq === b.seq &&
    a.hash === b.hash &&
    (a.generation ?? 0) === (b.generation ?? 0) &&
    a.signature?.value === b.signature?.value &&
    a.signature?.key === b.signature?.key
  );
}
