// The service's transaction list, kept in the store as it is read, so the next report reads only what
// is new. Reads go page by page, newest first, at report priority (they never touch the slots kept
// for money and people, and leave one background slot to other background work), and every page is stored as it arrives: a read cut short keeps what it got.
//
// What is kept is a set of segments: runs of the list read without a gap, newest first. Positions are
// counted from the list's end (the list grows at the top), so a segment read last week is found again
// by arithmetic on today's count. A read starts at the top and, once a page holds the newest
// transaction of an older segment, jumps past that segment: only what is new, and what is older than
// anything kept, is read. Pending movements of the last days are read again where they stand, since
// their outcome is news. See docs/decisions/report-figures.md.

import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { untilAborted } from '../cngn/abort.js';
import type { Priority } from '../cngn/api.js';
import { CngnErrorCode, cngnCallError, RateBudgetError } from '../cngn/errors.js';
import type { TransactionPage } from '../cngn/schemas.js';
import type { Store } from '../store/index.js';
import { bookKey, dayKey, fileInDay, fileUndated, forget, oneOfEach, undatedDays } from './book-days.js';
import { realSleep, whenBudgetAllows } from './budget-wait.js';
import { lagosDayStart } from './figures.js';
import { lagosDay, movementOf } from './movements.js';
import type { Movement } from './types.js';

/** The one read of the service the book needs (CngnClient has it). */
export interface TransactionSource {
  getTransactions(options: {
    page?: number;
    limit?: number;
    priority?: Priority;
    signal?: AbortSignal | undefined;
  }): Promise<TransactionPage>;
}

export interface TransactionBookOptions {
  store: Store;
  source: TransactionSource;
  /** Whose transactions: the environment and API key they belong to (never the key itself). */
  scope: string;
  /** Transactions asked per page (the service's default is 10; larger pages save budget; default 1,000). */
  pageSize?: number;
  /** How long a read may wait for budget the service's limit frees; past it, it stops where it got. */
  maxWaitMs?: number;
  /** Pending movements younger than this are read again until they end. */
  chasePendingMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a read reached. */
export interface BookCoverage {
  /** The oldest transaction time kept without a gap up to now; undefined when nothing is listed. */
  reachedAt?: string | undefined;
  /** The list's end was seen: nothing older exists ("history complete back to reachedAt"). */
  listEnd: boolean;
  /** The read stopped before reaching what it was asked for (the budget ran out). */
  interrupted: boolean;
  /** The list's first page as this read found it (see readTop); undefined when the read ran none. */
  top?: string | undefined;
}

interface Segment {
  /** Reference of its newest transaction: a page holding it joins this segment. */
  topRef: string;
  /** Its oldest transaction's position counted from the list's end; undefined when no count came. */
  bottomFromEnd?: number | undefined;
  /** Time of its oldest transaction. */
  bottomAt: string;
  /** It runs to the list's end. */
  end: boolean;
}

interface BookState {
  /** Newest first, disjoint. */
  segments: Segment[];
}

// The sandbox serves up to 1,000 a page; the service publishes no maximum (a smaller cap is followed,
// see PageWalk). 1,000 reads a month of 10,000 movements in ten requests, within one minute's budget.
const DEFAULT_PAGE_SIZE = 1000;
const DAY_MS = 86_400_000;

/** What a first page holds: how many transactions there are, and each one's reference, status and amount. */
const topOf = (page: TransactionPage) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        page.pagination?.count ?? null,
        page.data.map((tx) => [tx.trx_ref, tx.status, tx.amount]),
      ]),
    )
    .digest('base64url');

// Movements are kept by Lagos day, so storing a page rewrites a few days and never a whole month of
// them (a month of 10,000 movements is megabytes of JSON; see docs/decisions/month-report-reads.md).
const stateKey = (scope: string) => `reports:book-runs:${scope}`;
/** A turn of the event loop: work that waits on this process (acks, answers) goes first. */
const nextTurn = () => setImmediate();
/** Transactions made into movements in one turn (a few ms on a loaded machine). */
const MOVEMENTS_A_TURN = 200;

export class TransactionBook {
  private readonly store: Store;
  private readonly source: TransactionSource;
  private readonly scope: string;
  private readonly pageSize: number;
  private readonly maxWaitMs: number;
  private readonly chasePendingMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** One read at a time in this process: a second report waits for it rather than spend budget twice. */
  private reading: Promise<BookCoverage> | undefined;

