// Where the limits are counted from: per environment, one value in the store listing the requests
// that may count in the window (limits.ts, WindowEntry), read with their requests in one store request.
// A decision that depends on it (a filing's tier and daily limit, a final approval's daily limit) is
// made under one lock per environment, shared by every replica, and committed by a compare-and-set of
// the index before the request is written. The lock puts decisions one after the other; the
// compare-and-set covers a holder that stalled past the lock's lease: if another replica committed
// meanwhile, the decision is made again on the fresh figures. Two decisions never both slip under.
//
// Lock order: a request's lock, then the delegations lock, then this one, never the other way round.
// Filing takes only this one (its request is new).
import { Money } from '../format/money.js';
import type { Store } from '../store/index.js';
import { ApprovalErrorCode } from './error-codes.js';
import {
  type Counted,
  countWindow,
  destinationOf,
  keptEntries,
  LimitExceededError,
  type LimitSettings,
  movesAmount,
  overDailyLimit,
  tierFor,
  type WindowEntry,
  windowEntry,
} from './limits.js';
import type { ServiceEnvironment } from './ports.js';
import { earlierRequests } from './same-request.js';
import type { ApprovalRequest, EarlierRequests, LimitFigures, RequestDraft, TierBasis } from './types.js';

const indexKey = (environment: ServiceEnvironment) => `approvals:limits:${environment}`;
const lockName = (environment: ServiceEnvironment) => `approval-limits:${environment}`;

interface StoredIndex {
  entries: WindowEntry[];
}

/** How often a decision is made again after its commit lost; more means a fight, and an error. */
const MAX_DECISION_RUNS = 5;

/** The commit found the index changed since it was read: the decision is made again. */
class IndexChangedError extends Error {
  override name = 'IndexChangedError';
  readonly code = ApprovalErrorCode.LimitIndexChanged;
}

/** The window as read under the lock: what counts, and the commit of the next index. */
export interface LimitWindow {
  now: Date;
  counted: Counted[];
  /**
   * The entries that may still count (those older than the window, or ended unsent, left out; one a
   * person resolved failed stays while inside the window: limits.ts, keptEntries).
   */
  kept: WindowEntry[];
  /** Write `entries` as the index, only over the index as read; else the decision runs again. */
  commit(entries: WindowEntry[]): Promise<void>;
}

export class LimitIndex {
  constructor(
    private readonly store: Store,
    private readonly environment: ServiceEnvironment,
    readonly settings: LimitSettings,
    private readonly load: (ids: string[]) => Promise<Array<ApprovalRequest | undefined>>,
    private readonly now: () => Date,
  ) {}

  /** What counts now, read without the lock (for showing; decisions use `locked`). */
  async counted(): Promise<Counted[]> {
    return (await this.read()).counted;
  }

  /** The requests that count now, as read without the lock (for checks before filing). */
  async requests(): Promise<ApprovalRequest[]> {
    return (await this.read()).counted.flatMap((c) => (c.request ? [c.request] : []));
  }

  /** Read, decide and commit under the environment's limits lock; again on a fresh read if the commit lost. */
  async locked<T>(decide: (window: LimitWindow) => Promise<T>): Promise<T> {
    for (let run = 1; ; run++) {
      try {
        return await this.store.withLock(lockName(this.environment), async () => decide(await this.read()));
      } catch (error) {
        if (!(error instanceof IndexChangedError) || run >= MAX_DECISION_RUNS) throw error;
      }
    }
  }

  /**
   * File a request that moves an amount: its tier is read from the largest of its amount and the
   * window's totals for its requester and its destination, and the daily limit is checked (everything
   * that counts, waiting for approval too, plus this); the window's requests to its destination are
   * given to `build` (the same payment filed before, one not sent yet: same-request.ts); its entry is
   * committed, then it is saved. Throws LimitExceededError (nothing saved) when it would pass the
   * daily limit, and whatever `build` throws (nothing saved either).
   */
  file(
    draft: RequestDraft,
    amount: Money,
    how: {
      approvalsFor: (total: Money) => number;
      build: (
        now: Date,
        tier: { amount: Money; basis?: TierBasis },
        earlier: EarlierRequests,
      ) => ApprovalRequest;
      save: (request: ApprovalRequest) => Promise<ApprovalRequest>;
    },
  ): Promise<ApprovalRequest> {
    return this.locked(async (window) => {
      const filing = { amount, requester: draft.requester, destination: destinationOf(draft) };
      const tier = tierFor(window.counted, filing, this.settings.windowMs, how.approvalsFor);
      const over = overDailyLimit(window.counted, amount, this.settings, 'filing');
      if (over) throw new LimitExceededError(over);
      const requests = window.counted.map((c) => c.request);
      const request = how.build(window.now, tier, earlierRequests(draft, requests, window.now));
      await window.commit([...window.kept, windowEntry(request)]);
      return how.save(request);
    });
  }

  /**
   * A final approval (`next` is approved, over `read`) of a request that moves an amount, with a daily
   * limit set, is written (`write`) only if what is approved or further on in the window, plus this,
   * stays within it; the entry is marked approved first, so replicas deciding meanwhile count it, for
   * as long as the request is still `read` (after that the write cannot land). Any other approval is
   * written as is. Refused: nothing written, and the figures are returned.
   */
  async approve(
    read: ApprovalRequest,
    next: ApprovalRequest,
    write: () => Promise<void>,
    signal?: AbortSignal,
  ): Promise<LimitFigures | undefined> {
    if (next.state !== 'approved' || !next.amount || !movesAmount(next.kind) || !this.settings.dailyLimit) {
      await write();
      return undefined;
    }
    const amount = Money.parseDecimal(next.amount);
    return this.locked(async (window) => {
      const over = overDailyLimit(window.counted, amount, this.settings, 'approval', next.id);
      signal?.throwIfAborted();
      const own = window.kept.find((entry) => entry.id === next.id);
      const others = window.kept.filter((entry) => entry.id !== next.id);
      if (over) {
        // A mark left by an earlier try, whose write of the request was overtaken, no longer holds.
        if (own?.approvedRound !== undefined) {
          const { approvedRound: _unmarked, approvedSteps: _steps, ...unmarked } = own;
          await window.commit([...others, unmarked]);
        }
        return over;
      }
      const mark = { approvedRound: next.round, approvedSteps: read.history.length };
      await window.commit([...others, { ...(own ?? windowEntry(next)), ...mark }]);
      await write();
      return undefined;
    });
  }

  private async read(): Promise<LimitWindow> {
    const key = indexKey(this.environment);
    const stored = await this.store.get<StoredIndex>(key);
    const entries = stored?.entries ?? [];
    const requests = entries.length > 0 ? await this.load(entries.map((e) => e.id)) : [];
    const now = this.now();
    const counted = countWindow(entries, requests, now, this.settings.windowMs);
    return {
      now,
      counted,
      kept: keptEntries(entries, requests, now, this.settings.windowMs),
      commit: async (next) => {
        if (!(await this.store.compareAndSet<StoredIndex>(key, stored, { entries: next }))) {
          throw new IndexChangedError('the limits index changed since it was read; deciding again');
        }
      },
    };
  }
}
