// Exactly one service call per approved request. The claim is one atomic step: approved → executing,
// written only if the request is still as this process read it, so of all processes that read it
// approved (even one whose lock ran out) exactly one moves it on and sends (claim-execution.ts). The call runs outside the
// lock and is never retried. Just before the call, a write-ahead mark (phase `sending`) is recorded
// the same way: a claim stopped before it was certainly never sent and goes to the next claimant; one
// stopped after it may have been, and goes to the reconciler. An unclear outcome becomes
// `outcome-unknown`, for the reconciler — never a resend. While sends are frozen (freeze.ts) nothing
// that reaches the service is claimed or marked: it stays approved, held, until the freeze is lifted.
import { randomUUID } from 'node:crypto';
import type { ApprovalPolicy } from '../access/index.js';
import { crashPoint } from '../crash-points.js';
import { AMOUNT_DIFFERS, amountsAgree } from './amount-check.js';
import { type PoolReading, readPoolsBriefly } from './approver-left.js';
import { bindingProblem, type ServiceBinding } from './binding.js';
import { ClaimExecution } from './claim-execution.js';
import { closedOnChainNote } from './closed-on-chain.js';
import type { CoreSections } from './core-sections.js';
import type { DelegationBook } from './delegation-requests.js';
import type { FreezeSwitch } from './freeze.js';
import { FreezeHold } from './freeze-hold.js';
import { LateLookup, type LateLookupOptions } from './late-lookup.js';
import { EXECUTION_LEASE_MS, type Marking } from './leases.js';
import type { PasskeyWrite } from './passkey-requests.js';
import type { CustodyGateway } from './ports.js';
import { type FreshFigures, recheckBeforeSending } from './recheck.js';
import { AnswerRecorder, RECORD_RETRY, type RecordRetry } from './recording.js';
import type { ApprovalRepository } from './repository.js';
import { type ApprovalsCheck, approvalsAsClaimed, changedAfterClaim } from './send-checks.js';
import {
  type CallFailure,
  type CallResult,
  callService,
  failedCallOutcome,
  ownStoreFailure,
} from './service-call.js';
import type { SendChecks } from './signed-approvals.js';
import type { ClaimChecks } from './tiers-raised.js';
import { askAPersonToCheck } from './transaction-match.js';
import type { ApprovalRequest, EngineLog } from './types.js';

export { CLAIM_LEASE_MS, EXECUTION_LEASE_MS } from './leases.js';
export { AnswerNotRecordedError, STOP_DRAIN_MS } from './recording.js';

/** What a request fails with when the store could not be read or written just before the call. */
const STORE_UNREACHED: CallFailure = {
  to: 'failed',
  note: 'the bot could not reach its store just before sending; nothing was sent',
};

/** An approved request sent this long after its final approval has its stale figures read again first. */
export const STALE_APPROVAL_MS = 15 * 60_000;

/** What the executor uses; it reaches the core only for its lock, its conditional write and its notices. */
export interface ExecutorDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  custody: CustodyGateway;
  /** Where a delegation request is executed: written to the store, not sent. */
  delegations: Pick<DelegationBook, 'record' | 'all' | 'byId'>;
  /** The freeze of sends: read before each claim and mark; an unfreeze request is executed by lifting it. */
  freeze: Pick<FreezeSwitch, 'current' | 'lift'>;
  /** Where a passkey registration is executed: written to the passkey book, not sent. */
  passkeys: PasskeyWrite;
  /** The environment and key requests may be sent with now (the key is set at start-up). */
  binding: () => ServiceBinding;
  /** Signed approvals: the filing seal of stale figures read again, and the count of requests failed before the call. */
  signed: SendChecks;
  /**
   * The approvals' last check just before the call (send-checks.ts): each required approval's evidence,
   * the count, the filing seal. The tracker is given the same function.
   */
  approvalsProblem: ApprovalsCheck;
  /** The pools (every approval still counts for one in the kind's pool at the claim); the tiers. */
  policy: Pick<
    ApprovalPolicy,
    'approvalStillCounts' | 'passkeyOwnerStillCounts' | 'readPoolGroups' | 'requiredFor'
  >;
  settingsNow: ClaimChecks['settingsNow'];
  now: () => Date;
  log?: EngineLog | undefined;
}

