// After a person's stop (Reject, Cancel) of an approved request is recorded, the request is looked for
// once in the service's transaction list, in the background, never in the click: a store restored from
// a backup taken while it was approved does not know it went out since, and a payment made outside the
// bot (by hand while sends were frozen, or by someone else) looks the same. Neither can be told apart
// from the list, so a match changes nothing on the request: the stop stands, and a person is alerted
// (a notice on the request, said in its thread and in the alerts channel) to check with the service and
// correct the books and limits by hand. Once per request: the notice is written under the request's
// lock only when the request does not have it yet. A stop is queued under the request's lock before
// it is written, so none is persisted or told without its lookup. The queued requests are looked up
// together, from one read of the list per sweep. A read our limiter refused (the budget spent) is not
// a try; a failed read, store read or notice is, and after a few the lookup is given up with a notice
// for a person (said in the alerts channel too), as is a read that did not reach back to the approval;
// a give-up stays queued until its notice is written (docs/decisions/stop-an-approved-request.md).

import type { Store } from '../store/index.js';
import { bindingProblem, type ServiceBinding } from './binding.js';
import type { CoreSections } from './core-sections.js';
import type { LateLookupOptions } from './late-lookup.js';
import type { CustodyGateway, CustodyTransaction } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import { hasNotice } from './state-machine.js';
import {
  CLOCK_SKEW_MS,
  matchingTransactions,
  type ReadBack,
  readBackOf,
  transactionsSince,
} from './transaction-match.js';
import { type ApprovalRequest, type EngineLog, MONEY_KINDS } from './types.js';

/** The notice a stopped request gets when the service lists a transaction that matches it. */
export const STOPPED_BUT_FOUND_ACTION = 'stopped-but-found';
/** The notice a stopped request gets when its lookup could not be made, or not far enough back. */
export const STOP_NOT_CHECKED_ACTION = 'stop-not-checked';

/** The stopped requests still to look up; each one's tries in `approvals:stop-lookup:<id>`. */
const TO_LOOK_UP = 'approvals:stop-lookups';
/** How many times a lookup that failed is made before it is given up (with a notice). */
const STOP_LOOKUP_TRIES = 3;
const RETRY_MS = 60_000;
/** One replica looks the queued requests up at a time (the reads share the service's budget). */
const LEASE = 'approvals:stop-lookup-lease';
const LEASE_MS = 120_000;
/** The code of a read our own limiter refused (the budget is spent; nothing was sent): not a try. */
const BUDGET_REFUSED = 'cngn_rate_budget';

interface Tries {
  count: number;
  nextAt: string;
  /** Given up, and its notice not written yet: only the notice is tried again, at `nextAt`. */
  givenUp?: true;
}

/** A queued request due for its lookup. */
interface Due {
  request: ApprovalRequest;
  tries: Tries | undefined;
  from: number;
}

export interface StopLookupDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  store: Store;
  custody: CustodyGateway;
  binding: () => ServiceBinding;
  now: () => Date;
  owner: string;
  log?: EngineLog | undefined;
}

export class StopLookup {
  private readonly readBack: ReadBack;
  /**
   * Until when this process reads nothing after the budget refused a read: a refusal after the first
   * page comes once pages were already asked, and a read again at every sweep would spend them again.
   */
  private budgetWaitUntil = 0;

  constructor(
    private readonly deps: StopLookupDeps,
    options: LateLookupOptions = {},
  ) {
    this.readBack = readBackOf(options);
  }

  /** A request just stopped by a person (the recorded stop): worth a lookup when it was approved. */
  static stoppedWhileApproved(request: ApprovalRequest): boolean {
    if (request.state !== 'rejected' && request.state !== 'cancelled') return false;
    if (!MONEY_KINDS.has(request.kind)) return false;
    const stop = request.history.findLastIndex((step) => step.action === request.state);
    return stop > 0 && request.history[stop - 1]?.state === 'approved';
  }

  /** Queued (as a stop does before it is written) and the queued requests looked up now. */
  async afterStop(id: string): Promise<void> {
    await queueStopLookup(this.deps.store, id);
    await this.sweep();
  }

  /**
   * Each sweep: the queued stopped requests still to look up, all from one read of the list (back
   * to the earliest approval among them), by one replica at a time.
   */
  async sweep(): Promise<void> {
    const { store, owner } = this.deps;
    if (!(await store.setIfAbsent(LEASE, owner, LEASE_MS))) return;
    try {
      await this.sweepHeld();
    } finally {
      await store.compareAndDelete(LEASE, owner);
    }
  }

