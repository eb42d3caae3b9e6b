// The approval engine as the rest of the bot sees it: one object that files and decides requests,
// executes approved ones exactly once, tracks them to the end, and resumes after a restart. What the
// approvals folder offers others is listed in index.ts.
import type { ActorLookup } from './audit-actors.js';
import type { ArchiveOutcome } from './audit-archive.js';
import { AuditExports } from './audit-exports.js';
import {
  type AuditAlarmListener,
  type AuditCheck,
  type AuditHealth,
  AuditKeeper,
  AuditKeyMismatch,
} from './audit-keeper.js';
import type { AuditDraft } from './audit-log.js';
import type { AuditSeal } from './audit-signing.js';
import { type Delegation, endDelegationsOf, revokeDelegations } from './delegations.js';
import { ApprovalCore, type ApprovalListener, type EngineOptions } from './engine.js';
import { Executor, type ExecutorOptions, STOP_DRAIN_MS } from './executor.js';
import { type ExtendResult, extendRequest } from './extend.js';
import type { FreezeListener, FreezeResult } from './freeze.js';
import {
  fileUnfreeze,
  freezeAtStart,
  freezeSends,
  sendApproved,
  type UnfreezeFiling,
} from './freeze-commands.js';
import { type LimitUse, limitUse } from './limits.js';
import type { PolicySnapshot } from './policy-record.js';
import { PolicyRecorder } from './policy-recorder.js';
import type { CustodyReport } from './ports.js';
import type { FileOptions } from './preflight.js';
import { type ReminderPoint, Reminders } from './reminders.js';
import { resolveByHand } from './resolve-by-hand.js';
import { type BridgeCallbackHint, Tracker, type TrackerOptions } from './tracker.js';
import type {
  ActionResult,
  ApprovalRequest,
  AuditEntry,
  BalanceCheck,
  ClickOptions,
  Freeze,
  Refusal,
  RequestChecks,
  RequestDraft,
} from './types.js';

export interface ApprovalEngineOptions extends EngineOptions, TrackerOptions, ExecutorOptions {
  /** How often the sweep (expiry, polls, reconciliation) runs (default 15 s). */
  tickMs?: number;
  /** CNGN_AUDIT_RETENTION: archived audit entries older than this are removed; unset keeps everything. */
  auditRetentionMs?: number | undefined;
  /** The audit signing key and this process's marks: heads are signed, and archive segments. */
  auditSeal?: AuditSeal | undefined;
  /** CNGN_AUDIT_ARCHIVE's folder (needs auditSeal) and CNGN_AUDIT_ARCHIVE_EVERY. */
  auditArchive?: { dir: string; everyMs: number } | undefined;
  /** CNGN_APPROVAL_REMINDERS: points of a pending request's lifetime; none or empty: no reminders. */
  reminderPoints?: readonly ReminderPoint[];
  /** Who actors are (the Slack directory): each audit entry records its actor's name and e-mail then. */
  actorLookup?: ActorLookup | undefined;
  /** The settings in effect: recorded in the audit chain at start when they changed (policy-recorder.ts). */
  policySnapshot?: PolicySnapshot | undefined;
}

