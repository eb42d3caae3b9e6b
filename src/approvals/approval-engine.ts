// The approval engine as the rest of the bot sees it: one object that files and decides requests,
// executes approved ones exactly once, tracks them to the end, and resumes after a restart. What the
// approvals folder offers others is listed in index.ts.

import type { Delegation, SigningRule } from '../access/index.js';
import type {
  ArchiveOutcome,
  AuditAlarmListener,
  AuditCheck,
  AuditDraft,
  AuditHealth,
  UndeliveredListener,
} from '../audit/index.js';
import { ApprovalCore, type ApprovalListener } from './approval-core.js';
import { approvalsShown } from './approvals-needed.js';
import type { CancelOptions } from './close-by-person.js';
import { endDelegationsOf, revokeDelegations } from './delegation-requests.js';
import { type AuditExportAsk, type AuditSideOptions, EngineAudit } from './engine-audit.js';
import { registerParts } from './engine-parts.js';
import { EnginePasskeys } from './engine-passkeys.js';
import {
  type ApprovalReadiness,
  canApprove,
  mayReject,
  type RejectReadiness,
  waitingFor,
} from './engine-questions.js';
import { EngineRunning } from './engine-running.js';
import { Executor, type ExecutorOptions } from './executor.js';
import { type ExtendResult, extendRequest } from './extend.js';
import {
  type FileConfirmations,
  type FileResult,
  type FilingProblem,
  fileChecked,
  filingProblems,
} from './file-checked.js';
import type { FreezeListener, FreezeResult } from './freeze.js';
import {
  type FreezeRefusal,
  fileUnfreeze,
  freezeAtStart,
  freezeSends,
  sendApproved,
  type UnfreezeFiling,
} from './freezing.js';
import { type LimitUse, limitUse } from './limits.js';
import type { PolicyRecordListener } from './policy-recorder.js';
import type { CustodyReport, ServiceEnvironment } from './ports.js';
import { type ReminderPoint, Reminders } from './reminders.js';
import type { ReportRefusal } from './report-requests.js';
import { resolveByHand } from './resolve-by-hand.js';
import { approvalsCheck } from './send-checks.js';
import { SigningSwitch } from './signing-switch.js';
import { StopLookup } from './stop-lookup.js';
import { type BridgeCallbackHint, Tracker, type TrackerOptions } from './tracker.js';
import type {
  ActionResult,
  ApprovalRequest,
  ApproveOptions,
  AuditEntry,
  BalanceCheck,
  ClickOptions,
  Freeze,
  RejectOptions,
  RequestChecks,
  RequestDraft,
  RequestKind,
} from './types.js';

export interface ApprovalEngineOptions extends AuditSideOptions, TrackerOptions, ExecutorOptions {
  /** How often the sweep (expiry, polls, reconciliation) runs (default 15 s). */
  tickMs?: number;
  /** CNGN_APPROVAL_REMINDERS: points of a pending request's lifetime; none or empty: no reminders. */
  reminderPoints?: readonly ReminderPoint[];
}

export class ApprovalEngine {
  private readonly core: ApprovalCore;
  /** The audit trail's side: its questions are passed on to it (see EngineAudit). */
  private readonly trail: EngineAudit;
  private readonly executor: Executor;
  private readonly tracker: Tracker;
  private readonly reminders: Reminders;
  /** The lookup after a stop of an approved request (stop-lookup.ts). */
  private readonly stopLookup: StopLookup;
  /** Registering, listing and revoking passkeys, and the signing pages' challenges (engine-passkeys.ts). */
  readonly passkeys: EnginePasskeys;
  /** Opening the trail, the start, the sweeps, background work and the stop (engine-running.ts). */
  private readonly running: EngineRunning;
  /** The signing rule switched while the bot runs, on the record first (signing-switch.ts). */
  private readonly signingSwitch: SigningSwitch;