  private async sweepHeld(): Promise<void> {
    const due: Due[] = [];
    for (const id of await this.deps.store.setMembers(TO_LOOK_UP)) {
      try {
        const one = await this.dueOf(id);
        if (one) due.push(one);
      } catch (error) {
        await this.failedOrLogged(id, undefined, error);
      }
    }
    if (due.length === 0 || this.deps.now().getTime() < this.budgetWaitUntil) return;
    const from = Math.min(...due.map((d) => d.from));
    let read: Awaited<ReturnType<typeof transactionsSince>>;
    try {
      // A background read: it never takes the money calls' share of the service's budget.
      read = await transactionsSince(this.deps.custody, from, this.readBack);
    } catch (error) {
      if ((error as { code?: unknown } | undefined)?.code === BUDGET_REFUSED) {
        // Our limiter refused: not a try; read again a minute on (never at every sweep).
        this.budgetWaitUntil = this.deps.now().getTime() + RETRY_MS;
        this.deps.log?.info?.('stopped requests not looked up: the service budget is spent; a minute on', {
          requests: due.length,
        });
        return;
      }
      for (const one of due) await this.failedOrLogged(one.request.id, one.tries, error);
      return;
    }
    for (const one of due) {
      try {
        await this.lookedUp(one, read);
      } catch (error) {
        await this.failedOrLogged(one.request.id, one.tries, error);
      }
    }
  }

  /** The queued request when its lookup is due; one with nothing to look up leaves the queue. */
  private async dueOf(id: string): Promise<Due | undefined> {
    const { repo, store, now, log } = this.deps;
    const request = await repo.get(id);
    // Queued just before its stop is written (close-by-person.ts): still approved, it stays queued
    // until the stop lands or it goes another way.
    if (request?.state === 'approved') return undefined;
    if (
      !request ||
      !StopLookup.stoppedWhileApproved(request) ||
      hasNotice(request, STOPPED_BUT_FOUND_ACTION) ||
      hasNotice(request, STOP_NOT_CHECKED_ACTION)
    ) {
      await this.done(id, request);
      return undefined;
    }
    const problem = bindingProblem(request, this.deps.binding());
    if (problem) {
      log?.warn('stopped request not looked up: it was filed against another key or environment', {
        requestId: id,
        problem: String(problem),
      });
      await this.done(id, request);
      return undefined;
    }
    const tries = await store.get<Tries>(triesKey(id));
    if (tries && Date.parse(tries.nextAt) > now().getTime()) return undefined;
    if (tries?.givenUp) {
      await this.giveUp(request, tries.count);
      return undefined;
    }
    const from = Date.parse(request.approvals.at(-1)?.at ?? request.createdAt) - CLOCK_SKEW_MS;
    return { request, tries, from };
  }

  /** Matched against the list read: a match alerts a person; a read not reaching back far enough too. */
  private async lookedUp({ request, from }: Due, read: Awaited<ReturnType<typeof transactionsSince>>) {
    const window = { from, to: this.deps.now().getTime() + CLOCK_SKEW_MS };
    const { matches } = await matchingTransactions(this.deps.repo, request, read.transactions, window, []);
    if (matches.length > 0) {
      await this.alert(request, matches);
    } else if (!read.complete && !(read.coversAfter <= from)) {
      // Only part of the way back to its approval: what was not read may hold a match.
      await this.notChecked(
        request,
        "the service's transaction list could not be read back as far as its approval",
      );
    }
    await this.done(request.id, request);
  }

  /** `failed`, whose own failure (the store refused its write) is logged: one request never ends the pass. */
  private async failedOrLogged(id: string, known: Tries | undefined, error: unknown): Promise<void> {
    try {
      await this.failed(id, known, error);
    } catch (failure) {
      this.deps.log?.warn('stopped request: its failed try could not be recorded; the others went on', {
        requestId: id,
        error: String(failure),
        tryError: String(error),
      });
    }
  }