export interface ExecutorOptions extends LateLookupOptions {
  /** How long after the final approval its figures count as stale (default STALE_APPROVAL_MS). */
  staleAfterMs?: number;
  /** How the store write of a service answer is retried when it fails (default RECORD_RETRY). */
  recordRetry?: RecordRetry;
  /** How long a send waits for its approvers' groups to be read before the claim (default POOL_READ_BOUND_MS). */
  poolReadBoundMs?: number;
}

export class Executor {
  readonly instanceId = randomUUID();
  /** Requests this process claimed and has not recorded an answer for. */
  private readonly held = new Set<string>();
  /** Listeners being told of a claim; the call never waits for them. */
  private readonly announcing = new Set<Promise<void>>();
  /** Aborted at shutdown: answers still being written are left to recovery, loudly. */
  private readonly leaving = new AbortController();
  /** Writes each service answer, and knows those not yet in the store. */
  private readonly answers: AnswerRecorder;

  private readonly core: CoreSections;
  private readonly repo: ApprovalRepository;
  private readonly custody: CustodyGateway;
  private readonly delegations: Pick<DelegationBook, 'record' | 'all' | 'byId'>;
  private readonly freeze: Pick<FreezeSwitch, 'current' | 'lift'>;
  private readonly hold: FreezeHold;
  private readonly passkeys: PasskeyWrite;
  private readonly binding: () => ServiceBinding;
  private readonly signed: SendChecks;
  private readonly approvalsProblem: ApprovalsCheck;
  private readonly beforeClaim: ClaimChecks;
  /** Takes the claim of a request's one call (claim-execution.ts). */
  private readonly claims: ClaimExecution;
  /** Reads the groups of a request's approvers briefly before its claim (approver-left.ts). */
  private readonly poolReading: PoolReading;
  private readonly now: () => Date;
  private readonly log: EngineLog | undefined;
  private readonly lateLookup: LateLookup;

  constructor(deps: ExecutorDeps, options: ExecutorOptions = {}) {
    this.core = deps.core;
    this.repo = deps.repo;
    this.custody = deps.custody;
    this.delegations = deps.delegations;
    this.freeze = deps.freeze;
    this.hold = new FreezeHold(deps);
    this.passkeys = deps.passkeys;
    this.binding = deps.binding;
    this.signed = deps.signed;
    this.approvalsProblem = deps.approvalsProblem;
    this.beforeClaim = { policy: deps.policy, book: deps.delegations, settingsNow: deps.settingsNow };
    this.now = deps.now;
    this.log = deps.log;
    this.claims = new ClaimExecution({
      ...deps,
      hold: this.hold,
      beforeClaim: this.beforeClaim,
      owner: this.instanceId,
      staleAfterMs: options.staleAfterMs ?? STALE_APPROVAL_MS,
      onClaimed: (id) => this.held.add(id),
      settleRefused: (request, refused) => this.lateLookup.settleAsTheChainSays(request, refused),
    });
    this.poolReading = { policy: deps.policy, log: deps.log, boundMs: options.poolReadBoundMs };
    this.answers = new AnswerRecorder(
      {
        ...deps,
        isOurs: (request, claimed) => this.isOurs(request, claimed),
        release: (id) => this.held.delete(id),
        leaving: this.leaving.signal,
      },
      options.recordRetry ?? RECORD_RETRY,
    );
    this.lateLookup = new LateLookup({ ...deps, owner: this.instanceId }, options);
  }

