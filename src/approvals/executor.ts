// Exactly one service call per approved request. The claim is one atomic step: approved → executing,
// written only if the request is still as this process read it, so of all processes that read it
// approved (even one whose lock ran out) exactly one moves it on and sends. The call runs outside the
// lock and is never retried. Just before the call, a write-ahead mark (phase `sending`) is recorded
// the same way: a claim stopped before it was certainly never sent and goes to the next claimant; one
// stopped after it may have been, and goes to the reconciler. An unclear outcome becomes
// `outcome-unknown`, for the reconciler — never a resend.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CngnError,
  type CngnErrorKind,
  CngnResponseError,
  CngnTransportError,
  RateBudgetError,
} from '../cngn/errors.js';
import { Money } from '../format/money.js';
import { bindingProblem, closeUnsendable } from './binding.js';
import { crashPoint } from './crash-points.js';
import type { ApprovalCore } from './engine.js';
import { needsRecheck, recheckFigures } from './recheck.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, ExecutionOutcome, RequestState } from './types.js';

type CallResult = { to: 'sent' | 'completed'; outcome: ExecutionOutcome };

type CallFailure = { to: 'failed' | 'outcome-unknown'; note: string };

/**
 * Service answers documented to come before anything is done: the key, IP and decryption checks run
 * first, then validation, then the documented refusals. Any other error answer to a money POST does
 * not prove nothing happened (the service says: reconcile before retrying a 400), so it is unknown.
 */
const NOT_PROCESSED: ReadonlySet<CngnErrorKind> = new Set<CngnErrorKind>([
  'permission-denied',
  'ip-not-allowed',
  'invalid-key',
  'merchant-not-found',
  'decryption-failed',
  'validation',
  'service-unavailable',
  'account-unresolvable',
  'rate-limited',
]);

/** Which errors prove nothing was done (failed) and which leave the outcome unknown. */
export function classifyFailure(error: unknown): CallFailure {
  if (error instanceof CngnTransportError) {
    return error.mayHaveBeenSent
      ? { to: 'outcome-unknown', note: 'the service may have received it, but no answer arrived' }
      : { to: 'failed', note: 'the service could not be reached; nothing was sent' };
  }
  if (error instanceof RateBudgetError) {
    return { to: 'failed', note: 'the request budget was spent; nothing was sent' };
  }
  if (error instanceof CngnError) {
    if (NOT_PROCESSED.has(error.kind)) return { to: 'failed', note: error.serviceMessage };
    return {
      to: 'outcome-unknown',
      note: `the service answered ${error.httpStatus} "${error.serviceMessage}", which does not show whether it acted`,
    };
  }
  if (error instanceof CngnResponseError) {
    return { to: 'outcome-unknown', note: 'the answer could not be read' };
  }
  return { to: 'outcome-unknown', note: 'an unexpected error happened during the call' };
}

/**
 * How long a claim holds before it counts as orphaned. Claiming and recording the claim on the request
 * happen in one hold of the request's lock, so a live holder never needs anywhere near this long; one
 * that stalls past it may be overtaken, and then its conditional write fails and it sends nothing.
 */
export const CLAIM_LEASE_MS = 60_000;

/**
 * How long an executing request stays its caller's without renewal. The caller renews it while the
 * call is in flight; after it runs out, another process may call the outcome unknown (never resend).
 */
export const EXECUTION_LEASE_MS = 120_000;

/** No live process is making this request's call (its lease ran out, or it never had one). */
export function leaseExpired(request: ApprovalRequest, now: Date): boolean {
  return !request.execution || Date.parse(request.execution.leaseUntil) <= now.getTime();
}

/**
 * Executing, but its claimant never wrote the write-ahead mark: the call was certainly not made. A
 * lease without a phase was written before the mark existed, and its call may have gone out.
 */
export function certainlyUnsent(request: ApprovalRequest): boolean {
  return request.state === 'executing' && request.execution?.phase === 'claimed';
}

/** An approved request sent this long after its final approval has its stale figures read again first. */
export const STALE_APPROVAL_MS = 15 * 60_000;

