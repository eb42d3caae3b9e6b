// Outcome-unknown requests: the call may or may not have been acted on. Look for them in the
// transaction list (same kind, amount and destination, created around the call, exactly one such
// transaction in a read that reaches back past the call, and no other request in flight or unresolved
// that may have made it; see transaction-match.ts), or for a whitelist addition on the whitelist. When that
// stays inconclusive, or cannot be done at all (settlement), a person is asked to check. Reads only,
// at background priority; nothing here ever sends a request again.

import type { CoreSections } from './core-sections.js';
import type { CustodyGateway, CustodyTransaction } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import { hasNotice, transition } from './state-machine.js';
import {
  askAPersonToCheck,
  CLOCK_SKEW_MS,
  coversFrom,
  leftToAPersonByTheLookup,
  MATCH_WINDOW_MS,
  type Matching,
  matchingTransactions,
  outcomeFromTransaction,
  type ReadBack,
  readBackOf,
  type TransactionsBack,
  transactionsSince,
  unsettledRequests,
} from './transaction-match.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

export { outcomeFromTransaction } from './transaction-match.js';

export interface ReconcilerOptions {
  /** How far after the call a matching transaction may have been created (default 30 min). */
  matchWindowMs?: number;
  /** Transactions per page read (default 50). */
  reconcilePageSize?: number;
  /** Pages read back at most in one pass, while they are still inside the window (default 3). */
  reconcilePages?: number;
  /** Inconclusive checks after which a person is asked to check (default 6: about an hour). */
  escalateAfterChecks?: number;
}

/** What the reconciler uses; it reaches the core only for its lock, its conditional write and its notices. */
export interface ReconcilerDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  custody: CustodyGateway;
  now: () => Date;
}

/** What the tracker does for the reconciler: settle a request, or look again later. */
export interface TrackingSteps {
  finish(
    id: string,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined>;
  /** Look again later; `answered`: this check got the service's answer, so it counts towards asking a person. */
  reschedule(request: ApprovalRequest, answered?: boolean): Promise<void>;
  /** One request's step failed: said with its id and looked at again later, while the others go on. */
  stepFailed(request: ApprovalRequest, error: unknown): Promise<void>;
}

/** A person is asked after `escalateAfterChecks` answered checks, or twice as many tries in all. */
const TRIES_PER_CHECK = 2;

export class Reconciler {
  private readonly matchWindowMs: number;
  private readonly readBack: ReadBack;
  private readonly escalateAfter: number;
  /** Tries in all, answered or not, after which a person is asked even with too few answered checks. */
  private readonly triesBound: number;
  private readonly core: CoreSections;
  private readonly repo: ApprovalRepository;
  private readonly custody: CustodyGateway;
  private readonly now: () => Date;

  constructor(
    deps: ReconcilerDeps,
    private readonly steps: TrackingSteps,
    options: ReconcilerOptions = {},
  ) {
    this.core = deps.core;
    this.repo = deps.repo;
    this.custody = deps.custody;
    this.now = deps.now;
    this.matchWindowMs = options.matchWindowMs ?? MATCH_WINDOW_MS;
    this.readBack = readBackOf(options);
    this.escalateAfter = Math.max(1, options.escalateAfterChecks ?? 6);
    this.triesBound = this.escalateAfter * TRIES_PER_CHECK;
  }