  constructor(private readonly options: ApprovalEngineOptions) {
    const core = new ApprovalCore(options);
    this.core = core;
    this.trail = new EngineAudit(core, options);
    this.passkeys = new EnginePasskeys(core, options, (work) => this.running.background(work));
    this.signingSwitch = new SigningSwitch(core, this.trail, options.policySnapshot);
    // Each part gets what it uses, and reaches the core only for its locks, writes and notices.
    const parts = { core, repo: core.repo, custody: options.custody, now: core.now, log: options.log };
    const own = {
      delegations: core.delegations,
      freeze: core.freeze,
      signed: core.signed,
      passkeys: core.signed.book,
      // One function for the executor's check before a write and the tracker's settling of one.
      approvalsProblem: approvalsCheck(core.signed, options.policy),
    };
    const binding = () => core.binding;
    const settingsNow = () => core.judging.current();
    this.executor = new Executor({ ...parts, ...own, binding, settingsNow, policy: options.policy }, options);
    // The tracker settles the bot's own unanswered write: the chain's outcome-unknown entry is its own.
    const settle = approvalsCheck(core.signed, options.policy, 'settle');
    this.tracker = new Tracker(
      { ...parts, ...own, approvalsProblem: settle, executor: this.executor },
      options,
    );
    this.reminders = new Reminders({ ...parts, policy: options.policy }, options.reminderPoints ?? []);
    const { store } = options;
    this.stopLookup = new StopLookup({ ...parts, store, binding, owner: this.executor.instanceId }, options);
    // Once lifted, what the freeze held goes out now (each through the claim), not at the next sweep.
    core.freeze.onChange(async (change) => {
      if ('lifted' in change) this.running.background(sendApproved(core, this.executor, options.log));
    });
    const { executor, tracker, reminders, stopLookup } = this;
    this.running = new EngineRunning(
      { core, trail: this.trail, executor, tracker, reminders, stopLookup },
      options,
    );
    registerParts(this, {
      core,
      executor: this.executor,
      policy: options.policy,
      tracker: this.tracker,
      reminders: this.reminders,
      ...this.trail.parts(),
    });
  }

  onChange(listener: ApprovalListener): void {
    this.core.onChange(listener);
  }

  /** Bind requests to this API key (its non-reversible id): they are never sent with another one. */
  useServiceKey(keyId: string): void {
    this.core.useServiceKey(keyId);
  }

  /** File a draft: pre-flight checks always run; confirmations count only as shown (file-checked.ts). */
  file(draft: RequestDraft, confirmations?: FileConfirmations): Promise<FileResult> {
    const { core } = this;
    return fileChecked({ preflight: core.preflight, file: (d, o) => core.file(d, o) }, draft, confirmations);
  }

  /** What can be checked before filing the draft, without moving money (see preflight.ts). */
  preflight(draft: RequestDraft): Promise<RequestChecks> {
    return this.core.preflight.check(draft);
  }

  /** What would stop filing the draft now, with these confirmations (file()'s checks); nothing is filed. */
  filingProblems(
    draft: RequestDraft,
    confirmations?: FileConfirmations,
  ): Promise<{ problems: FilingProblem[]; checks?: RequestChecks }> {
    return filingProblems({ preflight: this.core.preflight }, draft, confirmations);
  }

  /** A withdrawal's or redemption's balance check now (cached; `stored`: store only, at most `maxAgeMs` old). */
  balanceFor(
    request: ApprovalRequest | RequestDraft,
    options?: { stored?: boolean; maxAgeMs?: number },
  ): Promise<BalanceCheck | undefined> {
    return this.core.preflight.balanceFor(request, options);
  }

  /**
   * An approver's approval; when it completes the approvals, execution starts in the background. It
   * counts only for the `round` and `figuresDigest` they were shown, both required (else StaleRoundError),
   * and, where it must be signed, only with `evidence` that verifies (else refused: signed-approvals.ts).
   */
  async approve(id: string, user: string, options: ApproveOptions): Promise<ActionResult> {
    // A caller that does not say what was seen (untyped, or cast) binds to nothing: refused as stale.
    const seen = { round: options?.round ?? Number.NaN, figuresDigest: options?.figuresDigest ?? '' };
    const result = await this.core.approve(id, user, { ...options, ...seen });
    if (result.ok && result.request.state === 'approved') this.running.background(this.executor.execute(id));
    return result;
  }

  /** Before showing a review: could `user` approve round `round` of the request now? Changes nothing. */
  canApprove(id: string, user: string, round: number): Promise<ApprovalReadiness> {
    return canApprove(this.questions(), id, user, round);
  }

  /** The requests `user` may approve now (App Home, Review all); `open`/`delegations` when already read. */
  waitingFor(
    user: string,
    now: Date,
    open?: readonly ApprovalRequest[],
    delegations?: readonly Delegation[],
  ): Promise<ApprovalRequest[]> {
    const deps = { ...this.questions(), openRequests: () => this.openRequests() };
    return waitingFor(deps, user, now, open, delegations);
  }