export class ApprovalEngine {
  readonly core: ApprovalCore;
  readonly executor: Executor;
  readonly tracker: Tracker;
  readonly reminders: Reminders;
  /** Audit exports under way; one a crash interrupted is told to the person who asked. */
  readonly auditExports: AuditExports;
  /** Checks, signs, archives and retains the audit trail (see AuditKeeper). */
  readonly auditKeeper: AuditKeeper;
  /** Puts policy changes (settings at start, user group members) on the record. */
  readonly policyRecorder: PolicyRecorder;
  private readonly inFlight = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(private readonly options: ApprovalEngineOptions) {
    const core = new ApprovalCore(options);
    this.core = core;
    if (options.actorLookup) core.repo.auditLog.describeActorsWith(options.actorLookup);
    // Each part gets what it uses, and reaches the core only for its locks, writes and notices.
    const parts = { core, repo: core.repo, custody: options.custody, now: core.now, log: options.log };
    const own = { delegations: core.delegations, freeze: core.freeze };
    this.executor = new Executor({ ...parts, ...own, binding: () => core.binding }, options);
    this.tracker = new Tracker({ ...parts, ...own, executor: this.executor }, options);
    this.reminders = new Reminders({ ...parts, policy: options.policy }, options.reminderPoints ?? []);
    this.auditExports = new AuditExports(options.store, core.repo.auditLog, core.repo.environment, core.now);
    // Once lifted, what the freeze held goes out now (each through the claim), not at the next sweep.
    core.freeze.onChange(async (change) => {
      if ('lifted' in change) this.background(sendApproved(core, this.executor, options.log));
    });
    this.auditKeeper = new AuditKeeper({
      store: options.store,
      log: core.repo.auditLog,
      environment: core.repo.environment,
      openRequests: () => core.repo.openRequests(),
      seal: options.auditSeal,
      archiveDir: options.auditArchive?.dir,
      archiveEveryMs: options.auditArchive?.everyMs,
      retentionMs: options.auditRetentionMs,
      now: core.now,
      logger: options.log,
    });
    this.policyRecorder = new PolicyRecorder({
      store: options.store,
      log: core.repo.auditLog,
      environment: core.repo.environment,
      now: core.now,
      logger: options.log,
    });
  }

  /** Record that the bot saw a user group's members change (see PolicyRecorder). */
  recordMembershipChange(
    group: string,
    added: readonly string[],
    removed: readonly string[],
  ): Promise<AuditEntry | undefined> {
    return this.policyRecorder.recordMembershipChange(group, added, removed);
  }

  onChange(listener: ApprovalListener): void {
    this.core.onChange(listener);
  }

  /** Bind requests to this API key (its non-reversible id): they are never sent with another one. */
  useServiceKey(keyId: string): void {
    this.core.useServiceKey(keyId);
  }

  file(draft: RequestDraft, options?: FileOptions): Promise<ApprovalRequest> {
    return this.core.file(draft, options);
  }

  /** What can be checked before filing the draft, without moving money (see preflight.ts). */
  preflight(draft: RequestDraft): Promise<RequestChecks> {
    return this.core.preflight.check(draft);
  }

  /**
   * The balance check of a withdrawal or redemption as it stands now (through the cache; `stored`: the
   * last figure read, store only), the request itself not counted as committed.
   */
  balanceFor(request: ApprovalRequest, options?: { stored?: boolean }): Promise<BalanceCheck | undefined> {
    return this.core.preflight.balanceFor(request, options);
  }

  /** An approver's click; when it completes the approvals, execution starts in the background. */
  async approve(id: string, user: string, click?: ClickOptions): Promise<ActionResult> {
    const result = await this.core.approve(id, user, click);
    if (result.ok && result.request.state === 'approved') this.background(this.executor.execute(id));
    return result;
  }

  reject(id: string, user: string, reason: string, click?: ClickOptions): Promise<ActionResult> {
    return this.core.reject(id, user, reason, click);
  }

  /**
   * Before showing the reject modal: would this person be allowed to reject (an approver, or a delegate
   * for what their delegation covers)? Changes nothing.
   */
  async mayReject(id: string, user: string): Promise<{ refusal?: Refusal; request?: ApprovalRequest }> {
    const request = await this.get(id);
    if (!request) return { refusal: 'not-found' };
    if (request.state !== 'pending') return { refusal: 'not-pending', request };
    if (this.core.now().getTime() >= Date.parse(request.expiresAt)) return { refusal: 'expired', request };
    const check = await this.options.policy.mayReject(request, user);
    return check.allowed ? { request } : { refusal: check.reason, request };
  }