  /**
   * Claim and run. Returns the request as it ended up, or undefined if it was not claimed here. If
   * sending could not even start (store or lock trouble), people are told once and the error is
   * rethrown; the periodic sweep tries again.
   */
  async execute(id: string): Promise<ApprovalRequest | undefined> {
    crashPoint('before-claim');
    if (this.isShuttingDown) return undefined; // shutting down: the next start sends it
    const taken = await this.claimUnlessSettled(id);
    if (!taken) {
      // A claim that may have been sent can be what kept it from being claimed: a person is asked now.
      await this.claims.askIfBlocked(id);
      return undefined;
    }
    if ('settled' in taken) return taken.settled;
    const { claimed } = taken;
    crashPoint('after-claim');
    // Keep the lease from now until the answer is recorded, so other replicas know someone is on it.
    const renewal = setInterval(() => {
      this.renewLease(claimed).catch((error: unknown) => {
        this.log?.warn('execution lease not renewed', { requestId: id, error: String(error) });
      });
    }, EXECUTION_LEASE_MS / 4);
    renewal.unref();
    this.announceSending(claimed);
    let result: CallResult | CallFailure | undefined;
    try {
      // Shutdown left it before the mark: nothing is sent, and its lease is ended for the next start.
      if (this.isShuttingDown) return claimed;
      const sent = await this.sendIfStillOurs(claimed);
      if (sent === 'not-called') {
        this.held.delete(id);
        return await this.repo.get(id);
      }
      if (sent && 'frozen' in sent) {
        this.held.delete(id);
        await this.core.notify(sent.frozen);
        return sent.frozen;
      }
      result = sent;
      if (!result) {
        this.held.delete(id);
        this.log?.warn("not sent: the request stopped being this process's to send", {
          requestId: id,
        });
        return this.repo.get(id);
      }
      crashPoint('after-answer');
      // The lease is still renewed while the answer is being written: it is known here.
      const kept = await this.answers.keep(claimed, result);
      // Refused right before the call as the chain records its call made: a person checks, as the late
      // lookup asks one for a request refused before the claim.
      const calledOnChain =
        kept.state === 'outcome-unknown' && 'note' in result && closedOnChainNote(result.note);
      return (calledOnChain && (await askAPersonToCheck(this.core, id))) || kept;
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Everything before the call's claim, and the claim: a frozen request held, a late one looked up (and
   * perhaps settled by it), stale figures read again. Undefined when nothing was claimed or settled.
   */
  private async claimUnlessSettled(
    id: string,
  ): Promise<{ claimed: ApprovalRequest } | { settled: ApprovalRequest } | undefined> {
    try {
      // Frozen: held before anything is read (no lookup, no re-check while sends are stopped).
      const stopped = await this.hold.beforeClaim(id);
      if (stopped) return { settled: stopped };
      // Approved long ago: it may have gone out already (see late-lookup.ts); looked up first.
      const looked = await this.lateLookup.beforeSending(id);
      if (looked !== 'send') {
        const settled = looked === 'not-now' ? undefined : looked.settled;
        return settled && { settled };
      }
      const approved = await this.repo.get(id);
      const fresh = await this.freshFigures(approved);
      if (fresh === 'not-now') return undefined;
      await readPoolsBriefly(this.poolReading, approved);
      return await this.claims.claimOrSettle(id, fresh);
    } catch (error) {
      await this.sayNotStarted(id).catch(() => {});
      throw error;
    }
  }

  /**
   * Shutdown's drain bound passed: every answer still being written is logged (reference and outcome)
   * and its retries stop; calls still under way are named. Both are left to recovery after a restart.
   */
  abandonUnfinished(): void {
    if (this.leaving.signal.aborted) return;
    this.leaving.abort();
    this.answers.logUnrecorded();
    for (const id of this.held) {
      if (this.answers.isUnrecorded(id)) continue;
      this.log?.warn(
        'SERVICE CALL UNDER WAY at shutdown: its answer will not be recorded by this process; after a restart the request is released if it was never sent, else called outcome unknown and reconciled',
        { requestId: id },
      );
    }
  }

  /** Whether shutdown has left the executions under way (no new call starts then). */
  get isShuttingDown(): boolean {
    return this.leaving.signal.aborted;
  }

  /** Resolves when listeners told of claims so far have finished (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.announcing.size > 0) await Promise.allSettled([...this.announcing]);
  }

  /** Tell listeners that it is being sent, without waiting for them: the money never waits on Slack. */
  private announceSending(request: ApprovalRequest): void {
    const told = this.core.notify(request);
    this.announcing.add(told);
    void told.finally(() => this.announcing.delete(told));
  }

  /**
   * The call, once the write-ahead mark is recorded. Undefined when the request is no longer ours, and
   * `frozen` when a freeze of sends handed it back: either way nothing is sent.
   */
  private async sendIfStillOurs(
    claimed: ApprovalRequest,
  ): Promise<CallResult | CallFailure | { frozen: ApprovalRequest } | 'not-called' | undefined> {
    let marked: ApprovalRequest | undefined;
    try {
      const step = await this.markOrHold(claimed);
      if (step === 'changed') return changedAfterClaim(this.signed, claimed);
      if (step && 'frozen' in step) return step;
      marked = step?.marked;
    } catch {
      return STORE_UNREACHED;
    }
    if (!marked) return undefined;
    const unsigned = await this.evidenceProblem(marked);
    if (unsigned) return unsigned;
    crashPoint('before-calling');
    if (!(await this.markCalling(marked))) return 'not-called';
    const recorded = await this.signed.closedOnChain.recordCall(this.repo.auditLog, marked, this.now());
    if (recorded === 'not-recorded') return 'not-called';
    if (recorded) return recorded;
    // The service-call line: the same requestId as the request's lifecycle lines and its webhook's.
    this.log?.info?.('sending to the service', {
      requestId: marked.id,
      kind: marked.kind,
      ...(marked.amount ? { amount: marked.amount } : {}),
      ...(marked.round > 1 ? { round: marked.round } : {}),
    });
    try {
      crashPoint('before-post');
      return await callService(this.custody, this.delegations, marked, this.freeze, this.passkeys);
    } catch (error) {
      return ownStoreFailure(claimed, error) ?? failedCallOutcome(error);
    }
  }

  /**
   * The claim's last mark, right after the request's and right before the call (claim-keys.ts): a
   * hand-back naming a claim marked so is then never believed. Refused or unanswered, nothing is sent
   * and the request stays marked sending: its lease runs out and its outcome is looked up, never resent.
   */
  private async markCalling(marked: ApprovalRequest): Promise<boolean> {
    const generation = marked.execution?.generation ?? 0;
    const called = await this.repo
      .markClaimCalling(marked.id, marked.round, generation, this.instanceId)
      .catch(() => false);
    if (!called) {
      this.log?.error?.(
        'NOT SENT: the claim could not be marked as calling; the request stays marked as sending and is looked up once its lease runs out',
        { requestId: marked.id },
      );
    }
    return called;
  }

  /**
   * The last check before the call: a payload amount not the amount shown, fewer approvals than the tiers
   * ask for, a needed signature not verifying now, or a filing seal not holding sends nothing (send-checks.ts);
   * last, the signed chain's word (ClosedOnChain.failureAtTheCall).
   */
  private async evidenceProblem(marked: ApprovalRequest): Promise<CallFailure | undefined> {
    if (!amountsAgree(marked)) {
      this.log?.warn('NOT SENT: the payload amount differs from the amount shown', { requestId: marked.id });
      return { to: 'failed', note: AMOUNT_DIFFERS };
    }
    let problem: string | undefined;
    try {
      problem = await this.approvalsProblem(marked);
    } catch {
      return STORE_UNREACHED;
    }
    if (!problem) return this.signed.closedOnChain.failureAtTheCall(marked);
    this.log?.warn('NOT SENT: the approvals do not hold', { requestId: marked.id, problem });
    return { to: 'failed', note: problem };
  }

  /**
   * The write-ahead mark, the last write before the call, atomic like the claim: written only if the
   * request is still executing under this claim and unmarked (nobody has since handed it on or
   * called it interrupted), with the lease pushed out for the call. From here on the call may have
   * gone out, so the request is never handed to another claimant. Undefined when it is not ours or
   * not marked: then nothing may be sent. Throws when the store cannot be reached.
   */
  async markSending(claimed: ApprovalRequest): Promise<ApprovalRequest | undefined> {
    const step = await this.markOrHold(claimed);
    if (step && step !== 'changed' && 'frozen' in step) await this.core.notify(step.frozen);
    return step && step !== 'changed' && 'marked' in step ? step.marked : undefined;
  }

  /**
   * markSending, or, when sends are frozen, the request handed back (approved, held: see
   * FreezeHold.handBack). The freeze is read just before the claim's mark; a freeze written after that read
   * ends the claim (FreezeSwitch), so the mark is refused and the freeze read again. 'changed': refused,
   * its approvals are no longer the claimed ones (approvalsAsClaimed); it fails, nothing sent.
   */
  private async markOrHold(claimed: ApprovalRequest): Promise<Marking | 'changed' | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const marked = await this.core.locked(claimed.id, (request) => this.markUnderLock(request, claimed));
      if (marked !== undefined) return marked ?? undefined;
    }
    return undefined;
  }

  /**
   * Under the request's lock: mark this claim as sending (null when it is not ours to mark, undefined
   * when the write raced our own lease renewal), or hand it back to a freeze.
   */
  private async markUnderLock(
    request: ApprovalRequest | undefined,
    claimed: ApprovalRequest,
  ): Promise<Marking | 'changed' | null | undefined> {
    if (!request || !this.isOurs(request, claimed) || request.execution?.phase !== 'claimed') return null;
    if (!approvalsAsClaimed(request, claimed)) return 'changed';
    if (await this.hold.applies(request)) return this.hold.handBack(request);
    const now = this.now();
    const execution = {
      ...request.execution,
      phase: 'sending' as const,
      leaseUntil: new Date(now.getTime() + EXECUTION_LEASE_MS).toISOString(),
    };
    const outcome = { ...request.outcome, sentAt: now.toISOString() };
    const next = { ...request, outcome, execution } as ApprovalRequest;
    // The claim is marked first: a stale copy of the request written back later (a replica whose
    // lock lapsed mid-write) can then never let a next generation claim and send it again.
    const marked = await this.repo.markClaimSending(
      request.id,
      request.round,
      request.execution?.generation ?? 0,
      this.instanceId,
      new Date(now.getTime() + EXECUTION_LEASE_MS),
    );
    // Refused: a freeze came (it ended the claim), or another replica ended this claim (we stalled
    // past our lease). Either way nothing is sent.
    if (!marked) return (await this.hold.applies(request)) ? this.hold.handBack(request) : null;
    // A write that raced our own lease renewal is tried again on a fresh read.
    return (await this.repo.saveIf(request, next, false)) ? { marked: next } : undefined;
  }

  /** Still executing under this process's claim of this round. */
  private isOurs(request: ApprovalRequest, claimed: ApprovalRequest): boolean {
    return (
      request.state === 'executing' &&
      request.round === claimed.round &&
      request.execution?.owner === this.instanceId &&
      request.execution.generation === claimed.execution?.generation
    );
  }

  /**
   * The single atomic step that turns an approved request into one allowed service call
   * (claim-execution.ts); undefined when it was not claimed here.
   */
  claimExecution(id: string, fresh?: FreshFigures): Promise<ApprovalRequest | undefined> {
    return this.claims.claim(id, fresh);
  }

  /**
   * Before sending a request approved a while ago (a restart, an outage), its stale figures are read
   * again (see recheckBeforeSending). Undefined when it is not stale, or not to be sent at all.
   */
  private async freshFigures(
    request: ApprovalRequest | undefined,
  ): Promise<FreshFigures | undefined | 'not-now'> {
    if (request?.state !== 'approved' || bindingProblem(request, this.binding())) return undefined;
    const now = this.now();
    if (!this.claims.isStale(request, now)) return undefined;
    const deps = { core: this.core, custody: this.custody, now: this.now, seal: this.signed.filingSeal };
    return recheckBeforeSending(deps, request, now);
  }

  /**
   * Push this claim's lease on its executing request further out. False when the request is no
   * longer executing under this claim; a write that raced another one is tried again on a fresh read.
   */
  private async renewLease(claimed: ApprovalRequest): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const renewed = await this.core.locked(claimed.id, async (request) => {
        const execution = request?.execution;
        if (!request || !execution || !this.isOurs(request, claimed)) return false;
        const leaseUntil = new Date(this.now().getTime() + EXECUTION_LEASE_MS).toISOString();
        const next = { ...request, execution: { ...execution, leaseUntil } };
        return (await this.repo.saveIf(request, next, false)) ? true : undefined;
      });
      if (renewed !== undefined) return renewed;
    }
    return false;
  }

  /**
   * Shutdown, once background work is done: a request this process claimed but never recorded an
   * answer for has nobody on it any more, so its lease ends now and the next start takes it over.
   */
  async releaseLeases(): Promise<void> {
    for (const id of [...this.held]) {
      await this.core.locked(id, async (request) => {
        if (request?.state !== 'executing' || request.execution?.owner !== this.instanceId) return;
        const leaseUntil = this.now().toISOString();
        const next = { ...request, execution: { ...request.execution, leaseUntil } };
        await this.repo.saveIf(request, next, false);
      });
      this.held.delete(id);
    }
  }

  /** Sending an approved request could not start: say so once, rather than show "Approved" and wait. */
  private sayNotStarted(id: string): Promise<ApprovalRequest | undefined> {
    return this.core.notice(
      id,
      'execution-delayed',
      'Approved, but sending could not start (the bot could not reach its store); nothing was sent. The bot tries again on its next sweep.',
      { when: (request) => request.state === 'approved' },
    );
  }
}
