// The maker-checker core (ApprovalCore), which ApprovalEngine (approval-engine.ts) wraps for the rest
// of the bot: file, approve, reject, cancel, expire. Every change is a read-check-write
// under the request's lock, persisted (and audited) before any listener hears of it. No Slack here.

import type { ApprovalEvidence, ApprovalPolicy } from '../access/index.js';
import { type AuditSeal, VerifiedClosings, VerifiedDelegations, VerifiedFreeze } from '../audit/index.js';
import type { Store } from '../store/index.js';
import { approvalsNeeded } from './approvals-needed.js';
import { bindingProblem, closeUnsendable, type ServiceBinding } from './binding.js';
import { clickLocked, refusedFromRead } from './click-lock.js';
import { type CancelOptions, type ClosingCore, cancelRequest, rejectRequest } from './close-by-person.js';
import type { CoreSections, NoticeOptions, WriteOptions } from './core-sections.js';
import { DelegationBook, delegationsLockName } from './delegation-requests.js';
import { PaidDestinations } from './destinations.js';
import { ApprovalErrorCode } from './error-codes.js';
import { type FilingDeps, fileRequest } from './filing.js';
import { FreezeSwitch } from './freeze.js';
import { JudgingPolicy } from './judging-policy.js';
import { LimitIndex } from './limit-index.js';
import { DEFAULT_LIMIT_WINDOW_MS, type LimitSettings } from './limits.js';
import type { CustodyGateway } from './ports.js';
import { type FileOptions, Preflight } from './preflight.js';
import { checkHeld, finishRecheckedApproval, markChecking, needsRecheck } from './recheck.js';
import { ApprovalRepository } from './repository.js';
import { assertSeen, type SeenRound } from './round.js';
import { SignedApprovals, type SigningOptions, type TakenEvidence } from './signed-approvals.js';
import { hasNotice, transition, withApproval, withNotice } from './state-machine.js';
import { queueStopLookup } from './stop-lookup.js';
import type {
  ActionResult,
  ApprovalRequest,
  AuditEntry,
  ClickOptions,
  EngineLog,
  LimitFigures,
  PolicySetting,
  Refusal,
  RequestDraft,
} from './types.js';

/** Told after each persisted change; the newest history entry says what happened. */
export type ApprovalListener = (request: ApprovalRequest) => Promise<void>;

export interface EngineOptions {
  store: Store;
  /** The custody service, in the engine's words (see ports.ts). */
  custody: CustodyGateway;
  policy: ApprovalPolicy;
  /** Request lifetime (CNGN_APPROVAL_TTL). */
  ttlMs: number;
  /** CNGN_LIMIT_WINDOW and CNGN_DAILY_LIMIT (default: a 24 h window, no daily limit). */
  limits?: LimitSettings;
  /** Public HTTPS origin: bridge requests then carry a per-request callback URL. */
  publicUrl?: string;
  /** Non-reversible id of the API key the service client uses. */
  keyId?: string;
  now?: () => Date;
  log?: EngineLog;
  /** CNGN_SIGNED_APPROVALS and where approvers sign (absent: approvals are clicks). */
  signing?: SigningOptions | undefined;
  /** The settings in effect: recorded in the audit chain at start when they changed (policy-recorder.ts). */
  policySnapshot?: PolicySetting[] | undefined;
  /**
   * The audit signing key and this process's marks: heads are signed, and archive segments; requests
   * are sealed, and a delegation is granted, and revoked, by what the signed chain holds too.
   */
  auditSeal?: AuditSeal | undefined;
}

/** What a click decides under the lock: a result, a final approval to re-check first, or a request that changed. */
type ApproveStep =
  | ActionResult
  | { ok: 'recheck'; request: ApprovalRequest }
  | { ok: 'changed'; request: ApprovalRequest; refusal?: Refusal };

/** An approval as the core takes it: the click, what was seen, and a passkey assertion when signed. */
type ApproveAs = ClickOptions & SeenRound & { evidence?: ApprovalEvidence | undefined };