  cancel(id: string, user: string, click?: ClickOptions): Promise<ActionResult> {
    return this.core.cancel(id, user, click);
  }

  /** The requester's one Extend, by at most the original lifetime (default: all of it). */
  extend(id: string, user: string, byMs?: number, click?: ClickOptions): Promise<ExtendResult> {
    return extendRequest(this.core, id, user, byMs, click);
  }

  get(id: string): Promise<ApprovalRequest | undefined> {
    return this.core.get(id);
  }

  /**
   * An approver asks that `delegate` may approve in their place until `until`, for requests of at most
   * `max` ₦ (canonical decimal) when given: filed as a request another approver must approve.
   */
  fileDelegation(delegator: string, delegate: string, until: Date, max?: string): Promise<ApprovalRequest> {
    return this.core.file({
      kind: 'delegation',
      payload: { delegator, delegate, until: until.toISOString(), ...(max ? { max } : {}) },
      display: {},
      requester: delegator,
    });
  }

  /** The freeze of sends in place now (read from the store, so current on every replica). */
  currentFreeze(): Promise<Freeze | undefined> {
    return this.core.freeze.current();
  }

  /** Told after each freeze and lift is stored and audited. */
  onFreezeChange(listener: FreezeListener): void {
    this.core.freeze.onChange(listener);
  }

  /** `/cngn freeze`: an approver stops every send at once (see freeze-commands.ts). */
  freezeSends(user: string, reason: string): Promise<FreezeResult | { ok: false; reason: 'not-approver' }> {
    return freezeSends(this.core, this.options.policy, user, reason);
  }

  /** CNGN_START_FROZEN: frozen before anything is sent; `announce` tells the listeners once they are there. */
  freezeAtStart(): Promise<Freeze & { announce: () => void }> {
    return freezeAtStart(this.core);
  }

  /** `/cngn unfreeze`: filed as a request another approver must approve (see freeze-commands.ts). */
  fileUnfreeze(user: string): Promise<UnfreezeFiling> {
    return fileUnfreeze(this.core, this.options.policy, user);
  }

  /** The limits as set, and what counts against them now (read only: nothing is decided or written). */
  async limitUse(): Promise<LimitUse> {
    return limitUse(await this.core.limits.counted(), this.core.limits.settings);
  }

  /** Delegations in effect now, oldest first (read from the store: current on every replica). */
  liveDelegations(): Promise<Delegation[]> {
    return this.core.delegations.live();
  }

  /** End the live delegations between `by` and `person` at once (see revokeDelegations). */
  revokeDelegations(by: string, person: string): Promise<ApprovalRequest[]> {
    const { core, options } = this;
    const isApprover = (user: string) => options.policy.isApprover(user);
    return revokeDelegations({ core, book: core.delegations, isApprover, now: core.now }, by, person);
  }

  /** End the live delegations to or from `person`, who may no longer act here (see endDelegationsOf). */
  endDelegationsOf(person: string, why: string): Promise<ApprovalRequest[]> {
    const { core } = this;
    return endDelegationsOf({ core, book: core.delegations, now: core.now }, person, why);
  }

  /** An approver other than the requester closes an outcome-unknown request (see resolve-by-hand.ts). */
  resolveByHand(id: string, user: string, to: 'completed' | 'failed', note: string): Promise<ActionResult> {
    return resolveByHand(this.core, this.options.policy, id, user, to, note);
  }

  attachMessage(id: string, channel: string, ts: string): Promise<void> {
    return this.core.attachMessage(id, channel, ts);
  }

  openRequests(): Promise<ApprovalRequest[]> {
    return this.core.openRequests();
  }

  audit(n: number): Promise<AuditEntry[]> {
    return this.core.audit(n);
  }

  /**
   * Check this environment's audit trail: the chain's links (naming the first broken one), its signed
   * head, this process's mark, the archive.
   */
  verifyAudit(): Promise<AuditCheck> {
    return this.auditKeeper.check();
  }

