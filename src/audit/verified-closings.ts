// Which requests the signed audit chain records as closed (completed, failed, rejected, cancelled,
// expired), read only from entries that verify up to the signed head. Every step of a request is
// appended to the chain before the request is written, so a request the bot closed is closed on the
// chain, whatever the store says of it since: a store writer without the audit signing key can set a
// completed withdrawal back to approved, but cannot take its closing entry out of the chain unnoticed.
// A request counts as still open only when the trusted part of the chain holds its filing (then it holds
// every later step of it too): the part the signed head vouches for (all of it when the chain verifies
// whole; else the entries linked back from the head), after its newest `head-unverified` finding (the
// bot signed on from a head it could not verify: entries before it may have been rewritten, links and
// all). A request filed before that (cut by retention, before a break or a finding) cannot be shown
// open. A request whose last claim (its `executing` entry) no later entry of it hands back may have
// been called; one with the entry appended right before its call was called. It also tells whether a
// process's own claim is the request's last step of its claim, or comes right before its own call's
// entry (ownClaimHolds). Read-only; cached by the head, a head that moved on read from where the
// cache ended; reads one at a time, so two never apply the same new entries over each other.
// docs/decisions/closed-on-the-signed-chain.md.
import { type ChainHead, entryHash, verifyChain } from './chain.js';
import { foreignEntryProblem, HEAD_UNVERIFIED } from './chain-end.js';
import { type AuditSeal, type HeadMark, headProblem, markProblem } from './signing.js';
import type { AuditEntry, RequestState, ServiceEnvironment } from './types.js';
import {
  type ChainReader,
  holdsMark,
  links,
  MOST_READ_ON,
  sameHead,
  withHeadEntry,
} from './verified-read.js';

/** The states a request never leaves. */
const CLOSING_STATES: ReadonlySet<RequestState> = new Set([
  'completed',
  'failed',
  'rejected',
  'cancelled',
  'expired',
]);

/** The states showing the service call was made (and not yet closed). */
const CALLED_STATES: ReadonlySet<RequestState> = new Set(['sent', 'outcome-unknown']);

/** The step that claims a request's one service call (approvals/claim-execution.ts). */
const CLAIM_ACTION = 'executing';

/**
 * The entry the bot appends right before a service call (approvals/closed-on-chain.ts): the call may
 * have been made from then on, so it reads as called, whatever hand-back follows.
 */
export const CALL_ACTION = 'calling-the-service';

/**
 * The bot's own steps that hand a claim back to approved when it certainly sent nothing (before its
 * write-ahead mark): a lapsed claim released by the tracker, a claim held by a freeze (approvals/).
 */
export const CLAIM_HAND_BACKS: ReadonlySet<string> = new Set(['released', 'held-frozen']);

/**
 * The bot's own step giving back a claim whose write failed (approvals/claim-execution.ts): that
 * process never marks or calls under it. It hands back only the claim it names (its round and
 * generation), and only while that claim is the request's last claim, hand-back, call or settling on
 * the chain.
 */
export const CLAIM_NOT_TAKEN = 'claim-not-taken';

/** A request's first closing (or called) step, or its last claim, as its entry records it. */
interface ChainClosing {
  state: RequestState;
  at: string;
}

/**
 * What the chain says of one request: closed (by its first closing entry), called (no closing, but an
 * entry showing its service call was made: sent, or sent with no answer), claimed (neither, and its last
 * claim is not handed back: the write-ahead mark is not on the chain, so that claim's call may have been
 * made), open (its filing is in the trusted part, and none of these), or unknown (its filing is not: it
 * cannot be shown open).
 */
export type ChainWord =
  | { closed: ChainClosing }
  | { called: ChainClosing }
  | { claimed: ChainClosing }
  | 'open'
  | 'unknown';

/**
 * A step that claims a request's call, hands the claim back, begins the call, or settles the request
 * (a closing, or a call's outcome), as its entry is.
 */
interface ClaimMove {
  move: 'claim' | 'hand-back' | 'call' | 'settle';
  step: number | undefined;
  at: string;
  seq: number | undefined;
  hash: string | undefined;
  claim: AuditEntry['claim'];
}

/** A process's own claim, as its history holds it: the step's index and time, its round and generation. */
export interface OwnClaim {
  step: number;
  at: string;
  claim?: AuditEntry['claim'];
}