/**
 * A conditional write in a locked section found the request changed since it read it (the lock lapsed;
 * another replica moved it on): nothing was written, and `locked` runs it again, freshly read and locked.
 */
export class WriteRefusedError extends Error {
  override name = 'WriteRefusedError';
  readonly code = ApprovalErrorCode.WriteRefused;
}

/**
 * How often a section is run again after its write was refused. Each refusal means another replica
 * wrote in between, so more than a few in a row means the request is being fought over: the caller
 * gets the error (nothing of this section was written) rather than an endless loop.
 */
export const MAX_SECTION_RUNS = 5;

export class ApprovalCore implements CoreSections, ClosingCore {
  readonly repo: ApprovalRepository;
  readonly delegations: DelegationBook;
  /** The freeze of sends, shared by every replica through the store (and the signed chain, with the key). */
  readonly freeze: FreezeSwitch;
  /** Where this business has paid (the bot's own record), kept as requests reach sent or completed. */
  readonly paid: PaidDestinations;
  readonly preflight: Preflight;
  /** The requests of the limit window, and the lock decisions about limits are made under. */
  readonly limits: LimitIndex;
  readonly now: () => Date;
  /** Passkey-signed approvals: the passkey book, the challenges, and the checks of assertions. */
  readonly signed: SignedApprovals;
  private readonly listeners: ApprovalListener[] = [];
  private readonly filing: FilingDeps;
  private keyId: string | undefined;
  /** The settings judging clicks, once recorded: named on each approval step. */
  readonly judging: JudgingPolicy;

  constructor(readonly options: EngineOptions) {
    this.repo = new ApprovalRepository(options.store, options.custody.environment);
    this.now = options.now ?? (() => new Date());
    this.keyId = options.keyId;
    this.judging = new JudgingPolicy(options.policySnapshot !== undefined);
    const { auditSeal } = options;
    // Where the bot holds the audit signing key, a request closed on the signed chain is never sent again.
    const closings =
      auditSeal && new VerifiedClosings(this.repo.auditLog, options.custody.environment, auditSeal);
    this.signed = new SignedApprovals({ ...options, closings });
    const onChain = auditSeal
      ? new VerifiedDelegations(this.repo.auditLog, options.custody.environment, auditSeal)
      : undefined;
    this.delegations = new DelegationBook(
      options.store,
      options.custody.environment,
      (ids) => this.repo.getMany(ids),
      this.now,
      (request) => this.signed.grantStands(request),
      onChain && (() => onChain.read()),
    );
    options.policy.useDelegations({ all: () => this.delegations.all(), now: this.now });
    const { repo, now } = this;
    const freezeOnChain =
      auditSeal && new VerifiedFreeze(repo.auditLog, options.custody.environment, auditSeal);
    this.freeze = new FreezeSwitch({
      store: options.store,
      repo,
      auditLog: repo.auditLog,
      now,
      log: options.log,
      onChain: freezeOnChain && (() => freezeOnChain.read()),
      liftWithinMs: 2 * options.ttlMs,
    });
    this.paid = new PaidDestinations(options.store, options.custody.environment);
    this.preflight = new Preflight({
      custody: options.custody,
      repo: this.repo,
      paid: this.paid,
      recent: () => this.limits.requests(),
      now: this.now,
      ...(options.log ? { log: options.log } : {}),
    });
    this.listeners.push((request) => this.paid.record(request));
    this.limits = new LimitIndex(
      options.store,
      options.custody.environment,
      options.limits ?? { windowMs: DEFAULT_LIMIT_WINDOW_MS },
      (ids) => this.repo.getMany(ids),
      this.now,
    );
    const { store, policy, ttlMs, publicUrl } = options;
    this.filing = {
      store,
      repo,
      policy,
      limits: this.limits,
      freeze: this.freeze,
      binding: () => this.binding,
      ttlMs,
      publicUrl,
      now,
      seal: this.signed.filingSeal,
      notify: (request) => this.notify(request),
    };
  }