  /** Write an audit archive segment now, with what is new since the last one. */
  archiveAudit(reason: string): Promise<ArchiveOutcome> {
    return this.auditKeeper.archiveNow(reason);
  }

  /** The last audit check, for /healthz. */
  auditHealth(): AuditHealth {
    return this.auditKeeper.health();
  }

  /** Told of each new audit break (at start, daily, or found by an append). */
  onAuditAlarm(listener: AuditAlarmListener): void {
    this.auditKeeper.onAlarm(listener);
  }

  /** This environment's audit entries with `at` in [from, to), oldest first, as stored (chain fields too). */
  async auditRange(from: Date | undefined, to: Date | undefined): Promise<AuditEntry[]> {
    const entries = await this.core.repo.auditLog.entries(this.core.repo.environment);
    return entries.filter((entry) => {
      const at = Date.parse(entry.at);
      return (!from || at >= from.getTime()) && (!to || at < to.getTime());
    });
  }

  /** For each entry, whether its step took effect (see ApprovalRepository.tookEffect). */
  auditTookEffect(entries: AuditEntry[]): Promise<boolean[]> {
    return this.core.repo.tookEffect(entries);
  }

  /** Audit a step that is no request's own (an alert re-posted, the log exported). */
  recordAudit(draft: AuditDraft): Promise<AuditEntry> {
    return this.core.repo.auditLog.append(this.core.repo.environment, draft);
  }

  /**
   * Apply the audit retention: remove the entries older than it that a verified archive segment holds,
   * and record the cut in the chain. Returns how many were removed (always 0 without a retention or an
   * archive).
   */
  applyAuditRetention(): Promise<number> {
    return this.auditKeeper.retention();
  }

  /** An approver named in CNGN_APPROVERS or a member of CNGN_APPROVER_GROUP. */
  isApprover(user: string): Promise<boolean> {
    return this.options.policy.isApprover(user);
  }

  /** The request a service reference or transaction id belongs to (to thread alerts under it). */
  async findByReference(reference: string): Promise<ApprovalRequest | undefined> {
    const id = await this.core.repo.findIdByReference(reference);
    return id ? this.get(id) : undefined;
  }

  /** For the webhook pipeline: called once per new event, put in the engine's words. */
  async onCustodyReport(report: CustodyReport): Promise<void> {
    await this.tracker.onCustodyReport(report);
  }

  onBridgeCallback(token: string, hint: BridgeCallbackHint): Promise<boolean> {
    return this.tracker.onBridgeCallback(token, hint);
  }

  /** One sweep now (expiry, polls, reconciliation, reminders); overlapping sweeps are skipped. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.sweepRequests();
      // After expiry: a request that just lapsed gets no reminder.
      await this.reminders.sweep().catch((error: unknown) => {
        this.options.log?.warn('approval reminders could not be sent; tried again next sweep', {
          error: String(error),
        });
      });
      await this.settleAuditExports();
      await this.auditKeeper.sweep();
    } finally {
      this.ticking = false;
    }
  }

  /** Audit exports a stopped process left undelivered: marked and told (see AuditExports). Never throws. */
  private async settleAuditExports(): Promise<void> {
    await this.auditExports.settle().catch((error: unknown) => {
      this.options.log?.warn('interrupted audit exports could not be told; tried again next sweep', {
        error: String(error),
      });
    });
  }

  /** Expire what is due, then follow, send and reconcile the open requests. */
  private async sweepRequests(): Promise<void> {
    await this.core.expireDue();
    await this.tracker.tick();
  }

