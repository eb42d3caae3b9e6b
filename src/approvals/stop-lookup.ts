// After a person's stop (Reject, Cancel) of an approved request is recorded, the request is looked for
// once in the service's transaction list, in the background, never in the click: a store restored from
// a backup taken while it was approved does not know it went out since, and a payment made outside the
// bot (by hand while sends were frozen, or by someone else) looks the same. Neither can be told apart
// from the list, so a match changes nothing on the request: the stop stands, and a person is alerted
// (a notice on the request, said in its thread and in the alerts channel) to check with the service and
// correct the books and limits by hand. Once per request: the notice is written under the request's
// lock only when the request does not have it yet. A service that cannot be read is asked again at a
// later sweep, a few times, then given up with a log line (docs/decisions/stop-an-approved-request.md).

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

/** The stopped requests still to look up; each one's tries in `approvals:stop-lookup:<id>`. */
const TO_LOOK_UP = 'approvals:stop-lookups';
/** How many times a lookup the service did not answer is made before it is given up. */
const STOP_LOOKUP_TRIES = 3;
const RETRY_MS = 60_000;
/** One replica looks a request up at a time (the reads share the service's budget). */
const LEASE_MS = 120_000;

interface Tries {
  count: number;
  nextAt: string;
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

  /** After the stop's ack: queued (so a later sweep tries again), then looked up once now. */
  async afterStop(id: string): Promise<void> {
    await this.deps.store.addToSet(TO_LOOK_UP, id);
    await this.lookUp(id);
  }

  /** Each sweep: the stopped requests whose lookup is still to be made (the service did not answer). */
  async sweep(): Promise<void> {
    for (const id of await this.deps.store.setMembers(TO_LOOK_UP)) {
      try {
        await this.lookUp(id);
      } catch (error) {
        this.deps.log?.warn('stopped request not looked up; tried again next sweep', {
          requestId: id,
          error: String(error),
        });
      }
    }
  }

  private async lookUp(id: string): Promise<void> {
    const { store, owner } = this.deps;
    const lease = `approvals:stop-lookup-lease:${id}`;
    if (!(await store.setIfAbsent(lease, owner, LEASE_MS))) return;
    try {
      await this.lookUpHeld(id);
    } finally {
      await store.compareAndDelete(lease, owner);
    }
  }

  private async lookUpHeld(id: string): Promise<void> {
    const { repo, store, now, log } = this.deps;
    const request = await repo.get(id);
    if (
      !request ||
      !StopLookup.stoppedWhileApproved(request) ||
      hasNotice(request, STOPPED_BUT_FOUND_ACTION) ||
      bindingProblem(request, this.deps.binding())
    ) {
      return this.done(id);
    }
    const key = `approvals:stop-lookup:${id}`;
    const tries = await store.get<Tries>(key);
    if (tries && Date.parse(tries.nextAt) > now().getTime()) return;
    let matches: CustodyTransaction[];
    try {
      matches = await this.matches(request);
    } catch (error) {
      const count = (tries?.count ?? 0) + 1;
      if (count >= STOP_LOOKUP_TRIES) {
        log?.warn('stopped request could not be looked up at the service; given up', {
          requestId: id,
          tries: count,
          error: String(error),
        });
        return this.done(id);
      }
      await store.set(key, { count, nextAt: new Date(now().getTime() + RETRY_MS).toISOString() });
      return;
    }
    if (matches.length > 0) await this.alert(request, matches);
    await this.done(id);
  }

  /** Transactions since its approval of its kind, amount and destination that no other request owns. */
  private async matches(request: ApprovalRequest): Promise<CustodyTransaction[]> {
    const { custody, repo, now } = this.deps;
    const from = Date.parse(request.approvals.at(-1)?.at ?? request.createdAt) - CLOCK_SKEW_MS;
    // A background read: it never takes the money calls' share of the service's budget.
    const read = await transactionsSince(custody, from, this.readBack);
    const window = { from, to: now().getTime() + CLOCK_SKEW_MS };
    const { matches } = await matchingTransactions(repo, request, read.transactions, window, []);
    if (matches.length === 0 && !read.complete) {
      this.deps.log?.info?.('stopped request looked up only part of the way back to its approval', {
        requestId: request.id,
      });
    }
    return matches;
  }

  /** A notice on the request, its state unchanged: said in its thread and in the alerts channel. */
  private async alert(request: ApprovalRequest, matches: CustodyTransaction[]): Promise<void> {
    const refs = matches.map((tx) => tx.reference).join(', ');
    const note = `It was ${request.state} while approved, but the service lists ${refs} since its approval with its kind, amount and destination: it may have gone out before the store was restored from a backup, or been paid outside the bot. Its ${request.state === 'rejected' ? 'rejection' : 'cancellation'} stands and it no longer counts against the limits; a person must check with the service and correct the books and the limits by hand.`;
    await this.deps.core.notice(request.id, STOPPED_BUT_FOUND_ACTION, note, {
      when: (current) => current.state === request.state,
    });
  }

  private async done(id: string): Promise<void> {
    await this.deps.store.delete(`approvals:stop-lookup:${id}`);
    await this.deps.store.removeFromSet(TO_LOOK_UP, id);
  }
}