  /** A request past its time is expired now under its lock (as the sweep does); returns it as it stands. */
  async expireIfDue(id: string): Promise<ApprovalRequest | undefined> {
    const { core } = this;
    const expired = await core.locked(id, async (request) =>
      request ? core.expireIfDue(request, core.now()) : undefined,
    );
    if (expired) await core.notify(expired);
    return expired ?? (await this.get(id));
  }

  /** A rejection of the `round` the rejecter saw (required): another round is refused (StaleRoundError). */
  reject(id: string, user: string, reason: string, options: RejectOptions): Promise<ActionResult> {
    // As for approve: a rejection that does not say its round binds to nothing, refused as stale.
    const round = options?.round ?? Number.NaN;
    return this.core.reject(id, user, reason, { ...options, round }).then((r) => this.afterStop(r));
  }

  /** Before the reject modal: may this person reject round `round`? `stale` for another round. Changes nothing. */
  mayReject(id: string, user: string, round: number): Promise<RejectReadiness> {
    return mayReject(this.questions(), id, user, round);
  }

  private questions() {
    return { core: this.core, policy: this.options.policy };
  }

  /** The requester's cancellation; with `onlyWaiting`, only while it waits for approval. */
  cancel(id: string, user: string, options?: CancelOptions): Promise<ActionResult> {
    return this.core.cancel(id, user, options).then((r) => this.afterStop(r));
  }

  /**
   * A stop of an approved request was queued for its lookup with the stop itself, before anyone was
   * told (close-by-person.ts); it is looked up at the service in the background.
   */
  private async afterStop(result: ActionResult): Promise<ActionResult> {
    if (result.ok && StopLookup.stoppedWhileApproved(result.request)) {
      this.running.background(this.stopLookup.sweep());
    }
    return result;
  }

  /** The requester's one Extend, by at most the original lifetime (default: all of it). */
  extend(id: string, user: string, byMs?: number, click?: ClickOptions): Promise<ExtendResult> {
    return extendRequest(this.core, id, user, byMs, click);
  }

  get(id: string): Promise<ApprovalRequest | undefined> {
    return this.core.get(id);
  }

  /** `delegate` approves in `delegator`'s place until `until` (cap `max` ₦): filed for another approver. */
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

  /** `/cngn freeze`: an approver stops every send at once (see freezing.ts). */
  freezeSends(user: string, reason: string): Promise<FreezeResult | FreezeRefusal> {
    return freezeSends(this.core, this.options.policy, user, reason);
  }

  /** CNGN_START_FROZEN: frozen before anything is sent; `announce` tells the listeners once they are there. */
  freezeAtStart(): Promise<Freeze & { announce: () => void }> {
    return freezeAtStart(this.core);
  }

  /** `/cngn unfreeze`: filed as a request another approver must approve (see freezing.ts). */
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

  /**
   * End the live delegations to or from `person`, who may no longer act here, and cancel those waiting
   * for approval (see endDelegationsOf).
   */
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

  /** An approver in their own right (named, or in the group) — for `kind` when given. */
  isApprover(user: string, kind?: RequestKind): Promise<boolean> {
    return this.options.policy.isApprover(user, kind);
  }

  /** The approvers and the delegates of live delegations (`delegations` when already read). */
  approversAndDelegates(delegations?: readonly Delegation[]): Promise<string[]> {
    return this.options.policy.approversAndDelegates(delegations);
  }

  /** Every delegation the policy knows of (live or not), read once for many questions. */
  delegations(): Promise<Delegation[]> {
    return this.options.policy.delegations();
  }

  /**
   * How many approvals to show the request needs: the count the engine approves it at under the tiers
   * this process runs with (approvalsNeeded), worked out at each reading, never kept on the request.
   */
  approvalsShown(request: ApprovalRequest): number {
    return approvalsShown(request, this.options.policy);
  }

  /** Who may approve this request now, in list order (never its requester, nobody already counted). */
  eligibleFor(request: ApprovalRequest, delegations?: readonly Delegation[]): Promise<string[]> {
    return this.options.policy.eligibleFor(request, delegations);
  }

  /** The delegation through which `user` (no approver in their own right) would approve, if any. */
  delegatePlace(
    request: ApprovalRequest,
    user: string,
    delegations?: readonly Delegation[],
  ): Promise<Delegation | undefined> {
    return this.options.policy.placeFor(request, user, delegations);
  }

  /** The service environment requests are filed in and sent to now. */
  environment(): ServiceEnvironment {
    return this.core.repo.environment;
  }

