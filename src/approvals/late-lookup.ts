// An approved request whose final approval is older than the claim lease may have gone out already:
// its claimant stopped after the call, or the store was restored from a backup taken before the
// call. Before such a request is claimed, it is looked for where the service keeps what was done:
// the transaction list (withdraw, redeem, bridge: kind, amount, destination, created since the final
// approval; see transaction-match.ts) or the whitelist. One match settles it under the round's claim
// with the compare-and-set write, and nothing is sent; several, or a list too long to read back that
// far, make it outcome unknown for a person; none lets it be sent. A lookup that cannot be made sends
// nothing: the request stays approved and is tried again shortly. Settlement changes and delegations
// cannot be looked up and go as they are (docs/decisions/late-approval-lookup.md says why). Before any
// of that, every approved request is looked up on the signed audit chain (closed-on-chain.ts): one the
// chain records as closed or called is settled as the chain tells it, under the same claim and write.
import { bindingProblem, type ServiceBinding } from './binding.js';
import { type ChainRefusal, unshownElsewhere } from './closed-on-chain.js';
import type { CoreSections } from './core-sections.js';
import { canonicalAddress } from './destinations.js';
import { CLAIM_LEASE_MS } from './leases.js';
import type { CustodyGateway, CustodyTransaction } from './ports.js';
import type { ReconcilerOptions } from './reconciler.js';
import type { ApprovalRepository } from './repository.js';
import { OWN_STORE_KINDS } from './service-call.js';
import type { SendChecks } from './signed-approvals.js';
import { HELD_ACTION, LOOKED_UP_BEFORE_SENDING, transition } from './state-machine.js';
import {
  askAPersonToCheck,
  CLOCK_SKEW_MS,
  matchingTransactions,
  outcomeFromTransaction,
  type ReadBack,
  readBackOf,
  transactionsSince,
  unsettledRequests,
} from './transaction-match.js';
import type { ApprovalRequest, ExecutionOutcome, RequestState } from './types.js';

/** The step a settlement writes, and whether it is the chain's word (settled whatever the binding). */
interface SettleHow {
  action?: string;
  onChain?: boolean;
}

const ON_CHAIN: SettleHow = { onChain: true };

/** How soon a lookup the service could not answer is tried again. */
const LOOKUP_RETRY_MS = 60_000;

export interface LateLookupDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  custody: CustodyGateway;
  binding: () => ServiceBinding;
  now: () => Date;
  /** The executor's id: a settled request's claim is held under it. */
  owner: string;
  /** The signed audit chain's word on the request, asked before anything else. */
  signed: Pick<SendChecks, 'closedOnChain'>;
}

/** It reads back as far as the reconciler does: reconcilePageSize per page, reconcilePages at most. */
export type LateLookupOptions = Pick<ReconcilerOptions, 'reconcilePageSize' | 'reconcilePages'>;

/** What to do with the request: send it as usual, not now, or it was settled by the lookup. */
export type LateLookupResult = 'send' | 'not-now' | { settled: ApprovalRequest | undefined };

type Finding =
  | { found: 'nothing' }
  | { found: 'transaction'; tx: CustodyTransaction }
  | { found: 'on-whitelist' }
  | { found: 'several'; txs: CustodyTransaction[] }
  | { found: 'contested'; tx: CustodyTransaction; rivals: string[] }
  | { found: 'out-of-reach'; pages: number };

/**
 * Why a request whose list could not be read back to its approval is left to a person. One a freeze
 * held since its final approval is said as such: the bot did not send it while frozen, but the list
 * cannot confirm that nothing sent it (a store restored from a backup keeps no trace of a call made
 * after it was taken), so it is not sent on the bot's word alone.
 */
function outOfReachNote(request: ApprovalRequest, pages: number): string {
  const tooLong = `the transaction list is too long to read back to its approval (${pages} pages read)`;
  if (!heldSinceApproval(request)) return `${tooLong}: it may have gone out already, so nothing was sent`;
  return `it was held by the freeze of sends since its approval and could not be confirmed unsent: ${tooLong}, so nothing was sent. Check the service's transactions since its approval`;
}

/** A freeze held this round after its final approval (the held step is said once its approvals are in). */
function heldSinceApproval(request: ApprovalRequest): boolean {
  const approvedAt = request.approvals.at(-1)?.at;
  if (approvedAt === undefined) return false;
  return request.history.some(
    (step) => step.action === HELD_ACTION && Date.parse(step.at) >= Date.parse(approvedAt),
  );
}

export class LateLookup {
  /** Rounds this process found nothing for: nothing can send them but a claim of that round. */
  private readonly foundNothing = new Map<string, number>();
  private readonly readBack: ReadBack;

  constructor(
    private readonly deps: LateLookupDeps,
    options: LateLookupOptions = {},
  ) {
    this.readBack = readBackOf(options);
  }

  /** Approved long enough ago that its call may have been made by a process that is gone. */
  static isLate(request: ApprovalRequest, now: Date): boolean {
    const approvedAt = request.approvals.at(-1)?.at ?? request.createdAt;
    return now.getTime() - Date.parse(approvedAt) > CLAIM_LEASE_MS;
  }