  /** Bind new requests to this API key too (start-up wiring, before any request is filed). */
  useServiceKey(keyId: string): void {
    this.keyId = keyId;
  }

  /** The environment and key that requests are filed for now, and the only ones they are sent to. */
  get binding(): ServiceBinding {
    return { environment: this.options.custody.environment, keyId: this.keyId };
  }

  onChange(listener: ApprovalListener): void {
    this.listeners.push(listener);
  }

  /** Tell every listener; a failing listener is logged, never undoes the persisted change. */
  async notify(request: ApprovalRequest): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(request);
      } catch (error) {
        this.options.log?.warn('approval listener failed', { requestId: request.id, error: String(error) });
      }
    }
  }

  /**
   * Read-check-write under the request's lock, shared by every replica on this store. The lock alone
   * does not make the write safe on Redis or PostgreSQL: a holder can stall past its lease while
   * another replica takes the lock and changes the request. So every write of the request in a
   * section goes through `write`, conditional on what the section read; a refused write throws
   * WriteRefusedError, and the whole section runs again on a fresh read (its checks then decide on
   * the newer state: a click on a request approved meanwhile is refused, a recorded answer is kept
   * only if the request is still this claim's).
   */
  async locked<T>(
    id: string,
    fn: (request: ApprovalRequest | undefined) => Promise<T>,
    waitUntil?: number,
  ): Promise<T> {
    for (let run = 1; ; run++) {
      // Given `waitUntil`, a wait for the lock past it ends in LockTimeoutError.
      const wait = waitUntil === undefined ? undefined : { waitMs: Math.max(1, waitUntil - Date.now()) };
      try {
        return await this.options.store.withLock(
          `approval:${id}`,
          async () => fn(await this.repo.get(id)),
          wait,
        );
      } catch (error) {
        if (!(error instanceof WriteRefusedError) || run >= MAX_SECTION_RUNS) throw error;
        this.options.log?.warn('request changed under a lapsed lock; deciding again on a fresh read', {
          requestId: id,
          run,
        });
      }
    }
  }

  /**
   * Inside `locked`: persist `next` only if the request is still exactly `read` (what the section
   * decided on). Refused: WriteRefusedError, nothing written, nobody told; the section runs again.
   */
  async write(read: ApprovalRequest, next: ApprovalRequest, options: WriteOptions = {}): Promise<void> {
    options.click?.onWriting?.();
    if (!(await this.repo.saveIf(read, next, options.audit ?? true))) {
      throw new WriteRefusedError(`request ${read.id} changed since it was read; nothing was written`);
    }
  }

  /**
   * Inside `locked`: `write` for an approval; a final one only within the daily limit, decided under
   * the limits lock (see LimitIndex.approve). Locks are taken in one order only: the request's, then
   * the delegations lock (a delegate's approval), then the passkey book's (a signed approval's counter
   * moved up, PasskeyBook.advanceCounter; let go of before this write), then the limits lock; never
   * the other way round. Refused: nothing written, and the figures are returned.
   */
  writeApproval(
    read: ApprovalRequest,
    next: ApprovalRequest,
    options: WriteOptions = {},
  ): Promise<LimitFigures | undefined> {
    return this.limits.approve(read, next, () => this.write(read, next, options), options.click?.signal);
  }

  get(id: string): Promise<ApprovalRequest | undefined> {
    return this.repo.get(id);
  }

  /**
   * The delegations lock, shared by every replica: an approval (or rejection) in someone's place reads
   * the delegations and writes under it, and a revocation writes under it, so once a revocation is
   * confirmed no later approval through that delegation counts. Always taken after a request's lock,
   * never before one (a revocation too holds its own request's lock first): no two holders wait on
   * each other.
   */
  underDelegationsLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.options.store.withLock(delegationsLockName(this.options.custody.environment), fn);
  }

  /**
   * Run a decision about `user` on `request` under the delegations lock when it may be made in someone
   * else's place: the user is no approver in their own right (an approver's check never reads
   * delegations) and the request is not a delegation (approved only by approvers in their own right).
   */
  async asDelegateMaybe<T>(request: ApprovalRequest, user: string, fn: () => Promise<T>): Promise<T> {
    const forOthers =
      request.kind !== 'delegation' && !(await this.options.policy.isApprover(user, request.kind));
    return forOthers ? this.underDelegationsLock(fn) : fn();
  }

  /** Inside `locked`: the stop of an approved request queued for its lookup, before the stop is written. */
  queueStopLookup(id: string): Promise<void> {
    return queueStopLookup(this.options.store, id);
  }

  /** File a draft (see filing.ts); the listeners are told once it is saved. */
  file(unchecked: RequestDraft, options: FileOptions = {}): Promise<ApprovalRequest> {
    return fileRequest(this.filing, unchecked, options);
  }

  /**
   * Record a notice on the request (audited, state unchanged) and tell the listeners; once per round
   * unless `again`. Undefined when there was nothing to record.
   */
  async notice(
    id: string,
    action: string,
    note: string,
    options: NoticeOptions = {},
  ): Promise<ApprovalRequest | undefined> {
    const noted = await this.locked(id, async (request) => {
      if (!request || (options.when && !options.when(request))) return undefined;
      if (!options.again && hasNotice(request, action)) return undefined;
      const next = withNotice(request, action, note, this.now());
      await this.write(request, next);
      return next;
    });
    if (noted) await this.notify(noted);
    return noted;
  }

  /** Remember where the approval message is, so each step updates it in place. Not an audited step. */
  async attachMessage(id: string, channel: string, ts: string): Promise<void> {
    await this.locked(id, async (request) => {
      if (request) await this.write(request, { ...request, announcement: { channel, ts } }, { audit: false });
    });
  }

  isExpired(request: ApprovalRequest, now: Date): boolean {
    return request.state === 'pending' && now.getTime() >= Date.parse(request.expiresAt);
  }

  /** Under the lock: expire a due request (persisted), so no click can act on it. */
  async expireIfDue(
    request: ApprovalRequest,
    now: Date,
    click?: ClickOptions,
  ): Promise<ApprovalRequest | undefined> {
    if (!this.isExpired(request, now)) return undefined;
    const expired = transition(request, 'expired', { action: 'expired', at: now });
    await this.write(request, { ...expired, checking: undefined } as ApprovalRequest, { click });
    return expired;
  }

  /**
   * One approver's click. Non-final approvals are added at once; the final one re-reads stale
   * figures first (outside the lock, holding off other final clicks), then approves or sends back.
   */
  async approve(id: string, user: string, options: ApproveAs = {}): Promise<ActionResult> {
    const { round, figuresDigest, evidence, ...click } = options;
    const seen = { round, figuresDigest };
    // Read group membership (a Slack call, cached) before taking the lock, not while holding it.
    await this.options.policy.isApprover(user);
    // A signature's one-time nonce is taken once, before the lock (a section may run again).
    const taken = await this.signed.take(evidence);
    const first = await clickLocked<ApproveStep>(
      this,
      id,
      click,
      (request) => this.approveLocked(request, user, seen, click, taken),
      // Its wait for the lock ended: what a read makes certain is said (nothing is written).
      (request) =>
        refusedFromRead(request, { moved: (r) => (r.state === 'pending' ? undefined : 'not-pending') }),
    );
    click.onRecorded?.(first.ok === 'recheck' ? { rechecking: true } : undefined);
    if (first.ok === 'changed') {
      await this.notify(first.request);
      return { ok: false, reason: first.refusal ?? 'expired', request: first.request };
    }
    if (first.ok === 'recheck') {
      const { custody, policy } = this.options;
      const done = await finishRecheckedApproval(
        { core: this, custody, policy, seal: this.signed.filingSeal, now: this.now, log: this.options.log },
        first.request,
        user,
        seen,
      );
      if (done.ok) this.signed.recorded(done.request, user);
      return done;
    }
    if (first.ok) this.signed.recorded(first.request, user);
    if (first.ok) await this.notify(first.request);
    return first;
  }

  /** Under the lock: a click on a request that is still pending and may still be sent. */
  private async approveLocked(
    request: ApprovalRequest | undefined,
    user: string,
    seen: SeenRound,
    click: ClickOptions,
    taken: TakenEvidence | undefined,
  ): Promise<ApproveStep> {
    if (!request) return { ok: false, reason: 'not-found' };
    // Moved on (approved by someone else, closed): said so even past the click's write deadline, as
    // nothing is written. Only a click that would write is turned away by its deadline.
    if (request.state !== 'pending') return { ok: false, reason: 'not-pending', request };
    const now = this.now();
    click.signal?.throwIfAborted();
    const expired = await this.expireIfDue(request, now, click);
    if (expired) return { ok: 'changed', request: expired, refusal: 'expired' };
    const problem = bindingProblem(request, this.binding);
    if (problem) {
      const closed = closeUnsendable(request, problem, now);
      await this.write(request, closed, { click });
      return { ok: 'changed', request: closed, refusal: 'not-pending' };
    }
    return this.asDelegateMaybe(request, user, () =>
      this.approveAllowed(request, user, now, seen, click, taken),
    );
  }

  /** The approver's own (or delegated) click: the policy and balance checks, then the approval or a re-check. */
  private async approveAllowed(
    request: ApprovalRequest,
    user: string,
    now: Date,
    seen: SeenRound,
    click: ClickOptions,
    taken?: TakenEvidence,
  ): Promise<ApproveStep> {
    assertSeen(request, seen);
    // None before the settings given are on the record (PolicyNotOpened): its step must name them.
    const policyFingerprint = this.judging.forStep();
    const check = await this.options.policy.check(request, user);
    if (!check.allowed) return { ok: false, reason: check.reason, request };
    // Never approve into a balance known not to cover it (the last figure read, store only).
    if (await this.preflight.storedShortfall(request)) {
      return { ok: false, reason: 'insufficient-balance', request };
    }
    // Signed where it must be, over the request as stored now (signed-approvals.ts); nothing recorded yet.
    const signing = await this.signed.check(request, user, taken);
    if ('refusal' in signing) return { ok: false, reason: signing.refusal, request };
    click.signal?.throwIfAborted(); // the policy check may have read Slack: time has passed
    // Final at the count the executor will require (approvals-needed.ts): tiers raised since filing count.
    const needed = approvalsNeeded(request, this.options.policy) ?? request.requiredApprovals;
    const isFinal = request.approvals.length + 1 >= needed;
    // A click that is not final here never wipes another's final re-check (a replica whose tiers
    // differ judged that one final): it waits like another final click would.
    if (!isFinal && checkHeld(request, now)) return { ok: false, reason: 'checking', request };
    if (isFinal && needsRecheck(request))
      return markChecking(
        this,
        request,
        { user, now, onBehalfOf: check.onBehalfOf, click },
        signing.evidence,
      );
    const given = {
      ...signing,
      onBehalfOf: check.onBehalfOf,
      delegationId: check.delegationId,
      policyFingerprint,
      needed,
    };
    const next = withApproval(request, user, now, given);
    const over = await this.writeApproval(request, next, { click });
    if (over) return { ok: false, reason: 'over-daily-limit', request, limit: over };
    return { ok: true, request: next };
  }

  /** A rejection of the `round` the rejecter saw, when given (see close-by-person.ts). */
  reject(
    id: string,
    user: string,
    reason: string,
    options: ClickOptions & { round?: number | undefined } = {},
  ): Promise<ActionResult> {
    return rejectRequest(this, this.options.policy, id, user, reason, options);
  }

  /** The requester's cancellation (see close-by-person.ts). */
  cancel(id: string, user: string, options: CancelOptions = {}): Promise<ActionResult> {
    return cancelRequest(this, id, user, options);
  }

  /** Open requests (pending first, then those in flight), oldest first. */
  async openRequests(): Promise<ApprovalRequest[]> {
    return this.repo.openRequests();
  }

  audit(n: number): Promise<AuditEntry[]> {
    return this.repo.recentAudit(n);
  }
}
