// The claim of an approved request's one service call: one atomic step, approved → executing, written
// only if the request is still as this process read it, so of all processes that read it approved
// (even one whose lock ran out) exactly one moves it on and sends. The round's claim key in the store
// keeps replicas off one request at once; a claim the request names as handed back (hand-back.ts) is
// ended by it. A request bound elsewhere, counting an approver who left, or short of raised tiers is
// not claimed but closed or sent back, nothing sent. Where the bot holds the audit signing key, the
// signed chain is read for the request as it is about to be claimed, under the lock: one it refuses is
// settled as it says instead (closed-on-chain.ts), and a read error claims nothing.
import { CLAIM_NOT_TAKEN } from '../audit/index.js';
import { bindingProblem, closeUnsendable, type ServiceBinding } from './binding.js';
import { type ChainRefusal, unshownElsewhere } from './closed-on-chain.js';
import type { CoreSections } from './core-sections.js';
import type { FreezeHold } from './freeze-hold.js';
import { askIfSendingUnclear } from './hand-back.js';
import { CLAIM_LEASE_MS, EXECUTION_LEASE_MS } from './leases.js';
import { type FreshFigures, needsRecheck } from './recheck.js';
import type { ApprovalRepository } from './repository.js';
import type { SendChecks } from './signed-approvals.js';
import { HELD_ACTION, hasNotice, transition } from './state-machine.js';
import { backBeforeClaim, type ClaimChecks } from './tiers-raised.js';
import type { ApprovalRequest, EngineLog } from './types.js';

export interface ClaimExecutionDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  /** The freeze of sends as read just before the claim: a frozen request is not claimed. */
  hold: Pick<FreezeHold, 'applies'>;
  /** The environment and key requests may be sent with now. */
  binding: () => ServiceBinding;
  /** The pools, the delegations and the settings the checks before the claim read (tiers-raised.ts). */
  beforeClaim: ClaimChecks;
  now: () => Date;
  /** The claiming process: the owner written on the claim and the request. */
  owner: string;
  /** How long after the final approval its figures count as stale. */
  staleAfterMs: number;
  /** Told of each request claimed here, under its lock. */
  onClaimed: (id: string) => void;
  /** The signed audit chain's word on the request about to be claimed. */
  signed: Pick<SendChecks, 'closedOnChain'>;
  /** Ends a request the chain refused as the chain says (LateLookup.settleAsTheChainSays). */
  settleRefused: (request: ApprovalRequest, refused: ChainRefusal) => Promise<ApprovalRequest | undefined>;
  log?: EngineLog | undefined;
}

/** The request failed as bound to another environment or key, or undefined when it is bound here. */
function closeUnsendableNow(
  request: ApprovalRequest,
  binding: ServiceBinding,
  now: Date,
): ApprovalRequest | undefined {
  const problem = bindingProblem(request, binding);
  return problem ? closeUnsendable(request, problem, now) : undefined;
}

export class ClaimExecution {
  constructor(private readonly deps: ClaimExecutionDeps) {}

  /**
   * The single atomic step that turns an approved request into one allowed service call. A request
   * bound to another environment or key is failed instead, one counting an approver who has left the
   * pool goes back to its approvers, one short of raised tiers waits again; nothing sent, people told.
   */
  async claim(id: string, fresh?: FreshFigures): Promise<ApprovalRequest | undefined> {
    const taken = await this.claimOrSettle(id, fresh);
    return taken && 'claimed' in taken ? taken.claimed : undefined;
  }

  /**
   * claim, or the request settled as the signed chain says. Throws, nothing claimed or settled, when the
   * chain cannot be read: the request stays approved for the next sweep.
   */
  async claimOrSettle(
    id: string,
    fresh?: FreshFigures,
  ): Promise<{ claimed: ApprovalRequest } | { settled: ApprovalRequest } | undefined> {
    const { core, repo } = this.deps;
    let changed: ApprovalRequest | undefined;
    let refused: { request: ApprovalRequest; refusal: ChainRefusal } | undefined;
    const claimed = await core.locked(id, async (request) => {
      if (request?.state !== 'approved') return undefined;
      // Frozen: not claimed (execute said it is held). Read again before the mark (executor.ts).
      if (await this.deps.hold.applies(request)) return undefined;
      const now = this.deps.now();
      const refusal = await this.chainRefusal(request);
      if (refusal) {
        refused = { request, refusal };
        return undefined;
      }
      // Bound elsewhere it is closed; an approval no longer counting sends it back; raised tiers keep
      // it waiting (tiers-raised.ts).
      const stopped =
        closeUnsendableNow(request, this.deps.binding(), now) ??
        (await backBeforeClaim(this.deps.beforeClaim, request, now));
      if (stopped) {
        if (await repo.saveIf(request, stopped)) changed = stopped;
        return undefined;
      }
      return this.claimRound(request, now, fresh);
    });
    if (changed) await core.notify(changed);
    if (refused) {
      const settled = await this.deps.settleRefused(refused.request, refused.refusal);
      return settled && { settled };
    }
    return claimed && { claimed };
  }