  /** Look the request up if it is late, before anything reads or sends for it. */
  async beforeSending(id: string): Promise<LateLookupResult> {
    const { repo, now } = this.deps;
    const request = await repo.get(id);
    const at = now();
    if (request?.state !== 'approved') {
      this.foundNothing.delete(id);
      return 'send';
    }
    // The chain first, whatever the request's binding: a read error is thrown, and the request stays
    // approved for the next sweep.
    const binding = this.deps.binding();
    const refused = await this.deps.signed.closedOnChain.refusal(request, 'claim');
    if (refused && !unshownElsewhere(refused, request, binding)) {
      return { settled: await this.settleAsTheChainSays(request, refused) };
    }
    // Another environment's request is closed by the claim; it is never looked up here.
    if (bindingProblem(request, binding)) return 'send';
    if (!LateLookup.isLate(request, at)) return 'send';
    // None of these is a transaction (an unfreeze is only the bot's own record): nothing to look up.
    if (request.kind === 'settlement' || OWN_STORE_KINDS.has(request.kind)) return 'send';
    if (this.foundNothing.get(id) === request.round) return 'send';
    // A check that failed is not repeated on every sweep: the reads share the service's budget.
    if (request.nextCheckAt && Date.parse(request.nextCheckAt) > at.getTime()) return 'not-now';
    let finding: Finding;
    try {
      finding = await this.lookUp(request);
    } catch {
      await this.tryAgainShortly(request);
      return 'not-now';
    }
    switch (finding.found) {
      case 'nothing':
        this.foundNothing.set(id, request.round);
        return 'send';
      case 'transaction':
        return { settled: await this.settleFromTransaction(request, finding.tx) };
      case 'on-whitelist':
        return {
          settled: await this.settle(
            request,
            'completed',
            'already on the whitelist: nothing was sent again',
            {
              status: 'completed',
            },
          ),
        };
      case 'several': {
        const refs = finding.txs.map((tx) => tx.reference).join(', ');
        return {
          settled: await this.leaveToAPerson(
            request,
            `${finding.txs.length} transactions since its approval match its kind, amount and destination (${refs}): it may have gone out already, so nothing was sent`,
          ),
        };
      }
      case 'contested':
        return {
          settled: await this.leaveToAPerson(
            request,
            `${finding.tx.reference} since its approval matches its kind, amount and destination, but so does ${finding.rivals.join(', ')}, whose call is under way or unresolved and may have made it: this one may have gone out already, so nothing was sent`,
          ),
        };
      case 'out-of-reach':
        return { settled: await this.leaveToAPerson(request, outOfReachNote(request, finding.pages)) };
    }
  }

  private async lookUp(request: ApprovalRequest): Promise<Finding> {
    const { custody, repo, now } = this.deps;
    if (request.kind === 'whitelist') {
      const { networkId, address } = request.payload;
      const list = await custody.whitelist({ beforeSending: true });
      // Compared as destinations.ts compares addresses: case counts but for an EVM address.
      const wanted = canonicalAddress(address);
      const listed = list.some((w) => w.networkId === networkId && canonicalAddress(w.address) === wanted);
      return listed ? { found: 'on-whitelist' } : { found: 'nothing' };
    }
    // Nothing of this round can have gone out before its final approval.
    const from = Date.parse(request.approvals.at(-1)?.at ?? request.createdAt) - CLOCK_SKEW_MS;
    const read = await transactionsSince(custody, from, this.readBack, { beforeSending: true });
    const window = { from, to: now().getTime() + CLOCK_SKEW_MS };
    const unsettled = await unsettledRequests(repo);
    const { matches, rivals } = await matchingTransactions(
      repo,
      request,
      read.transactions,
      window,
      unsettled,
    );
    const [match] = matches;
    if (matches.length > 1) return { found: 'several', txs: matches };
    // One match in a list read only part of the way back may not be the only one.
    if (!read.complete) return { found: 'out-of-reach', pages: this.readBack.maxPages };
    if (match && rivals.length > 0) return { found: 'contested', tx: match, rivals: rivals.map((r) => r.id) };
    if (match) return { found: 'transaction', tx: match };
    return { found: 'nothing' };
  }

  private async settleFromTransaction(
    request: ApprovalRequest,
    tx: CustodyTransaction,
  ): Promise<ApprovalRequest | undefined> {
    const to = tx.result === 'succeeded' ? 'completed' : tx.result === 'failed' ? 'failed' : 'sent';
    // It counts against the limits from when the service made it (the lookup's time when not given).
    const made = tx.createdAt ? Date.parse(tx.createdAt) : Number.NaN;
    const sentAt = (Number.isNaN(made) ? this.deps.now() : new Date(made)).toISOString();
    const outcome: ExecutionOutcome = {
      ...outcomeFromTransaction(tx),
      sentAt,
      reference: tx.reference,
      ...(tx.id ? { transactionId: tx.id } : {}),
      ...(to === 'failed' ? { reason: `the service lists it as ${tx.status}` } : {}),
    };
    const note = `found in the transaction list as ${tx.reference} (${tx.status}): nothing was sent again`;
    const settled = await this.settle(request, to, note, outcome);
    // The reference turned out to be another request's: left to a person instead (see settle).
    return settled?.state === 'outcome-unknown' ? this.askAPerson(request) : settled;
  }