/** How soon a failed check of stale figures is tried again. */
const RECHECK_RETRY_MS = 60_000;

export interface ExecutorOptions {
  /** How long after the final approval its figures count as stale (default STALE_APPROVAL_MS). */
  staleAfterMs?: number;
  /** How the store write of a service answer is retried when it fails (default RECORD_RETRY). */
  recordRetry?: RecordRetry;
}

/**
 * The write of a service answer is a store write, not a money call, so it is retried: with a
 * doubling pause from `firstDelayMs` up to `maxDelayMs`, for `forMs` in all. Only then is the
 * answer left to the lease running out (outcome unknown, reconciled from the transaction list).
 */
export interface RecordRetry {
  firstDelayMs: number;
  maxDelayMs: number;
  forMs: number;
}

export const RECORD_RETRY: RecordRetry = { firstDelayMs: 250, maxDelayMs: 15_000, forMs: 5 * 60_000 };

/**
 * How long shutdown waits for executions under way (a call, the write of its answer) before it leaves
 * them: the same bound as the drain of Slack answers. A store that is down keeps an answer's write
 * retrying for RecordRetry.forMs, far longer than a supervisor waits after SIGTERM.
 */
export const STOP_DRAIN_MS = 10_000;

/** The service answered, but the store would not take the answer within RecordRetry.forMs. */
export class AnswerNotRecordedError extends Error {
  override name = 'AnswerNotRecordedError';
}

/** Figures read again just before sending, for the round they were read in. */
interface FreshFigures {
  round: number;
  display: ApprovalRequest['display'];
  payload: ApprovalRequest['payload'];
}

export class Executor {
  readonly instanceId = randomUUID();
  /** Requests this process claimed and has not recorded an answer for. */
  private readonly held = new Set<string>();
  /** Listeners being told of a claim; the call never waits for them. */
  private readonly telling = new Set<Promise<void>>();
  private readonly staleAfterMs: number;
  private readonly recordRetry: RecordRetry;
  /** Service answers known here and not yet in the store, by request (what shutdown must not drop silently). */
  private readonly unrecorded = new Map<string, Record<string, unknown>>();
  /** Aborted at shutdown: answers still being written are left to recovery, loudly. */
  private readonly leaving = new AbortController();

  constructor(
    private readonly core: ApprovalCore,
    options: ExecutorOptions = {},
  ) {
    this.staleAfterMs = options.staleAfterMs ?? STALE_APPROVAL_MS;
    this.recordRetry = options.recordRetry ?? RECORD_RETRY;
  }

  /**
   * Claim and run. Returns the request as it ended up, or undefined if it was not claimed here. If
   * sending could not even start (store or lock trouble), people are told once and the error is
   * rethrown; the periodic sweep tries again.
   */
  async execute(id: string): Promise<ApprovalRequest | undefined> {
    let claimed: ApprovalRequest | undefined;
    crashPoint('before-claim');
    if (this.left) return undefined; // shutting down: the next start sends it
    try {
      const fresh = await this.freshFigures(id);
      if (fresh === 'not-now') return undefined;
      claimed = await this.claimExecution(id, fresh);
    } catch (error) {
      await this.sayNotStarted(id).catch(() => {});
      throw error;
    }
    if (!claimed) return undefined;
    crashPoint('after-claim');
    // Keep the lease from now until the answer is recorded, so other replicas know someone is on it.
    const renewal = setInterval(() => {
      this.renewLease(claimed).catch((error: unknown) => {
        this.core.options.log?.warn('execution lease not renewed', { requestId: id, error: String(error) });
      });
    }, EXECUTION_LEASE_MS / 4);
    renewal.unref();
    this.tell(claimed);
    let result: CallResult | CallFailure | undefined;
    try {
      // Shutdown left it before the mark: nothing is sent, and its lease is ended for the next start.
      if (this.left) return claimed;
      result = await this.sendIfStillOurs(claimed);
      if (!result) {
        this.held.delete(id);
        this.core.options.log?.warn("not sent: the request stopped being this process's to send", {
          requestId: id,
        });
        return this.core.get(id);
      }
      crashPoint('after-answer');
      // The lease is still renewed while the answer is being written: it is known here.
      return await this.recordPersistently(claimed, result);
    } finally {
      clearInterval(renewal);
    }
  }