  /**
   * The signed chain's word on the request as it is about to be claimed, read under its lock: a store
   * writer may have revived it after any earlier read. Read for a request bound elsewhere too: one the
   * chain records as closed or called ends as it says; one it cannot show open is closed as bound elsewhere.
   */
  private async chainRefusal(request: ApprovalRequest): Promise<ChainRefusal | undefined> {
    const refusal = await this.deps.signed.closedOnChain.refusal(request, 'claim');
    return refusal && !unshownElsewhere(refusal, request, this.deps.binding()) ? refusal : undefined;
  }

  /**
   * Not claimed: when an unnamed claim marked sending, its lease run out, or a named one marked
   * calling is what keeps it from being claimed, a person is asked at once (hand-back.ts), on a click
   * as on a sweep. A failure is logged;
   * the next attempt (a sweep) looks again.
   */
  async askIfBlocked(id: string): Promise<void> {
    const { core, repo, now, log } = this.deps;
    await askIfSendingUnclear(core, repo, id, now(), log).catch((error: unknown) => {
      log?.warn('blocked request not looked at; will retry', { requestId: id, error: String(error) });
    });
  }

  /** Approved long enough ago that figures which can go stale (quote, account name) must be read again. */
  isStale(request: ApprovalRequest, now: Date): boolean {
    if (!needsRecheck(request)) return false;
    const approvedAt = request.approvals.at(-1)?.at ?? request.createdAt;
    return now.getTime() - Date.parse(approvedAt) > this.deps.staleAfterMs;
  }

  /**
   * Under the lock, an approved request that may be sent: claim its round's one call and mark it
   * executing.
   */
  private async claimRound(
    request: ApprovalRequest,
    now: Date,
    fresh: FreshFigures | undefined,
  ): Promise<ApprovalRequest | undefined> {
    const { repo, owner } = this.deps;
    // Figures approved long ago are only ever sent as just read again (executor.ts, freshFigures).
    if (fresh ? fresh.round !== request.round : this.isStale(request, now)) return undefined;
    const generation = await repo.claimRequest(request, owner, now, CLAIM_LEASE_MS);
    if (generation === undefined) return undefined;
    const next = this.claimedStep(request, generation, now, fresh);
    // Written only if the request is still the approved one read above: a process that took over
    // meanwhile (our lock and claim ran out) moved it on first, and then it sends, not us.
    let written: boolean;
    try {
      written = await repo.saveIf(request, next);
    } catch (error) {
      await this.notTaken(request, generation);
      throw error;
    }
    if (!written) {
      await this.notTaken(request, generation);
      return undefined;
    }
    this.deps.onClaimed(request.id);
    return next;
  }

  /**
   * The claim's write failed or lost: its entry may be on the signed chain all the same (appended
   * first; an append can fail after the chain's head names it). This process never marks or calls
   * under that claim, so it is given back there, by its round and generation (`claim-not-taken`), or
   * the chain would stop the request for a person though nothing was sent. A write that did land is
   * released by the tracker once its lease runs out. An append failing here leaves that stop: fail safe.
   */
  private async notTaken(request: ApprovalRequest, generation: number): Promise<void> {
    const { repo, now, log } = this.deps;
    const { id: requestId, kind, amount, keyId, round } = request;
    const draft = {
      at: now().toISOString(),
      requestId,
      kind,
      action: CLAIM_NOT_TAKEN,
      state: 'approved' as const,
      claim: { round, generation },
      ...(amount ? { amount } : {}),
      ...(keyId ? { keyId } : {}),
    };
    await repo.auditLog.append(request.environment, draft).catch((error: unknown) => {
      log?.warn('claim not given back on the audit chain', { requestId, error: String(error) });
    });
  }

  /** The approved request as executing under this process's claim of `generation`, with what it notes. */
  private claimedStep(
    request: ApprovalRequest,
    generation: number,
    now: Date,
    fresh: FreshFigures | undefined,
  ): ApprovalRequest {
    const execution = {
      owner: this.deps.owner,
      leaseUntil: new Date(now.getTime() + EXECUTION_LEASE_MS).toISOString(),
      generation,
      phase: 'claimed' as const,
    };
    const { nextCheckAt: _retry, handedBack: _ended, ...approved } = request;
    const base = (
      fresh ? { ...approved, display: fresh.display, payload: fresh.payload } : approved
    ) as ApprovalRequest;
    const notes = [
      ...(generation > 0 && !hasNotice(request, HELD_ACTION)
        ? ['taken over: the process that had claimed it stopped before sending anything']
        : []),
      ...(fresh ? ['approved a while ago, so its figures were checked again first: unchanged'] : []),
    ];
    return transition({ ...base, outcome: { sentAt: now.toISOString() }, execution }, 'executing', {
      action: 'executing',
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      at: now,
    });
  }
}