  /**
   * Refused by the signed audit chain (here, or under the claim's lock: claim-execution.ts): completed
   * as it records, outcome unknown with a person asked (its call was made, and the reconciler leaves it
   * alone: the bot no longer holds the call's record), or failed with nothing sent. A failure is the
   * step `failed`, whose note the alerts channel hears. Settled whatever the request's binding.
   */
  async settleAsTheChainSays(
    request: ApprovalRequest,
    refused: ChainRefusal,
  ): Promise<ApprovalRequest | undefined> {
    const { to, note } = refused;
    if (to === 'outcome-unknown') return this.leaveToAPerson(request, note, ON_CHAIN);
    if (to === 'completed') return this.settle(request, to, note, undefined, ON_CHAIN);
    return this.settle(
      request,
      to,
      note,
      { reason: note, nothingSent: true },
      { ...ON_CHAIN, action: 'failed' },
    );
  }

  /** Several matches, or the list out of reach: outcome unknown, never sent, and a person is asked. */
  private async leaveToAPerson(
    request: ApprovalRequest,
    note: string,
    how: SettleHow = {},
  ): Promise<ApprovalRequest | undefined> {
    const settled = await this.settle(request, 'outcome-unknown', note, undefined, how);
    return settled && this.askAPerson(request);
  }

  private askAPerson(request: ApprovalRequest): Promise<ApprovalRequest | undefined> {
    return askAPersonToCheck(this.deps.core, request.id);
  }

  /**
   * Write what the lookup found onto the request, only if it is still the approved round looked up,
   * under that round's claim (so no replica can claim it to send meanwhile), with the compare-and-set
   * write. Undefined when another process moved it on first. As the chain says (`onChain`), it is
   * settled whatever environment or key it is bound to now.
   */
  private async settle(
    looked: ApprovalRequest,
    to: RequestState,
    note: string,
    outcome?: ExecutionOutcome,
    { action = LOOKED_UP_BEFORE_SENDING, onChain = false }: SettleHow = {},
  ): Promise<ApprovalRequest | undefined> {
    const { core, repo, now, owner } = this.deps;
    let claim: number | undefined;
    const written: string[] = [];
    const settled = await core.locked(looked.id, async (current) => {
      // Moved on while this ran (its write refused, then read again): what it indexed is not its record.
      if (
        current?.state !== 'approved' ||
        current.round !== looked.round ||
        (!onChain && bindingProblem(current, this.deps.binding()))
      ) {
        await repo.unindexUnrecorded(written, current, looked.id);
        return undefined;
      }
      const at = now();
      // Taken once: the section runs again on a fresh read if its write was refused.
      claim ??= await repo.claimRequest(current, owner, at, CLAIM_LEASE_MS);
      if (claim === undefined) return undefined;
      const { nextCheckAt: _retry, checks: _checks, answeredChecks: _answered, ...rest } = current;
      let next = transition(
        { ...rest, ...(outcome ? { outcome: { ...current.outcome, ...outcome } } : {}) } as ApprovalRequest,
        to,
        { action, note, at },
      );
      // A reference another request took since it was matched is that one's: never re-pointed, and
      // this one is left to a person, unsent.
      const taken = await repo.indexOutcome(next, written);
      if (taken) {
        const reference = outcome?.reference ?? '';
        next = transition(rest as ApprovalRequest, 'outcome-unknown', {
          action: LOOKED_UP_BEFORE_SENDING,
          note: `${reference} since its approval matches its kind, amount and destination, but it is recorded as ${taken}'s: this one may have gone out already, so nothing was sent`,
          at,
        });
      }
      if (next.state === 'outcome-unknown') next = { ...next, nextCheckAt: at.toISOString(), checks: 0 };
      await core.write(current, next);
      return next;
    });
    if (settled) await core.notify(settled);
    return settled;
  }

  /** The service could not be asked: nothing is sent; say so once, and look again in a minute. */
  private async tryAgainShortly(request: ApprovalRequest): Promise<void> {
    const { core, now } = this.deps;
    await core.locked(request.id, async (current) => {
      if (current?.state !== 'approved' || current.round !== request.round) return;
      const nextCheckAt = new Date(now().getTime() + LOOKUP_RETRY_MS).toISOString();
      await core.write(current, { ...current, nextCheckAt }, { audit: false });
    });
    await core.notice(
      request.id,
      'execution-delayed',
      "Not sent yet: it was approved a while ago, so the bot first looks for it in the service's transaction list (it may have gone out already, for example before a backup was restored), and the service could not be asked just now; nothing was sent. The bot tries again shortly.",
      { when: (r) => r.state === 'approved' && r.round === request.round },
    );
  }
}