  /**
   * Write the service's answer, retrying the store write (never the call) with backoff for
   * RecordRetry.forMs. Each failure is logged with the reference and outcome, so the answer is never
   * only in memory. Given up: AnswerNotRecordedError; the lease then runs out and the request is
   * called outcome-unknown and reconciled from the transaction list.
   */
  private async recordPersistently(
    claimed: ApprovalRequest,
    result: CallResult | CallFailure,
  ): Promise<ApprovalRequest> {
    const { firstDelayMs, maxDelayMs, forMs } = this.recordRetry;
    const started = Date.now();
    const answer = {
      requestId: claimed.id,
      result: result.to,
      ...('outcome' in result
        ? {
            reference: result.outcome.reference,
            transactionId: result.outcome.transactionId,
            status: result.outcome.status,
          }
        : { note: result.note }),
    };
    let delay = firstDelayMs;
    this.unrecorded.set(claimed.id, answer);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.record(claimed, result);
        } catch (error) {
          const spent = Date.now() - started;
          if (this.leaving.signal.aborted) throw this.leftAtShutdown(claimed, answer, attempt, error);
          if (spent + delay > forMs) {
            this.held.delete(claimed.id);
            this.core.options.log?.warn(
              'SERVICE ANSWER NOT RECORDED: the store would not take it; the request will be called outcome unknown and reconciled',
              { ...answer, attempts: attempt, error: String(error) },
            );
            throw new AnswerNotRecordedError(
              `the service's answer for ${claimed.id} (${result.to}) could not be recorded after ${attempt} tries: ${String(error)}`,
            );
          }
          this.core.options.log?.warn('service answer not recorded yet; writing it again', {
            ...answer,
            attempt,
            retryInMs: delay,
            error: String(error),
          });
          try {
            await sleep(delay, undefined, { signal: this.leaving.signal });
          } catch {
            throw this.leftAtShutdown(claimed, answer, attempt, error);
          }
          delay = Math.min(delay * 2, maxDelayMs);
        }
      }
    } finally {
      this.unrecorded.delete(claimed.id);
    }
  }

  /**
   * Shutdown came while an answer's write was being retried: stop retrying. The request stays
   * executing, marked as sending, in this claim's hold (its lease is ended by releaseLeases if the
   * store lets it, else it runs out): after a restart it is called outcome unknown and looked up in
   * the transaction list, never resent. The answer itself is in the log.
   */
  private leftAtShutdown(
    claimed: ApprovalRequest,
    answer: Record<string, unknown>,
    attempts: number,
    error: unknown,
  ): AnswerNotRecordedError {
    this.core.options.log?.warn('service answer write stopped at shutdown', {
      ...answer,
      attempts,
      error: String(error),
    });
    return new AnswerNotRecordedError(
      `the service's answer for ${claimed.id} was not recorded before shutdown (${attempts} tries): ${String(error)}`,
    );
  }

  /**
   * Shutdown's drain bound passed: every answer still being written is logged (reference and outcome)
   * and its retries stop; calls still under way are named. Both are left to recovery after a restart.
   */
  leave(): void {
    if (this.leaving.signal.aborted) return;
    this.leaving.abort();
    for (const [, answer] of this.unrecorded) {
      this.core.options.log?.warn(
        'SERVICE ANSWER NOT RECORDED at shutdown: the store would not take it before the bot stopped; after a restart the request is called outcome unknown and reconciled from the transaction list, never resent',
        answer,
      );
    }
    for (const id of this.held) {
      if (this.unrecorded.has(id)) continue;
      this.core.options.log?.warn(
        'SERVICE CALL UNDER WAY at shutdown: its answer will not be recorded by this process; after a restart the request is released if it was never sent, else called outcome unknown and reconciled',
        { requestId: id },
      );
    }
  }

  /** Whether shutdown has left the executions under way (no new call starts then). */
  get left(): boolean {
    return this.leaving.signal.aborted;
  }

  /** Resolves when listeners told of claims so far have finished (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.telling.size > 0) await Promise.allSettled([...this.telling]);
  }

  /** Tell listeners that it is being sent, without waiting for them: the money never waits on Slack. */
  private tell(request: ApprovalRequest): void {
    const told = this.core.notify(request);
    this.telling.add(told);
    void told.finally(() => this.telling.delete(told));
  }

  /**
   * The call, once the write-ahead mark is recorded. Undefined when the request is no longer ours:
   * nothing is sent.
   */
  private async sendIfStillOurs(claimed: ApprovalRequest): Promise<CallResult | CallFailure | undefined> {
    let marked: ApprovalRequest | undefined;
    try {
      marked = await this.markSending(claimed);
    } catch {
      return {
        to: 'failed',
        note: 'the bot could not reach its store just before sending; nothing was sent',
      };
    }
    if (!marked) return undefined;
    try {
      crashPoint('before-post');
      return await this.call(marked);
    } catch (error) {
      if (claimed.kind === 'delegation') {
        // Its "call" is a write to the bot's own store, which says afterwards whether it was made.
        return {
          to: 'outcome-unknown',
          note: "writing the delegation to the bot's store failed or went unanswered; the store is checked for it, and it is never written twice",
        };
      }
      return classifyFailure(error);
    }
  }

  /**
   * The write-ahead mark, the last write before the call, atomic like the claim: written only if the
   * request is still executing under this claim and unmarked (nobody has since handed it on or
   * called it interrupted), with the lease pushed out for the call. From here on the call may have
   * gone out, so the request is never handed to another claimant. Undefined when it is no longer
   * ours: then nothing may be sent. Throws when the store cannot be reached.
   */
  async markSending(claimed: ApprovalRequest): Promise<ApprovalRequest | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const marked = await this.core.locked(claimed.id, async (request) => {
        if (!request || !this.isOurs(request, claimed) || request.execution?.phase !== 'claimed') {
          return null;
        }
        const now = this.core.now();
        const execution = {
          ...request.execution,
          phase: 'sending' as const,
          leaseUntil: new Date(now.getTime() + EXECUTION_LEASE_MS).toISOString(),
        };
        const outcome = { ...request.outcome, sentAt: now.toISOString() };
        const next = { ...request, outcome, execution } as ApprovalRequest;
        // The claim is marked first: a stale copy of the request written back later (a replica whose
        // lock lapsed mid-write) can then never let a next generation claim and send it again.
        const marked = await this.core.repo.markClaimSending(
          request.id,
          request.round,
          request.execution?.generation ?? 0,
          this.instanceId,
          new Date(now.getTime() + EXECUTION_LEASE_MS),
        );
        // Refused: another replica ended this claim (we stalled past our lease). Not ours: send nothing.
        if (!marked) return null;
        // A write that raced our own lease renewal is tried again on a fresh read.
        return (await this.core.repo.saveIf(request, next, false)) ? next : undefined;
      });
      if (marked !== undefined) return marked ?? undefined;
    }
    return undefined;
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
   * The single atomic step that turns an approved request into one allowed service call. A request
   * bound to another environment or key is failed instead (nothing sent), and people are told.
   */
  async claimExecution(id: string, fresh?: FreshFigures): Promise<ApprovalRequest | undefined> {
    let unsendable: ApprovalRequest | undefined;
    const claimed = await this.core.locked(id, async (request) => {
      if (request?.state !== 'approved') return undefined;
      const now = this.core.now();
      const problem = bindingProblem(request, this.core.binding);
      if (problem) {
        const closed = closeUnsendable(request, problem, now);
        if (await this.core.repo.saveIf(request, closed)) unsendable = closed;
        return undefined;
      }
      // Figures approved long ago are only ever sent as just read again (see freshFigures).
      if (fresh ? fresh.round !== request.round : this.isStale(request, now)) return undefined;
      const generation = await this.core.repo.claim(id, request.round, this.instanceId, now, CLAIM_LEASE_MS);
      if (generation === undefined) return undefined;
      const execution = {
        owner: this.instanceId,
        leaseUntil: new Date(now.getTime() + EXECUTION_LEASE_MS).toISOString(),
        generation,
        phase: 'claimed' as const,
      };
      const { nextCheckAt: _retry, ...approved } = request;
      const base = (
        fresh ? { ...approved, display: fresh.display, payload: fresh.payload } : approved
      ) as ApprovalRequest;
      const notes = [
        ...(generation > 0
          ? ['taken over: the process that had claimed it stopped before sending anything']
          : []),
        ...(fresh ? ['approved a while ago, so its figures were checked again first: unchanged'] : []),
      ];
      const next = transition({ ...base, outcome: { sentAt: now.toISOString() }, execution }, 'executing', {
        action: 'executing',
        ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
        at: now,
      });
      // Written only if the request is still the approved one read above: a process that took over
      // meanwhile (our lock and claim ran out) moved it on first, and then it sends, not us.
      if (!(await this.core.repo.saveIf(request, next))) return undefined;
      this.held.add(id);
      return next;
    });
    if (unsendable) await this.core.notify(unsendable);
    return claimed;
  }

  /** Approved long enough ago that figures which can go stale (quote, account name) must be read again. */
  isStale(request: ApprovalRequest, now: Date): boolean {
    if (!needsRecheck(request)) return false;
    const approvedAt = request.approvals.at(-1)?.at ?? request.createdAt;
    return now.getTime() - Date.parse(approvedAt) > this.staleAfterMs;
  }

  /**
   * Before sending a request approved a while ago (a restart, an outage), read its stale figures
   * again: unchanged → send with them; changed → back to the approvers; unreadable → say so, retry.
   */
  private async freshFigures(id: string): Promise<FreshFigures | undefined | 'not-now'> {
    const request = await this.core.get(id);
    if (request?.state !== 'approved' || bindingProblem(request, this.core.binding)) return undefined;
    const now = this.core.now();
    if (!this.isStale(request, now)) return undefined;
    // A check that failed is not repeated on every sweep: the reads share the service's budget.
    if (request.nextCheckAt && Date.parse(request.nextCheckAt) > now.getTime()) return 'not-now';
    let checked: Awaited<ReturnType<typeof recheckFigures>>;
    try {
      checked = await recheckFigures(this.core.options.api, request);
    } catch {
      await this.core.locked(id, async (current) => {
        if (current?.state !== 'approved' || current.round !== request.round) return;
        const nextCheckAt = new Date(this.core.now().getTime() + RECHECK_RETRY_MS).toISOString();
        await this.core.write(current, { ...current, nextCheckAt }, { audit: false });
      });
      await this.core.notice(
        id,
        'execution-delayed',
        'Not sent yet: it was approved a while ago, so its figures are checked again first, and the service could not be asked just now; nothing was sent. The bot tries again shortly.',
        { when: (r) => r.state === 'approved' && r.round === request.round },
      );
      return 'not-now';
    }
    if (checked.material) {
      await this.core.sendBackStale(request, checked.request, checked.reason);
      return 'not-now';
    }
    return { round: request.round, display: checked.request.display, payload: checked.request.payload };
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
        const leaseUntil = new Date(this.core.now().getTime() + EXECUTION_LEASE_MS).toISOString();
        const next = { ...request, execution: { ...execution, leaseUntil } };
        return (await this.core.repo.saveIf(request, next, false)) ? true : undefined;
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
        const leaseUntil = this.core.now().toISOString();
        const next = { ...request, execution: { ...request.execution, leaseUntil } };
        await this.core.repo.saveIf(request, next, false);
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

  private async call(request: ApprovalRequest): Promise<CallResult> {
    const sentAt = request.outcome?.sentAt;
    const base = sentAt ? { sentAt } : {};
    switch (request.kind) {
      case 'withdraw': {
        const p = request.payload;
        const result = await this.core.options.api.withdraw({
          amount: Money.parseDecimal(p.amount),
          address: p.address,
          networkId: p.networkId,
          shouldSaveAddress: p.shouldSaveAddress,
        });
        return { to: 'sent', outcome: { ...base, reference: result.trxRef } };
      }
      case 'redeem': {
        const p = request.payload;
        const result = await this.core.options.api.redeem({
          amount: Money.parseDecimal(p.amount),
          accountNumber: p.accountNumber,
          bankCode: p.bankCode,
        });
        return { to: 'sent', outcome: { ...base, reference: result.trxRef } };
      }
      case 'bridge': {
        const result = await this.core.options.api.bridge({ ...request.payload });
        return {
          to: 'sent',
          outcome: {
            ...base,
            reference: result.reference,
            receivableAddress: result.receivableAddress,
            ...(result.transactionId ? { transactionId: result.transactionId } : {}),
          },
        };
      }
      case 'whitelist':
        await this.core.options.api.addWhitelist({ ...request.payload });
        return { to: 'completed', outcome: { ...base, status: 'completed' } };
      case 'settlement':
        await this.core.options.api.updateSettlementAccount({ ...request.payload });
        return { to: 'completed', outcome: { ...base, status: 'completed' } };
      case 'delegation':
        // Nothing goes to the service: the delegation is written to the store, where it takes effect.
        await this.core.delegations.record(request);
        return { to: 'completed', outcome: { ...base, status: 'completed' } };
    }
  }

  /**
   * Persist what the call produced, only onto this claim: still executing under it, or called
   * outcome-unknown because this claim's lease ran out (then the answer still applies). A claim that
   * stalled this long may have been handed back and sent by another replica; its answer is dropped.
   */
  private async record(claimed: ApprovalRequest, result: CallResult | CallFailure): Promise<ApprovalRequest> {
    const saved = await this.core.locked(claimed.id, async (current) => {
      if (!current || !(this.isOurs(current, claimed) || interruptedClaim(current, claimed))) {
        this.core.options.log?.warn("answer not recorded: the request stopped being this process's claim", {
          requestId: claimed.id,
          result: result.to,
          state: current?.state,
        });
        return undefined;
      }
      const { execution: _done, ...request } = current;
      const now = this.core.now();
      let next: ApprovalRequest;
      if ('outcome' in result) {
        const outcome = { ...request.outcome, ...result.outcome };
        next = transition({ ...request, outcome }, result.to, {
          action: result.to,
          ...(outcome.reference ? { note: outcome.reference } : {}),
          at: now,
        });
        await this.indexOutcome(next);
      } else {
        if (request.state === result.to) return undefined;
        const to: RequestState = result.to;
        next = transition(
          {
            ...request,
            outcome: { ...request.outcome, ...(to === 'failed' ? { reason: result.note } : {}) },
          },
          to,
          { action: to, note: result.note, at: now },
        );
        if (to === 'outcome-unknown') next = { ...next, nextCheckAt: now.toISOString(), checks: 0 };
      }
      // Conditional like every write here: if the request changed since it was read (this process's
      // lock lapsed and another replica moved it on), the section runs again on the fresh request and
      // records the answer only if it is still this claim's; a stale copy never overwrites a newer step.
      await this.core.write(current, next);
      return next;
    });
    this.held.delete(claimed.id);
    if (!saved) return (await this.core.get(claimed.id)) ?? claimed;
    await this.core.notify(saved);
    return saved;
  }

  async indexOutcome(request: ApprovalRequest): Promise<void> {
    const { reference, transactionId } = request.outcome ?? {};
    if (reference) await this.core.repo.indexReference(reference, request.id);
    if (transactionId) await this.core.repo.indexReference(transactionId, request.id);
  }
}

/**
 * Outcome-unknown because this claim was interrupted (its lease ran out after its mark): the same round,
 * and no other claim has moved it to executing since this one did.
 */
function interruptedClaim(current: ApprovalRequest, claimed: ApprovalRequest): boolean {
  if (current.state !== 'outcome-unknown' || current.round !== claimed.round) return false;
  const ours = claimed.history.length - 1;
  const entry = current.history[ours];
  const claimEntry = claimed.history[ours];
  if (!entry || !claimEntry || entry.action !== 'executing' || entry.at !== claimEntry.at) return false;
  return !current.history.slice(ours + 1).some((h) => h.action === 'executing' || h.action === 'released');
}