  /** The engine's clock. */
  now(): Date {
    return this.core.now();
  }

  /** The request a service reference or transaction id belongs to (to thread alerts under it). */
  async findByReference(reference: string): Promise<ApprovalRequest | undefined> {
    const id = await this.core.repo.findIdByReference(reference);
    return id ? this.get(id) : undefined;
  }

  /** Record that the bot saw a user group's members change. */
  recordMembershipChange(group: string, added: readonly string[], removed: readonly string[]) {
    return this.trail.recordMembershipChange(group, added, removed);
  }
  /** Record a user group's members as first read, when they differ from those last recorded. */
  recordGroupMembers(group: string, members: readonly string[]) {
    return this.trail.recordGroupMembers(group, members);
  }
  /**
   * Switch the signing rule while the bot runs (only where it is switchable: the workbench's sandbox),
   * the settings with it on the audit record before it takes effect. False, nothing changed, elsewhere.
   */
  switchSigningRule(rule: SigningRule): Promise<boolean> {
    return this.signingSwitch.switchTo(rule);
  }
  onPolicyRecorded(listener: PolicyRecordListener): void {
    this.trail.onPolicyRecorded(listener);
  }
  audit(n: number): Promise<AuditEntry[]> {
    return this.trail.audit(n);
  }
  verifyAudit(): Promise<AuditCheck> {
    return this.trail.verifyAudit();
  }
  archiveAudit(reason: string): Promise<ArchiveOutcome> {
    return this.trail.archiveAudit(reason);
  }
  auditArchivePlace(): { folder?: string | undefined; publicKey?: string | undefined } {
    return this.trail.auditArchivePlace();
  }
  auditHealth(): AuditHealth {
    return this.trail.auditHealth();
  }
  onAuditAlarm(listener: AuditAlarmListener): void {
    this.trail.onAuditAlarm(listener);
  }
  auditRange(from: Date | undefined, to: Date | undefined): Promise<AuditEntry[]> {
    return this.trail.auditRange(from, to);
  }
  auditTookEffect(entries: AuditEntry[]): Promise<boolean[]> {
    return this.trail.auditTookEffect(entries);
  }
  recordAudit(draft: AuditDraft): Promise<AuditEntry> {
    return this.trail.recordAudit(draft);
  }
  beginAuditExport(ask: AuditExportAsk, requested: AuditDraft): Promise<string> {
    return this.trail.beginAuditExport(ask, requested);
  }
  finishAuditExport(id: string, exported: AuditDraft): Promise<void> {
    return this.trail.finishAuditExport(id, exported);
  }
  abandonAuditExport(id: string): Promise<void> {
    return this.trail.abandonAuditExport(id);
  }
  endAuditExport(id: string): void {
    this.trail.endAuditExport(id);
  }
  onUndeliveredAuditExport(listener: UndeliveredListener): void {
    this.trail.onUndeliveredAuditExport(listener);
  }
  applyAuditRetention(): Promise<number> {
    return this.trail.applyAuditRetention();
  }

  /** For the webhook pipeline: called once per new event, put in the engine's words. */
  async onCustodyReport(report: CustodyReport): Promise<void> {
    await this.tracker.onCustodyReport(report);
  }

  /** Told of each webhook that settles nothing because of the requests it names, for a person. */
  onReportRefused(listener: (refusal: ReportRefusal) => Promise<void>): void {
    this.tracker.onReportRefused(listener);
  }

  onBridgeCallback(token: string, hint: BridgeCallbackHint): Promise<boolean> {
    return this.tracker.onBridgeCallback(token, hint);
  }

  /** One sweep now (expiry, polls, reconciliation, reminders); overlapping sweeps are skipped. */
  tick(): Promise<void> {
    return this.running.tick();
  }
  /** The trail checked and the settings recorded, before any click or send (engine-running.ts). */
  openTrail(): Promise<void> {
    return this.running.openTrail();
  }
  /** Pick up in-flight requests (other environments' closed first), then sweep periodically. */
  start(): Promise<void> {
    return this.running.start();
  }
  /** Stop sweeping, drain background work (at most `drainMs`), end leases, archive (see shutdown.ts). */
  stop(options: { drainMs?: number } = {}): Promise<void> {
    return this.running.stop(options);
  }
  /** Resolves when background work started so far (executions, sweeps) has finished. For tests and shutdown. */
  idle(): Promise<void> {
    return this.running.idle();
  }
}