  /** Look for outcome-unknown withdrawals, redemptions and bridges in the transaction list. */
  async reconcile(all: ApprovalRequest[]): Promise<void> {
    // One the lookup before a late send left to a person is never settled from a match: the bot has no
    // record of a call for it, so a match may be anyone's payment (even, after a store restore, the
    // bot's own earlier one). Only the person it asked settles it; asked here too, in case the lookup
    // stopped between leaving it and asking. No service read for it.
    const parked = all.filter(leftToAPersonByTheLookup);
    await this.eachApart(
      parked.filter((r) => !hasNotice(r, 'needs-manual-check')),
      (request) => askAPersonToCheck(this.core, request.id),
    );
    const requests = all.filter((r) => !leftToAPersonByTheLookup(r));
    if (requests.length === 0) return;
    const since = Math.min(...requests.map((r) => sentAt(r) - CLOCK_SKEW_MS));
    const read = await transactionsSince(this.custody, since, this.readBack);
    const unsettled = await unsettledRequests(this.repo);
    await this.eachApart(requests, async (request) => {
      const { matches, rivals } = await this.candidates(request, read, unsettled);
      const [match] = matches;
      if (match && matches.length === 1 && rivals.length === 0 && this.covered(request, read)) {
        await this.settle(request, match);
        return;
      }
      if (matches.length > 1) {
        const refs = matches.map((tx) => tx.reference).join(', ');
        await this.core.notice(
          request.id,
          'ambiguous-match',
          `${matches.length} transactions match its kind, amount, destination and time (${refs}), so the bot cannot tell which one is this request's. It stays outcome unknown and is never resent: a person must check which one it is.`,
          { when: (r) => r.state === 'outcome-unknown' },
        );
      } else if (match && rivals.length > 0) {
        const others = rivals.map((r) => r.id).join(', ');
        await this.core.notice(
          request.id,
          'ambiguous-match',
          `${match.reference} matches its kind, amount, destination and time, but so does ${others}, whose call is under way or unresolved and may have made it, so the bot cannot tell whose it is. It stays outcome unknown and is never resent: a person must check whether this request went out.`,
          { when: (r) => r.state === 'outcome-unknown' },
        );
      }
      await this.inconclusive(request);
    });
  }

  /** Each request's step on its own: one that fails (a store that will not take its write) holds up no other. */
  private async eachApart(
    requests: ApprovalRequest[],
    step: (request: ApprovalRequest) => Promise<unknown>,
  ): Promise<void> {
    for (const request of requests) {
      try {
        await step(request);
      } catch (error) {
        await this.steps.stepFailed(request, error);
      }
    }
  }

  /** A whitelist addition with an unclear answer: is the address on the list now? */
  async reconcileWhitelist(request: ApprovalRequest): Promise<void> {
    if (request.kind !== 'whitelist') return;
    const { networkId, address } = request.payload;
    const list = await this.custody.whitelist();
    const listed = list.some(
      (w) => w.networkId === networkId && w.address.toLowerCase() === address.toLowerCase(),
    );
    if (listed) {
      await this.steps.finish(request.id, 'completed', 'found on the whitelist', { status: 'completed' });
    } else {
      await this.inconclusive(request);
    }
  }

  /** A settlement update with an unclear answer: nothing can read it back, so a person checks. Once. */
  async settlementNeedsAPerson(request: ApprovalRequest): Promise<void> {
    await this.core.notice(
      request.id,
      'needs-manual-check',
      `The service gives no way to read the settlement account back, so the bot cannot tell whether this change was made. A person must check the settlement account on the service dashboard; the bot will not send it again. An approver then records the answer: \`/cngn resolve ${request.id} completed|failed <what you saw>\`.`,
      { when: (r) => r.state === 'outcome-unknown' },
    );
  }

  /**
   * Not settled by a check the service answered: after enough of them, or enough tries in all (see
   * unanswered), ask a person (once); look again later anyway. Failed tries are said apart.
   */
  private async inconclusive(request: ApprovalRequest): Promise<void> {
    const checks = answeredOf(request) + 1;
    if (checks >= this.escalateAfter || (request.checks ?? 0) + 1 >= this.triesBound) {
      await this.core.notice(
        request.id,
        'needs-manual-check',
        `Still not confirmed after ${checks} checks with the service${unansweredTries(request, checks)}. ${askAPerson(request.id)}`,
        { when: (r) => r.state === 'outcome-unknown' },
      );
    }
    await this.steps.reschedule(request, true);
  }