  constructor(options: TransactionBookOptions) {
    this.store = options.store;
    this.source = options.source;
    this.scope = options.scope;
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.maxWaitMs = options.maxWaitMs ?? 0;
    this.chasePendingMs = options.chasePendingMs ?? 7 * DAY_MS;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /**
   * Bring the book up to date, and back to `from` at least (or the list's end). Throws RateBudgetError
   * when not even the first page could be read within the wait. `deadline` (epoch ms) ends the wait
   * sooner than maxWaitMs would; `signal` ends the read at once (pages read by then are kept).
   */
  async read(from: Date, deadline?: number, signal?: AbortSignal): Promise<BookCoverage> {
    while (this.reading)
      await untilAborted(
        this.reading.catch(() => undefined),
        signal,
      );
    signal?.throwIfAborted();
    const reading = this.readFrom(from, this.waitUntil(deadline), signal);
    this.reading = reading;
    try {
      return await reading;
    } finally {
      this.reading = undefined;
    }
  }

  /**
   * The list's first page now, as a fingerprint to compare with a read's `top`: equal means nothing
   * was added to the list and nothing on its first page changed in between. One request, background,
   * waiting for budget until `deadline` at most.
   */
  async readTop(deadline?: number, signal?: AbortSignal): Promise<string> {
    const page = await this.fetch(1, this.waitUntil(deadline), signal);
    if (page instanceof RateBudgetError) throw page;
    return topOf(page);
  }

  /**
   * The kept movements from `from` (inclusive) to `to` (exclusive), oldest first. Read a day at a
   * time, with a turn of the event loop between two, so a month of movements never holds it long.
   * A reference kept under two days (an undated transaction filed before the book indexed them) is
   * given once: see oneOfEach.
   */
  async movements(from: Date, to: Date): Promise<Movement[]> {
    const last = lagosDay(new Date(to.getTime() - 1));
    const within: Movement[] = [];
    const place = new Map<string, number>();
    const filedOn = await undatedDays(this.store, this.scope);
    for (let day = lagosDay(from); day <= last; day = lagosDay(new Date(lagosDayStart(day, 1)))) {
      const kept = await this.store.get<Record<string, Movement>>(dayKey(this.scope, day));
      if (!kept) continue;
      const inRange = Object.values(kept).filter((m) => {
        const at = Date.parse(m.at);
        if (m.undated && (filedOn.get(m.reference) ?? day) !== day) return false;
        return at >= from.getTime() && at < to.getTime();
      });
      for (const movement of inRange.sort(byTimeThenReference)) oneOfEach(within, place, movement);
      await nextTurn();
    }
    return within;
  }

  /** What is kept without a gap from now back, as of the last read. */
  async coverage(): Promise<BookCoverage> {
    const top = (await this.state()).segments[0];
    return { reachedAt: top?.bottomAt, listEnd: top?.end ?? false, interrupted: false };
  }

  private async state(): Promise<BookState> {
    return (await this.store.get<BookState>(stateKey(this.scope))) ?? { segments: [] };
  }

  /** The read's own wait, ended sooner by the caller's deadline. */
  private waitUntil(deadline: number | undefined): number {
    return Math.min(this.now() + this.maxWaitMs, deadline ?? Number.POSITIVE_INFINITY);
  }

  private async readFrom(from: Date, deadline: number, signal?: AbortSignal): Promise<BookCoverage> {
    let top: string | undefined;
    const coverage = await this.readPages(from, deadline, signal, (page) => {
      top ??= topOf(page);
    });
    return { ...coverage, top };
  }

  private async readPages(
    from: Date,
    deadline: number,
    signal: AbortSignal | undefined,
    sawFirst: (page: TransactionPage) => void,
  ): Promise<BookCoverage> {
    const walk = new PageWalk((await this.state()).segments, this.pageSize, this.now);
    for (;;) {
      const pageNumber = walk.nextPage();
      const page = await this.fetch(pageNumber, deadline, signal);
      if (page instanceof RateBudgetError) {
        // Not even the first page: what is new is unknown, so no figure would be right.
        if (!walk.current) throw page;
        return this.stop(walk.current, walk.older, true);
      }
      if (pageNumber === 1) sawFirst(page);
      const done = await this.takePage(walk, page, pageNumber, from);
      if (done) return done;
      // The list's pages are many: the answers waiting on this process get a turn between two.
      await nextTurn();
    }
  }

  /** One page read: kept, placed in the walk and saved; what the read reached once it is done. */
  private async takePage(
    walk: PageWalk,
    page: TransactionPage,
    pageNumber: number,
    from: Date,
  ): Promise<BookCoverage | undefined> {
    const kept = await this.keep(page);
    const step = walk.take(page, pageNumber, kept);
    if (step === 'empty') return this.stop(walk.current, walk.older, false, true);
    const joined = walk.join(page);
    const pending = joined ? await this.pendingSince(joined.bottomAt) : [];
    for (const movement of pending) walk.chase(movement);
    const current = walk.skipKept(step.oldest, step.count);
    await this.save(current, walk.older);
    const reached = Date.parse(current.bottomAt) < from.getTime();
    if (step.isEnd || (!walk.chasing() && (current.end || reached))) {
      return this.stop(current, walk.older, false);
    }
    return undefined;
  }

  /** The page, or the refusal when the budget stayed spent past the deadline (the read stops there). */
  private async fetch(
    page: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<TransactionPage | RateBudgetError> {
    const call = () =>
      this.source.getTransactions({ page, limit: this.pageSize, priority: 'report', signal });
    try {
      return await whenBudgetAllows(call, { deadline, now: this.now, sleep: this.sleep, signal });
    } catch (error) {
      const refused = cngnCallError(error);
      if (refused?.code === CngnErrorCode.RateBudget) return refused;
      throw error;
    }
  }

  /**
   * Store the page's movements, each in its Lagos day; returns them in the list's order. A page of
   * 1,000 is made into movements a slice at a time, a turn of the event loop before each.
   */
  private async keep(page: TransactionPage): Promise<Movement[]> {
    const seenAt = new Date(this.now());
    const movements: Movement[] = [];
    for (let start = 0; start < page.data.length; start += MOVEMENTS_A_TURN) {
      await nextTurn();
      for (const tx of page.data.slice(start, start + MOVEMENTS_A_TURN))
        movements.push(movementOf(tx, seenAt));
    }
    // Every page: a dated movement may be one kept undated before.
    const stale = await fileUndated(this.store, this.scope, movements);
    for (const [day, list] of byLagosDay(movements)) {
      // The page's parts in turns of their own: a turn for the page, one for each day stored.
      await nextTurn();
      const key = dayKey(this.scope, day);
      await this.store.withLock(key, async () => {
        const map = (await this.store.get<Record<string, Movement>>(key)) ?? {};
        for (const movement of list) fileInDay(map, movement);
        await this.store.set(key, map);
      });
    }
    for (const { day, reference } of stale) await forget(this.store, this.scope, day, reference);
    return movements;
  }

  /** Kept pending movements from `since` on, within the chase window. */
  private async pendingSince(since: string): Promise<Movement[]> {
    const start = Math.max(Date.parse(since), this.now() - this.chasePendingMs);
    const kept = await this.movements(new Date(start), new Date(this.now() + DAY_MS));
    return kept.filter((m) => m.status === 'pending');
  }

  private async save(current: Segment, older: Segment[]): Promise<void> {
    await this.store.set<BookState>(stateKey(this.scope), { segments: [{ ...current }, ...older] });
  }

  private async stop(
    current: Segment | undefined,
    older: Segment[],
    interrupted: boolean,
    empty = false,
  ): Promise<BookCoverage> {
    if (current) await this.save(current, older);
    const top = current ?? older[0];
    return { reachedAt: top?.bottomAt, listEnd: (top?.end ?? false) || empty, interrupted };
  }
}

/** What one page told the walk. */
interface PageStep {
  /** Time of the page's oldest kept movement (or the segment's bottom when none was kept). */
  oldest: string;
  count: number | undefined;
  isEnd: boolean;
}

/**
 * A read's way down the list, page by page: the segment being read (`current`), the older segments
 * not yet joined, the references seen, and the pending movements of a joined segment still to be
 * read again where they stand.
 */
class PageWalk {
  current: Segment | undefined;
  readonly older: Segment[];
  private readonly seen = new Set<string>();
  /** The transactions seen (bookKey), to tell a page of them all (see see). */
  private readonly seenKeys = new Set<string>();
  /** The page read last, as its transactions' keys in order. */
  private lastPage = '';
  /** Pages in a row that were the page before them again, wholly seen. */
  private repeats = 0;
  private offset = 0;
  // Pages are counted in what the service gives: a service that caps the size gives fewer a page.
  private size: number;
  /** The service has been seen to serve `size` a page (read without pagination, see bareEnd). */
  private servedSize = false;
  /** Pending movements of a joined segment still to be read again, by reference, with their times. */
  private readonly chasingAt = new Map<string, number>();

  constructor(
    segments: Segment[],
    pageSize: number,
    private readonly now: () => number,
  ) {
    this.older = [...segments];
    this.size = pageSize;
  }

  nextPage(): number {
    return Math.floor(this.offset / this.size) + 1;
  }

  chasing(): boolean {
    return this.chasingAt.size > 0;
  }

  chase(movement: Movement): void {
    this.chasingAt.set(movement.reference, Date.parse(movement.at));
  }

  /** The page's place in the current segment; 'empty' when the list holds nothing there. */
  take(page: TransactionPage, pageNumber: number, kept: Movement[]): PageStep | 'empty' {
    const pageTop = (pageNumber - 1) * this.size;
    const count = page.pagination?.count;
    const repeated = this.see(kept, pageNumber);
    const isEnd = page.pagination ? page.pagination.isLastPage : repeated || this.bareEnd(page, pageNumber);
    if (pageNumber === 1 && !isEnd && page.data.length > 0 && page.data.length < this.size)
      this.size = page.data.length;
    const first = page.data[0];
    if (!first) {
      if (this.current) this.current.end = true;
      return 'empty';
    }
    const oldest = kept.at(-1)?.at ?? this.current?.bottomAt ?? new Date(this.now()).toISOString();
    this.current ??= { topRef: first.trx_ref, bottomAt: oldest, end: false };
    const current = this.current;
    const fromEnd = count === undefined ? undefined : count - (pageTop + page.data.length);
    if (Date.parse(oldest) <= Date.parse(current.bottomAt)) {
      current.bottomAt = oldest;
      current.bottomFromEnd = fromEnd;
    }
    if (isEnd) current.end = true;
    this.offset = pageTop + this.size;
    return { oldest, count, isEnd };
  }

  /**
   * Marks the page's movements seen; whether the walk is at the end of a service that ignores `page`:
   * twice in a row a page after the first was the page before it again. Once is no end: new
   * transactions arriving at the top shift the list, and a page's worth of them makes the next page
   * the one just read; a page only partly seen is the list shifted by fewer.
   */
  private see(kept: readonly Movement[], pageNumber: number): boolean {
    const keys = kept.map(bookKey);
    // As a set: a service that ignores `page` may list ties (one creation time) in another order.
    const page = JSON.stringify([...keys].sort());
    const again =
      pageNumber > 1 && kept.length > 0 && page === this.lastPage && keys.every((k) => this.seenKeys.has(k));
    this.repeats = again ? this.repeats + 1 : 0;
    this.lastPage = page;
    for (const movement of kept) {
      this.seen.add(movement.reference);
      this.seenKeys.add(bookKey(movement));
    }
    return this.repeats >= 2;
  }

  /**
   * Without pagination, a page is the list's last only when shorter than a page the service has been
   * seen to serve: a full one, or one after the first (a short first page may be a cap, not the end;
   * the next page tells, empty at the end). A service that ignores `page` repeats its one answer: the
   * walk ends there too (see).
   */
  private bareEnd(page: TransactionPage, pageNumber: number): boolean {
    const served =
      this.servedSize || page.data.length === this.size || (pageNumber > 1 && page.data.length > 0);
    this.servedSize = served;
    return served && page.data.length < this.size;
  }

  /** The older segment whose newest transaction is on this page, joined to the current one. */
  join(page: TransactionPage): Segment | undefined {
    const current = this.current as Segment;
    const refs = new Set(page.data.map((tx) => tx.trx_ref));
    const joined = this.older.findIndex((segment) => refs.has(segment.topRef));
    if (joined < 0) return undefined;
    const segment = this.older[joined] as Segment;
    this.older.splice(0, joined + 1);
    if (Date.parse(segment.bottomAt) < Date.parse(current.bottomAt)) {
      current.bottomAt = segment.bottomAt;
      current.bottomFromEnd = segment.bottomFromEnd;
    }
    current.end ||= segment.end;
    return segment;
  }

  /** Drops the chased movements seen; jumps past what is kept when nothing is chased. */
  skipKept(oldest: string, count: number | undefined): Segment {
    const current = this.current as Segment;
    for (const reference of this.seen) this.chasingAt.delete(reference);
    // One gone from where it stood (older than this page yet not on it) is not chased further.
    if (this.chasing() && Math.min(...this.chasingAt.values()) > Date.parse(oldest)) this.chasingAt.clear();
    // Past what is kept at once, unless a pending movement in it waits to be read again, or no
    // count came to say where it ends (then page by page, which only costs budget).
    if (!this.chasing() && count !== undefined && current.bottomFromEnd !== undefined) {
      this.offset = Math.max(this.offset, count - current.bottomFromEnd);
    }
    return current;
  }
}

/** Oldest first; ISO times of one form compare as text. */
function byTimeThenReference(a: Movement, b: Movement): number {
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  return a.reference.localeCompare(b.reference);
}

/** The movements by Lagos day; a list's page runs through a few days, so each day is worked out once. */
function byLagosDay(movements: readonly Movement[]): Map<string, Movement[]> {
  const byDay = new Map<string, Movement[]>();
  let range: { list: Movement[]; start: number; end: number } | undefined;
  for (const movement of movements) {
    const at = Date.parse(movement.at);
    if (!range || at < range.start || at >= range.end) {
      const day = lagosDay(movement.at);
      const list = byDay.get(day) ?? [];
      byDay.set(day, list);
      range = { list, start: lagosDayStart(day), end: lagosDayStart(day, 1) };
    }
    range.list.push(movement);
  }
  return byDay;
}
