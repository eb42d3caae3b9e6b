// How the executor keeps a service answer it has been given: the store write is retried, the call
// never is; and how long shutdown waits for executions under way.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreSections } from './core-sections.js';
import { ApprovalErrorCode } from './error-codes.js';
import { interruptedClaim } from './leases.js';
import { markConflict, referenceConflict, withConflictRecorded } from './reference-conflicts.js';
import type { ApprovalRepository } from './repository.js';
import type { CallFailure, CallResult } from './service-call.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, EngineLog, RequestState } from './types.js';

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
  readonly code = ApprovalErrorCode.AnswerNotRecorded;
}

/** What the executor lends the recorder of its answers. */
export interface AnswerRecorderDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  now: () => Date;
  log?: EngineLog | undefined;
  /** Still executing under this process's claim of this round. */
  isOurs: (request: ApprovalRequest, claimed: ApprovalRequest) => boolean;
  /** The claim is no longer this process's to end at shutdown: its answer is written, or given up. */
  release: (id: string) => void;
  /** Aborted at shutdown: answers still being written are left to recovery, loudly. */
  leaving: AbortSignal;
}

export class AnswerRecorder {
  /** Service answers known here and not yet in the store, by request (what shutdown must not drop silently). */
  private readonly unrecorded = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly deps: AnswerRecorderDeps,
    private readonly retry: RecordRetry,
  ) {}

  /**
   * Write the service's answer, retrying the store write (never the call) with backoff for
   * RecordRetry.forMs. Each failure is logged with the reference and outcome, so the answer is never
   * only in memory. Given up: AnswerNotRecordedError; the lease then runs out and the request is
   * called outcome-unknown and reconciled from the transaction list.
   */
  async keep(claimed: ApprovalRequest, result: CallResult | CallFailure): Promise<ApprovalRequest> {
    const { firstDelayMs, maxDelayMs, forMs } = this.retry;
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
          if (this.deps.leaving.aborted) throw this.writeStopped(claimed, answer, attempt, error);
          if (spent + delay > forMs) {
            this.deps.release(claimed.id);
            this.deps.log?.warn(
              'SERVICE ANSWER NOT RECORDED: the store would not take it; the request will be called outcome unknown and reconciled',
              { ...answer, attempts: attempt, error: String(error) },
            );
            throw new AnswerNotRecordedError(
              `the service's answer for ${claimed.id} (${result.to}) could not be recorded after ${attempt} tries: ${String(error)}`,
            );
          }
          this.deps.log?.warn('service answer not recorded yet; writing it again', {
            ...answer,
            attempt,
            retryInMs: delay,
            error: String(error),
          });
          try {
            await sleep(delay, undefined, { signal: this.deps.leaving });
          } catch {
            throw this.writeStopped(claimed, answer, attempt, error);
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
   * executing, marked as sending, in this claim's hold (its lease is ended by Executor.releaseLeases
   * if the store lets it, else it runs out): after a restart it is called outcome unknown and looked
   * up in the transaction list, never resent. The answer itself is in the log.
   */
  private writeStopped(
    claimed: ApprovalRequest,
    answer: Record<string, unknown>,
    attempts: number,
    error: unknown,
  ): AnswerNotRecordedError {
    this.deps.log?.warn('service answer write stopped at shutdown', {
      ...answer,
      attempts,
      error: String(error),
    });
    return new AnswerNotRecordedError(
      `the service's answer for ${claimed.id} was not recorded before shutdown (${attempts} tries): ${String(error)}`,
    );
  }

  /**
   * Persist what the call produced, only onto this claim: still executing under it, or called
   * outcome-unknown because this claim's lease ran out (then the answer still applies). A claim that
   * stalled this long may have been handed back and sent by another replica; its answer is dropped.
   */
  private async record(claimed: ApprovalRequest, result: CallResult | CallFailure): Promise<ApprovalRequest> {
    let holder: string | undefined;
    const saved = await this.deps.core.locked(claimed.id, async (current) => {
      holder = undefined;
      if (!current || !(this.deps.isOurs(current, claimed) || interruptedClaim(current, claimed))) {
        this.deps.log?.warn("answer not recorded: the request stopped being this process's claim", {
          requestId: claimed.id,
          result: result.to,
          state: current?.state,
        });
        return undefined;
      }
      const { execution: _done, ...request } = current;
      let next = answered(request as ApprovalRequest, result, this.deps.now());
      if (!next) return undefined;
      // The answer is this call's own, so it is recorded; a reference already recorded as another
      // request's stays that one's, and this request's conflict mark goes into the same write as the
      // answer: it cannot settle, nor be told sent, without it.
      holder = 'outcome' in result ? await this.deps.repo.indexOutcome(next) : undefined;
      if (holder) {
        const words = referenceConflict(next, holder);
        next = withConflictRecorded(next, words.key, words.own, this.deps.now());
      }
      // Conditional like every write here: if the request changed since it was read (this process's
      // lock lapsed and another replica moved it on), the section runs again on the fresh request and
      // records the answer only if it is still this claim's; a stale copy never overwrites a newer step.
      await this.deps.core.write(current, next);
      return next;
    });
    this.deps.release(claimed.id);
    if (!saved) return (await this.deps.repo.get(claimed.id)) ?? claimed;
    await this.deps.core.notify(saved);
    if (!holder) return saved;
    // The answer and its mark are in the store: a failure from here on is not the answer's, so it is
    // never retried as one. The holder's mark is written again by the sweep while it is missing.
    const words = referenceConflict(saved, holder);
    try {
      const told = await markConflict(this.deps.core, saved.id, words.key, words.own, this.deps.now);
      await markConflict(this.deps.core, holder, words.key, words.holder, this.deps.now);
      if (told) return told;
    } catch (error) {
      this.deps.log?.warn(
        "a reference conflict's notice or the holder's mark is not written yet; the sweep writes it",
        {
          requestId: saved.id,
          holder,
          reference: saved.outcome?.reference,
          error: String(error),
        },
      );
    }
    return saved;
  }

  /** The service's answer for this request is known here and not yet in the store. */
  isUnrecorded(id: string): boolean {
    return this.unrecorded.has(id);
  }

  /** Shutdown's drain bound passed: every answer still being written is logged (reference and outcome). */
  logUnrecorded(): void {
    for (const [, answer] of this.unrecorded) {
      this.deps.log?.warn(
        'SERVICE ANSWER NOT RECORDED at shutdown: the store would not take it before the bot stopped; after a restart the request is called outcome unknown and reconciled from the transaction list, never resent',
        answer,
      );
    }
  }
}

/**
 * The request with the call's answer as its next step: the outcome it reported, or the failure (a
 * failed call proved nothing was done, see service-call.ts). Nothing when a failure finds the request
 * already in that state.
 */
function answered(
  request: ApprovalRequest,
  result: CallResult | CallFailure,
  now: Date,
): ApprovalRequest | undefined {
  if ('outcome' in result) {
    const outcome = { ...request.outcome, ...result.outcome };
    return transition({ ...request, outcome }, result.to, {
      action: result.to,
      ...(outcome.reference ? { note: outcome.reference } : {}),
      at: now,
    });
  }
  if (request.state === result.to) return undefined;
  const to: RequestState = result.to;
  const failed = to === 'failed' ? { reason: result.note, nothingSent: true as const } : {};
  const next = transition({ ...request, outcome: { ...request.outcome, ...failed } }, to, {
    action: to,
    note: result.note,
    at: now,
  });
  if (to !== 'outcome-unknown') return next;
  const { answeredChecks: _answered, ...counted } = next;
  return { ...counted, nextCheckAt: now.toISOString(), checks: 0 };
}