  /**
   * Pick up in-flight requests, then sweep periodically. Requests left open in another environment
   * are closed first (see closeOtherEnvironments).
   */
  async start(): Promise<void> {
    // The audit trail is checked (and its head signed) before anything is appended to it; only a
    // signing key that differs from the store's stops the start.
    await this.auditKeeper.start().catch((error: unknown) => {
      if (error instanceof AuditKeyMismatch) throw error;
      this.options.log?.warn('the audit trail could not be checked at start; checked again daily', {
        error: String(error),
      });
    });
    // The settings this start runs with, on the record when they changed; the start goes on without it.
    const snapshot = this.options.policySnapshot;
    if (snapshot) {
      await this.policyRecorder.recordAtStart(snapshot).catch((error: unknown) => {
        this.options.log?.warn('the policy could not be recorded at start; recorded at the next start', {
          error: String(error),
        });
      });
    }
    // Then: an export a crash interrupted is told even when the rest of the resume fails.
    await this.settleAuditExports();
    await this.core.repo.migrateLegacyOpenSet();
    await this.core.closeOtherEnvironments();
    await this.tracker.resume();
    await this.sweepRequests();
    // Reminders that fell due while no replica ran are sent now (only the latest point of each).
    await this.reminders.sweep().catch((error: unknown) => {
      this.options.log?.warn('approval reminders could not be sent; tried again next sweep', {
        error: String(error),
      });
    });
    await this.applyAuditRetention().catch((error: unknown) => {
      this.options.log?.warn('audit retention could not be applied', { error: String(error) });
    });
    const every = this.options.tickMs ?? 15_000;
    // Replicas take turns: one sweep per interval across all of them, so polls are not doubled.
    const sweep = async () => {
      // Each process checks the audit trail daily, whichever replica takes the sweeps.
      await this.auditKeeper.daily();
      const slot = Math.floor(Date.now() / every);
      if (
        await this.options.store.setIfAbsent(`approvals:sweep:${slot}`, this.executor.instanceId, every * 2)
      ) {
        await this.tick();
      }
    };
    this.timer = setInterval(() => this.background(sweep()), every);
    this.timer.unref();
  }

  /**
   * Stop sweeping and wait for background work (executions, sweeps) for at most `drainMs`. Past it,
   * the executions still under way are left: each answer not yet in the store is logged with its
   * reference, and recovery after a restart finds the request (sent, or maybe sent, but unrecorded)
   * and reconciles it. Then leases this process holds are ended, if the store takes it in time.
   */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const drainMs = options.drainMs ?? STOP_DRAIN_MS;
    if (!(await within(this.idle(), drainMs))) {
      this.executor.abandonUnfinished();
      // The retries stop at once; a store write already under way may not return before we go.
      await within(this.idle(), RELEASE_BOUND_MS);
    }
    const released = await within(
      this.executor.releaseLeases().then(
        () => true,
        (error: unknown) => {
          this.options.log?.warn('execution leases not ended at shutdown; they run out by themselves', {
            error: String(error),
          });
          return true;
        },
      ),
      RELEASE_BOUND_MS,
    );
    if (!released) {
      this.options.log?.warn('execution leases not ended at shutdown in time; they run out by themselves');
    }
    // A clean stop archives what is new, within a bound (the next start or sweep writes it otherwise).
    if (!(await within(this.auditKeeper.stop(), ARCHIVE_AT_STOP_MS))) {
      this.options.log?.warn('the audit archive was not written at shutdown in time');
    }
  }

  /** Resolves when background work started so far (executions, sweeps) has finished. For tests and shutdown. */
  async idle(): Promise<void> {
    do {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.core.freeze.idle(); // its listeners may start more background work
      await this.executor.idle();
      await this.auditKeeper.idle();
    } while (this.inFlight.size > 0);
  }

  private background(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      this.options.log?.warn('approval background work failed', { error: String(error) });
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }
}

/** How long shutdown waits for the store to end this process's execution leases. */
const RELEASE_BOUND_MS = 2_000;
/** How long shutdown waits for the audit segment of what is new. */
const ARCHIVE_AT_STOP_MS = 3_000;

/** Whether `work` settled within `ms` (it goes on either way; a rejection counts as settled). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}