  /** One failed try (a read, the store, a notice); the last one gives up with a notice for a person. */
  private async failed(id: string, known: Tries | undefined, error: unknown): Promise<void> {
    const { store, now, log } = this.deps;
    const tries = known ?? (await store.get<Tries>(triesKey(id)).catch(() => undefined));
    // Given up already: only its notice is still to write, at its own time, as many tries as it had.
    if (tries?.givenUp) {
      if (Date.parse(tries.nextAt) <= now().getTime()) await this.giveUp(id, tries.count);
      return;
    }
    const count = (tries?.count ?? 0) + 1;
    if (count < STOP_LOOKUP_TRIES) {
      log?.warn('stopped request not looked up; tried again at a later sweep', {
        requestId: id,
        tries: count,
        error: String(error),
      });
      await store.set(triesKey(id), { count, nextAt: new Date(now().getTime() + RETRY_MS).toISOString() });
      return;
    }
    log?.warn('stopped request could not be looked up at the service; given up', {
      requestId: id,
      tries: count,
      error: String(error),
    });
    await this.giveUp(id, count);
  }

  /**
   * The notice that the lookup was given up, for a request stopped while approved; it leaves the queue
   * only once the notice is written (told once: the notice is said once per round). One that cannot be
   * written yet is kept, marked given up, and only its notice is tried again at a later sweep. A request
   * never stopped gets no notice: one still approved (queued just before its stop is written) stays
   * queued with its tries cleared, so its stop gets tries of its own; any other is dropped.
   */
  private async giveUp(known: ApprovalRequest | string, count: number): Promise<void> {
    const { store, now, log } = this.deps;
    const id = typeof known === 'string' ? known : known.id;
    let request: ApprovalRequest | undefined;
    try {
      request = typeof known === 'string' ? await this.deps.repo.get(id) : known;
      if (request && StopLookup.stoppedWhileApproved(request)) {
        await this.notChecked(request, `it could not be looked up (${count} tries)`);
      }
    } catch (noticeError) {
      log?.warn('stopped request given up, and its notice could not be written; written at a later sweep', {
        requestId: id,
        error: String(noticeError),
      });
      const nextAt = new Date(now().getTime() + RETRY_MS).toISOString();
      await store.set<Tries>(triesKey(id), { count, nextAt, givenUp: true });
      return;
    }
    if (request?.state === 'approved') await store.delete(triesKey(id));
    else await this.done(id, request);
  }

  /** A notice that the lookup could not be made: a person checks with the service instead. */
  private async notChecked(request: ApprovalRequest, why: string): Promise<void> {
    const note = `It was ${request.state} while approved, and ${why}: it may have gone out before the store was restored from a backup, or been paid outside the bot. A person must check with the service whether it was paid, and correct the books and the limits by hand if so.`;
    await this.deps.core.notice(request.id, STOP_NOT_CHECKED_ACTION, note, {
      when: (current) => current.state === request.state,
    });
  }

  /** A notice on the request, its state unchanged: said in its thread and in the alerts channel. */
  private async alert(request: ApprovalRequest, matches: CustodyTransaction[]): Promise<void> {
    const refs = matches.map((tx) => tx.reference).join(', ');
    const note = `It was ${request.state} while approved, but the service lists ${refs} since its approval with its kind, amount and destination: it may have gone out before the store was restored from a backup, or been paid outside the bot. Its ${request.state === 'rejected' ? 'rejection' : 'cancellation'} stands and it no longer counts against the limits; a person must check with the service and correct the books and the limits by hand.`;
    await this.deps.core.notice(request.id, STOPPED_BUT_FOUND_ACTION, note, {
      when: (current) => current.state === request.state,
    });
  }

  /**
   * Out of the queue, only if the request is still in the state the sweep decided on (`read`): a stop
   * is queued and written under the request's lock, so one written since the read keeps its entry.
   * Read again after the drop: a request that moved meanwhile (the lock lapsed under this sweep), or
   * one that cannot be read, is queued again, and the next sweep decides on it afresh.
   */
  private async done(id: string, read: ApprovalRequest | undefined): Promise<void> {
    const { core, repo, store } = this.deps;
    await core.locked(id, async (current) => {
      if (current?.state !== read?.state) return;
      await store.delete(triesKey(id));
      await store.removeFromSet(TO_LOOK_UP, id);
      const after = await repo.get(id).then(
        (request) => request?.state,
        () => 'unread',
      );
      if (after !== read?.state) await queueStopLookup(store, id);
    });
  }
}

const triesKey = (id: string) => `approvals:stop-lookup:${id}`;

/**
 * The stop of an approved request queued for its lookup: written under the request's lock before the
 * stop itself, so no stop is persisted, or told, without it. One store write.
 */
export function queueStopLookup(store: Store, id: string): Promise<void> {
  return store.addToSet(TO_LOOK_UP, id);
}