  /**
   * A try the service did not answer (any error reading the list or whitelist, a steady 4xx too): once
   * the tries in all reach twice the checks bound, a person is asked anyway (once), saying so.
   * The caller looks again later.
   */
  async unanswered(request: ApprovalRequest): Promise<void> {
    const tries = (request.checks ?? 0) + 1;
    if (request.state !== 'outcome-unknown' || tries < this.triesBound) return;
    const answered = answeredOf(request);
    const since = unknownSince(request);
    const said =
      answered === 0
        ? `the service has not answered the bot's last ${tries} checks (since ${since})`
        : `the service has not answered ${tries - answered} of the bot's last ${tries} checks (since ${since}), and the ${answered} it answered settled nothing`;
    await this.core.notice(
      request.id,
      'needs-manual-check',
      `Still not confirmed: ${said}. ${askAPerson(request.id)}`,
      {
        when: (r) => r.state === 'outcome-unknown',
      },
    );
  }

  /** Same kind, amount and destination, created around the call, and not another request's. */
  private candidates(
    request: ApprovalRequest,
    read: TransactionsBack,
    unsettled: ApprovalRequest[],
  ): Promise<Matching> {
    const window = { from: sentAt(request) - CLOCK_SKEW_MS, to: sentAt(request) + this.matchWindowMs };
    return matchingTransactions(this.repo, request, read.transactions, window, unsettled, this.matchWindowMs);
  }

  /** The pages read reach back past this request's call: a single match in them is the only one. */
  private covered(request: ApprovalRequest, read: TransactionsBack): boolean {
    return coversFrom(read, sentAt(request) - CLOCK_SKEW_MS);
  }

  private async settle(request: ApprovalRequest, match: CustodyTransaction): Promise<void> {
    const status = match.result;
    const outcome = {
      ...outcomeFromTransaction(match),
      reference: match.reference,
      ...(match.id ? { transactionId: match.id } : {}),
    };
    let taken: string | undefined;
    const written: string[] = [];
    const found = await this.core.locked(request.id, async (current) => {
      if (current?.state !== 'outcome-unknown') {
        // Moved on while this ran (its write refused, then read again): what it indexed is not its record.
        await this.repo.unindexUnrecorded(written, current, request.id);
        return undefined;
      }
      const to = status === 'succeeded' ? 'completed' : status === 'failed' ? 'failed' : 'sent';
      const next = transition({ ...current, outcome: { ...current.outcome, ...outcome } }, to, {
        action: 'reconciled',
        note: `found in the transaction list as ${match.reference}`,
        at: this.now(),
      });
      // Another request took the reference since it was matched: it is that one's, not this one's.
      taken = await this.repo.indexOutcome(next, written);
      if (taken) return undefined;
      await this.core.write(current, next);
      return next;
    });
    if (found) await this.core.notify(found);
    if (taken) {
      await this.core.notice(
        request.id,
        'ambiguous-match',
        `${match.reference} matched its kind, amount, destination and time, but it is recorded as ${taken}'s, so it is not taken for this one. It stays outcome unknown and is never resent: a person must check whether this request went out.`,
        { when: (r) => r.state === 'outcome-unknown' },
      );
      await this.inconclusive(request);
    }
  }
}

const sentAt = (request: ApprovalRequest) => Date.parse(request.outcome?.sentAt ?? request.createdAt);

/** The tries besides the answered checks, said apart so the count of checks is only of real ones. */
function unansweredTries(request: ApprovalRequest, checks: number): string {
  const failed = (request.checks ?? 0) + 1 - checks;
  if (failed <= 0) return '';
  const tries = failed === 1 ? '1 more try' : `${failed} more tries`;
  return ` (and ${tries} that failed: the service did not answer, or the bot's store did not take the result)`;
}

/** The checks the service answered; a request stored before they were counted: every check it had. */
export const answeredOf = (request: ApprovalRequest): number => request.answeredChecks ?? request.checks ?? 0;

/** When the request last became outcome unknown (its checks are all since then). */
function unknownSince(request: ApprovalRequest): string {
  let since = request.outcome?.sentAt ?? request.createdAt;
  for (const entry of [...request.history].reverse()) {
    if (entry.state !== 'outcome-unknown') break;
    since = entry.at;
  }
  return since;
}

const askAPerson = (id: string) =>
  `A person must check with the service (dashboard or support) whether it went through; the bot will never send it again. It keeps looking, less often. An approver can record the answer: \`/cngn resolve ${id} completed|failed <what you saw>\`.`;