/** A process's own call entry, as the append returned it. */
export interface OwnCall {
  seq?: number | undefined;
  hash?: string | undefined;
}

/**
 * What a read found: closings and claims anywhere in what verifies; filings only in the trusted part.
 * `claimed` holds each request's last claim that no later entry of it hands back; `moves` each
 * request's claims, hand-backs and call entries, in chain order.
 */
interface Closings {
  closed: Map<string, ChainClosing>;
  called: Map<string, ChainClosing>;
  claimed: Map<string, ChainClosing>;
  moves: Map<string, ClaimMove[]>;
  filed: Set<string>;
}

export class VerifiedClosings {
  #cached: { head: ChainHead; read: Closings } | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: ChainReader,
    private readonly environment: ServiceEnvironment,
    private readonly seal: AuditSeal,
  ) {}

  /** What the chain as it stands now says of `requestId` (see the file's comment). */
  async wordOn(requestId: string): Promise<ChainWord> {
    const read = await this.read();
    const closed = read?.closed.get(requestId);
    if (closed) return { closed };
    const called = read?.called.get(requestId);
    if (called) return { called };
    const claimed = read?.claimed.get(requestId);
    if (claimed) return { claimed };
    return read?.filed.has(requestId) ? 'open' : 'unknown';
  }

  /**
   * Whether `own` claim (the step and time of the process's claim of `requestId`) is the request's
   * last claim, hand-back, call entry or settling on the chain; or, given `call` (the entry the process
   * appended right before its call), the one right before that entry: no hand-back, other claim, other
   * call or settling (the tracker's outcome unknown, a closing) between them. False too when the chain
   * does not verify or does not hold them.
   */
  async ownClaimHolds(requestId: string, own: OwnClaim, call?: OwnCall): Promise<boolean> {
    const moves = (await this.read())?.moves.get(requestId) ?? [];
    const end = call
      ? moves.findIndex((m) => m.move === 'call' && m.seq === call.seq && m.hash === call.hash)
      : moves.length;
    const before = end > 0 ? moves[end - 1] : undefined;
    return before?.move === 'claim' && sameClaim(before, own);
  }

  /** The closings read, one read at a time; undefined when nothing verifies (no request is shown open). */
  private read(): Promise<Closings | undefined> {
    const next = this.#queue.then(
      () => this.readNow(),
      () => this.readNow(),
    );
    this.#queue = next.catch(() => undefined);
    return next;
  }

  private async readNow(): Promise<Closings | undefined> {
    // The mark as it was before the head was read: an append here may raise it past that head meanwhile.
    const mark = this.seal.marks.get(this.environment);
    const head = await this.log.head(this.environment);
    if (!head?.signature) return undefined;
    const cached = this.#cached;
    const unchanged = cached !== undefined && sameHead(cached.head, head);
    const problem = unchanged
      ? markProblem(head, mark)
      : headProblem(this.seal, this.environment, head, mark);
    if (problem || foreignEntryProblem(head)) return undefined;
    if (cached && unchanged) return cached.read;
    const read =
      (cached && (await this.readOn(cached.head, cached.read, head))) ??
      closingsOf(await this.log.entries(this.environment), head, mark);
    if (!read) return undefined;
    this.#cached = { head, read };
    this.seal.marks.raise(this.environment, head, new Date());
    return read;
  }

  /**
   * The entries from the cached head to `head`, added to what was read, when they link on from it in the
   * same generation (what was read before verified then). Undefined: read everything again.
   */
  private async readOn(from: ChainHead, known: Closings, head: ChainHead): Promise<Closings | undefined> {
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
    // Only this process's cache holds `known`, and reads run one at a time: added to in place.
    addSteps(known, fresh.slice(1));
    return known;
  }
}

/**
 * The closings and filings in `listed` up to the signed `head`: of all of it when the chain verifies
 * whole, else of the entries linked back from the head. Undefined when the head's entry is not there,
 * or the chain does not hold the mark's entry (a rollback or a fork).
 */
function closingsOf(
  listed: readonly AuditEntry[],
  head: ChainHead,
  mark: HeadMark | undefined,
): Closings | undefined {
  const entries = withHeadEntry(listed, head);
  const end = entries.findLastIndex((e) => e.seq === head.seq && e.hash === head.hash);
  const last = entries[end];
  if (!last || entryHash(last) !== last.hash) return undefined;
  const chain = entries.slice(0, end + 1);
  if (mark && !holdsMark(chain, mark)) return undefined;
  let first = 0;
  if (!verifyChain(chain, head).ok) {
    first = end;
    while (first > 0 && links(chain[first - 1] as AuditEntry, chain[first] as AuditEntry)) first -= 1;
  }
  const read: Closings = {
    closed: new Map(),
    called: new Map(),
    claimed: new Map(),
    moves: new Map(),
    filed: new Set(),
  };
  addSteps(read, chain.slice(first));
  return read;
}

/**
 * Adds the closings and filings of `entries` (in chain order) to `read`. A `head-unverified` finding
 * forgets the filings before it: what came before may have been rewritten. Closings are never
 * forgotten: a closing entry, even one whose request write never landed, keeps its request closed; nor
 * are the entries showing a request's call was made.
 */
function addSteps(read: Closings, entries: readonly AuditEntry[]): void {
  for (const entry of entries) {
    if (entry.kind === 'audit' && entry.action === HEAD_UNVERIFIED) read.filed.clear();
    const id = entry.requestId;
    if (!id) continue;
    // The filing is the request's first step (step 0): every later step's entry comes after it.
    if (entry.step === 0) read.filed.add(id);
    noteClaim(read, id, entry);
    const seen = entry.action === CALL_ACTION ? read.called : stepsOf(read, entry.state);
    // A call's own entry (its state still executing) gives way to the state the call then reached.
    if (entry.state && seen && (!seen.has(id) || seen.get(id)?.state === 'executing')) {
      seen.set(id, { state: entry.state, at: entry.at });
    }
  }
}

/**
 * A claim remembered, or handed back by the bot's own step back to approved; a call entry or a
 * settling noted.
 */
function noteClaim(read: Closings, id: string, entry: AuditEntry): void {
  const moves = read.moves.get(id) ?? [];
  const move = moveOf(entry, moves);
  if (!move) return;
  const { step, at, seq, hash, claim } = entry;
  moves.push({ move, step, at, seq, hash, claim });
  read.moves.set(id, moves);
  if (move === 'claim') read.claimed.set(id, { state: 'executing', at });
  else if (move === 'hand-back') read.claimed.delete(id);
}

/**
 * What the entry does to a request's claim, if anything, given the request's moves before it. A
 * claim given back untaken hands back only the claim it names, when that claim is the request's last
 * move (claim, hand-back, call or settling); naming any other (another process's claim since, one a
 * settling ended, or one never appended) it does nothing.
 */
function moveOf(entry: AuditEntry, moves: readonly ClaimMove[]): ClaimMove['move'] | undefined {
  if (entry.action === CALL_ACTION) return 'call';
  if (entry.state === 'executing' && entry.action === CLAIM_ACTION) return 'claim';
  // A closing or a call's outcome (the tracker's `outcome-unknown`, say) ends whatever claim came before.
  if (entry.state && (CLOSING_STATES.has(entry.state) || CALLED_STATES.has(entry.state))) return 'settle';
  if (entry.state !== 'approved') return undefined;
  if (CLAIM_HAND_BACKS.has(entry.action)) return 'hand-back';
  if (entry.action !== CLAIM_NOT_TAKEN || !entry.claim) return undefined;
  const last = moves.at(-1);
  const named = last?.move === 'claim' && last.claim && sameRound(last.claim, entry.claim);
  return named ? 'hand-back' : undefined;
}

/** The same claim key: round and generation. */
function sameRound(a: NonNullable<AuditEntry['claim']>, b: NonNullable<AuditEntry['claim']>): boolean {
  return a.round === b.round && a.generation === b.generation;
}

/**
 * Whether the chain's claim is `own`: the same step and time, and round and generation when both name
 * them.
 */
function sameClaim(move: ClaimMove, own: OwnClaim): boolean {
  if (move.step !== own.step || move.at !== own.at) return false;
  return !move.claim || !own.claim || sameRound(move.claim, own.claim);
}

/** Where a step in `state` is kept: closings, calls made, or nowhere. */
function stepsOf(read: Closings, state: RequestState | undefined): Map<string, ChainClosing> | undefined {
  if (!state) return undefined;
  if (CLOSING_STATES.has(state)) return read.closed;
  return CALLED_STATES.has(state) ? read.called : undefined;
}
