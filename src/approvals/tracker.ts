// After the call: follow each sent request to its final status (webhooks first, slow polls as the
// fallback), and hand outcome-unknown requests to the reconciler. Reads only, at background priority;
// nothing here ever sends a money-moving request. Also the periodic pass over open requests (after
// expiry) and the start-up resume.
import { callbackNote } from './bridge-hint.js';
import { CONFLICT_ACTION, conflictNote, reportOfTransaction } from './conflicts.js';
import type { CoreSections } from './core-sections.js';
import { AnswerNotRecordedError, type Executor } from './executor.js';
import { heldByFreeze } from './freeze.js';
import { endHandedBackClaim, handingBack } from './hand-back.js';
import { certainlyUnsent, leaseExpired } from './leases.js';
import { type OwnWriteDeps, settleOwnWrite } from './own-writes.js';
import type { CustodyGateway, CustodyReport } from './ports.js';
import { CHECK_HOLD_MS } from './recheck.js';
import { answeredOf, outcomeFromTransaction, Reconciler, type ReconcilerOptions } from './reconciler.js';
import { markMissingHolders } from './reference-conflicts.js';
import { type ReportRefusal, requestNamedByReport } from './report-requests.js';
import type { ApprovalRepository } from './repository.js';
import { OWN_STORE_KINDS } from './service-call.js';
import { hasNotice, transition, withNotice } from './state-machine.js';
import { type ApprovalRequest, type EngineLog, type ExecutionOutcome, MONEY_KINDS } from './types.js';

export interface TrackerOptions extends ReconcilerOptions {
  /** First poll of a sent request after this long, then doubling (default 60 s). */
  pollBaseMs?: number;
  /** Longest wait between two polls (default 15 min). */
  pollMaxMs?: number;
}

/** What an unsigned bridge callback claims; shown as a hint until the service confirms it. */
export interface BridgeCallbackHint {
  explorerLink?: string;
  hash?: string;
  status?: string;
}

/** What the tracker uses; it reaches the core only for its lock, its conditional write and its notices. */
export interface TrackerDeps {
  core: CoreSections;
  repo: ApprovalRepository;
  custody: CustodyGateway;
  /** Where an interrupted delegation request is looked up: the store says whether it was made. */
  delegations: OwnWriteDeps['delegations'];
  /** Where an interrupted unfreeze is settled: the store says whether it lifted the freeze, or bars it. */
  freeze: OwnWriteDeps['freeze'];
  /** Where an interrupted passkey registration is settled: the book says whether it was written, or bars it. */
  passkeys: OwnWriteDeps['passkeys'];
  /** An interrupted own write found made is completed only if this passes again: the executor's own check. */
  approvalsProblem: OwnWriteDeps['approvalsProblem'];
  /** A registration found written counts only if it still reads as filed (its filing seal). */
  signed: OwnWriteDeps['signed'];
  /** Sends what is approved but was never started. */
  executor: Pick<Executor, 'execute'>;
  now: () => Date;
  log?: EngineLog | undefined;
}

export class Tracker {
  private readonly pollBaseMs: number;
  private readonly pollMaxMs: number;
  private readonly reconciler: Reconciler;
  private readonly core: CoreSections;
  private readonly repo: ApprovalRepository;
  private readonly custody: CustodyGateway;
  private readonly ownWrites: OwnWriteDeps;
  private readonly executor: Pick<Executor, 'execute'>;
  private readonly now: () => Date;
  private readonly log: EngineLog | undefined;
  private readonly refusalListeners: Array<(refusal: ReportRefusal) => Promise<void>> = [];

  constructor(deps: TrackerDeps, options: TrackerOptions = {}) {
    this.core = deps.core;
    this.repo = deps.repo;
    this.custody = deps.custody;
    const { delegations, freeze, passkeys, now, approvalsProblem, signed, log } = deps;
    this.ownWrites = {
      core: deps.core,
      signed,
      delegations,
      freeze,
      passkeys,
      now,
      log,
      approvalsProblem,
      finish: (...args) => this.finish(...args),
    };
    this.executor = deps.executor;
    this.now = deps.now;
    this.log = deps.log;
    this.pollBaseMs = options.pollBaseMs ?? 60_000;
    this.pollMaxMs = options.pollMaxMs ?? 15 * 60_000;
    this.reconciler = new Reconciler(deps, this, options);
  }

  /** Webhook subscriber: a report about one of our requests moves it to its final state. */
  async onCustodyReport(report: CustodyReport): Promise<ApprovalRequest | undefined> {
    // An amount that is no amount makes the whole report unreliable: it settles nothing (its alert asks
    // a person to look; the request's own polls still read the service).
    if (report.amountInvalid) return undefined;
    const id = await requestNamedByReport(this.repo, this.custody.environment, report, this.log, (refusal) =>
      this.tellRefused(refusal),
    );
    if (!id) return undefined;
    const to = report.result;
    this.log?.info?.('webhook about a request', {
      requestId: id,
      webhook: report.name,
      ...(report.references[0] ? { reference: report.references[0] } : {}),
      ...(to ? { result: to } : {}),
    });
    if (!to && !report.contradictsItself) return undefined;
    const outcome: ExecutionOutcome = {
      status: report.status ?? (to === 'completed' ? 'completed' : 'failed'),
      ...(report.reason ? { reason: report.reason } : {}),
      ...(report.explorerLink ? { explorerLink: report.explorerLink } : {}),
      ...(report.hash !== undefined ? { hash: report.hash } : {}),
    };
    return this.settleOrFlag(id, report, `webhook ${report.name}`, outcome);
  }

  /** Told of each report that settles nothing because of the requests it names (a person should check it). */
  onReportRefused(listener: (refusal: ReportRefusal) => Promise<void>): void {
    this.refusalListeners.push(listener);
  }

  /** A listener that fails fails the report's subscriber call, which the pipeline runs again later. */
  private async tellRefused(refusal: ReportRefusal): Promise<void> {
    for (const listener of this.refusalListeners) await listener(refusal);
  }

  /**
   * A report (a webhook, or a status poll's answer) settles the request, or marks the conflict it shows
   * and settles nothing. Decided on the request as it stands under its lock: of a completion and a
   * failure racing in, one settles it and the other is the conflict; the mark is persisted (and
   * audited) before anyone hears. A request already marked waits for a person (resolve-by-hand.ts).
   */
  private async settleOrFlag(
    id: string,
    report: CustodyReport,
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined> {
    const done = await this.core.locked(id, async (request) => {
      // Written to the bot's own store, never sent (service-call.ts): no service report settles one.
      if (!request || OWN_STORE_KINDS.has(request.kind)) return undefined;
      const note = conflictNote(request, report);
      if (note) {
        if (request.conflicts?.some((conflict) => conflict.key === report.key)) return undefined;
        const now = this.now();
        const conflicts = [...(request.conflicts ?? []), { at: now.toISOString(), key: report.key, note }];
        const next = withNotice({ ...request, conflicts }, CONFLICT_ACTION, note, now);
        await this.core.write(request, next);
        return next;
      }
      const to = report.result;
      const next = to && this.finished(request, to, action, outcome);
      if (next) await this.core.write(request, next);
      return next;
    });
    if (done) await this.core.notify(done);
    return done;
  }

  /**
   * The unsigned bridge callback is a hint: keep its link and hash, say in the request's thread that it
   * came, then confirm with the service (one background read) before the request is called completed.
   */
  async onBridgeCallback(token: string, hint: BridgeCallbackHint): Promise<boolean> {
    const id = await this.repo.findIdByCallbackToken(token);
    if (!id) return false;
    const { explorerLink, note } = callbackNote(hint);
    let told = false;
    const noted = await this.core.locked(id, async (request) => {
      if (!request || (request.state !== 'sent' && request.state !== 'outcome-unknown')) return undefined;
      const now = this.now();
      const outcome = {
        ...request.outcome,
        ...(explorerLink ? { explorerLink } : {}),
        ...(hint.hash ? { hash: hint.hash } : {}),
      };
      let next = { ...request, outcome, nextCheckAt: now.toISOString() } as ApprovalRequest;
      // The callback is sent once; the same one again (a replay) is not said twice.
      const last = request.history.at(-1);
      told = !(last?.action === 'bridge-callback' && last.note === note);
      if (told) next = withNotice(next, 'bridge-callback', note, now);
      await this.core.write(request, next, { audit: told });
      return next;
    });
    if (noted && told) await this.core.notify(noted);
    if (noted?.state === 'sent') await this.pollOne(noted);
    return true;
  }

  /** Move a sent (or outcome-unknown) request to completed/failed, once. */
  async finish(
    id: string,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined> {
    const done = await this.core.locked(id, async (request) => {
      const next = request && this.finished(request, to, action, outcome);
      if (next) await this.core.write(request, next);
      return next;
    });
    if (done) await this.core.notify(done);
    return done;
  }

  /**
   * The request settled as `to`, or undefined when it is not waiting for its outcome, or when the
   * service contradicted itself about it and no person has resolved that yet. Pure.
   */
  private finished(
    request: ApprovalRequest,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): ApprovalRequest | undefined {
    if (request.state !== 'sent' && request.state !== 'outcome-unknown') return undefined;
    if ((request.conflicts?.length ?? 0) > 0) return undefined;
    const merged = { ...request.outcome, ...outcome };
    return transition({ ...request, outcome: merged }, to, {
      action: to,
      note: to === 'failed' && merged.reason ? `${action}: ${merged.reason}` : action,
      at: this.now(),
    });
  }

  private isDue(request: ApprovalRequest, now: Date): boolean {
    if (request.nextCheckAt) return Date.parse(request.nextCheckAt) <= now.getTime();
    const since = request.history.at(-1)?.at ?? request.createdAt;
    return Date.parse(since) + this.pollBaseMs <= now.getTime();
  }

  /** Look again later, waiting longer after each try; `answered`: this try got the service's answer. */
  async reschedule(request: ApprovalRequest, answered = false): Promise<void> {
    await this.core.locked(request.id, async (current) => {
      if (!current || current.state !== request.state) return;
      const checks = (current.checks ?? 0) + 1;
      const wait = Math.min(this.pollBaseMs * 2 ** checks, this.pollMaxMs);
      const nextCheckAt = new Date(this.now().getTime() + wait).toISOString();
      const answeredChecks = answeredOf(current) + (answered ? 1 : 0);
      await this.core.write(current, { ...current, checks, nextCheckAt, answeredChecks }, { audit: false });
    });
  }

  /**
   * One slow poll of a sent request's status, judged as a webhook is: a final status of another amount
   * is a conflict, and a request so marked stays as it is (polled less often) until a person resolves it.
   */
  async pollOne(request: ApprovalRequest): Promise<void> {
    const reference = request.outcome?.reference;
    if (!reference) return;
    const tx =
      request.kind === 'withdraw'
        ? await this.custody.withdrawal(reference)
        : await this.custody.transaction(reference);
    const report = reportOfTransaction(tx);
    const settled = report.result
      ? await this.settleOrFlag(request.id, report, 'checked', outcomeFromTransaction(tx))
      : undefined;
    if (settled?.state !== 'completed' && settled?.state !== 'failed') await this.reschedule(request);
  }

  /**
   * One pass, after expiry: take over executing requests whose caller's lease ran out; send what is
   * approved but was never started; poll what is due; reconcile what is unknown. Errors are logged,
   * retried later.
   */
  async tick(): Promise<void> {
    // Approved and not executing means never sent (executing is saved before any call): a crash
    // between claim and save, a claimant that stopped before its write-ahead mark, or a background
    // start that failed. The claim makes it one call. Own writes are settled first: a lift found made
    // but not approved freezes sends again before this pass sends what the freeze held. An unfreeze
    // still unknown after that (its settling failed: freezing again may not have happened) holds what a
    // freeze holds until a later sweep settles it.
    const settled = await this.settleOwnWrites(await this.repo.openRequests());
    const open = await this.repo.openRequests();
    const holdSends = open.some((r) => r.kind === 'unfreeze' && r.state === 'outcome-unknown');
    for (const request of open) await this.startOrTakeOver(request, holdSends);
    await this.followUp(settled);
  }

  /** One open request of the sweep: an abandoned check cleared, an expired lease taken over, an approved one sent. */
  private async startOrTakeOver(request: ApprovalRequest, holdSends: boolean): Promise<void> {
    let state = request.state;
    if (state === 'pending' && request.checking && this.checkAbandoned(request)) {
      await this.clearInterruptedCheck(request).catch((error: unknown) => {
        this.log?.warn('interrupted final approval not cleared; will retry', {
          requestId: request.id,
          error: String(error),
        });
      });
      return;
    }
    if (state === 'executing' && leaseExpired(request, this.now())) {
      try {
        state = (await this.takeOverExpired(request.id))?.state ?? state;
      } catch (error) {
        // The others are still swept; this one is taken over on the next pass.
        this.log?.warn('executing request not taken over; will retry', {
          requestId: request.id,
          error: String(error),
        });
        return;
      }
    }
    if (state !== 'approved' || (holdSends && heldByFreeze(request))) return;
    // Not claimed because a claim that may have been sent blocks it: the executor asks a person.
    await this.executor.execute(request.id).catch((error: unknown) => {
      // Sent, but its answer would not go into the store: the lease runs out and it is reconciled.
      const message =
        error instanceof AnswerNotRecordedError
          ? "service answered but the answer was not recorded; it will be reconciled once the execution's lease runs out"
          : 'approved request not started; will retry';
      this.log?.warn(message, { requestId: request.id, error: String(error) });
    });
  }

  /**
   * Poll what was sent and is due; settle what is unknown, each kind its own way. First, the holder of a
   * reference another request's answer named gets its conflict mark if it still lacks it.
   */
  private async followUp(settled: Set<string>): Promise<void> {
    const now = this.now();
    const open = await this.repo.openRequests();
    await this.checkOrRetryLater([], () => markMissingHolders(this.core, open, this.now));
    for (const request of open.filter((r) => r.state === 'sent' && this.isDue(r, now))) {
      await this.checkOrRetryLater([request], () => this.pollOne(request));
    }
    const unknown = open.filter((r) => r.state === 'outcome-unknown');
    const inList = unknown.filter((r) => MONEY_KINDS.has(r.kind) && this.isDue(r, now));
    if (inList.length > 0)
      await this.checkOrRetryLater(inList, () => this.reconciler.reconcile(inList), true);
    for (const request of unknown.filter((r) => r.kind === 'whitelist' && this.isDue(r, now))) {
      await this.checkOrRetryLater([request], () => this.reconciler.reconcileWhitelist(request), true);
    }
    // Own writes the sweep made unknown (a lease taken over); those it began with were settled first.
    await this.settleOwnWrites(unknown.filter((r) => !settled.has(r.id)));
    for (const request of unknown.filter((r) => r.kind === 'settlement')) {
      if (!hasNotice(request, 'needs-manual-check')) {
        await this.checkOrRetryLater([], () => this.reconciler.settlementNeedsAPerson(request));
      }
    }
  }

  /** Settle each outcome-unknown write to the bot's own store from the store (own-writes.ts), once a sweep. */
  private async settleOwnWrites(open: ApprovalRequest[]): Promise<Set<string>> {
    const unknown = open.filter((r) => r.state === 'outcome-unknown' && OWN_STORE_KINDS.has(r.kind));
    for (const request of unknown) {
      await this.checkOrRetryLater([request], () => settleOwnWrite(this.ownWrites, request));
    }
    return new Set(unknown.map((r) => r.id));
  }

  /** One request of a reconciliation pass failed: logged with its id, looked at again on a later pass. */
  async stepFailed(request: ApprovalRequest, error: unknown): Promise<void> {
    this.log?.warn('reconciling one request failed; the others went on, and it is retried', {
      requestId: request.id,
      error: String(error),
    });
    await this.reschedule(request).catch(() => {});
  }

  /** Run a check; if it fails, log it and look at these requests again later (`unanswered`: a reconciling try). */
  private async checkOrRetryLater(
    requests: ApprovalRequest[],
    fn: () => Promise<void>,
    unanswered = false,
  ): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.log?.warn('approval tracking failed; will retry', {
        requestIds: requests.map((r) => r.id),
        error: String(error),
      });
      for (const request of requests) {
        if (unanswered) await this.reconciler.unanswered(request).catch(() => {});
        await this.reschedule(request).catch(() => {});
      }
    }
  }

  /** A final approval's re-check hold older than any live re-check takes: its process stopped. */
  private checkAbandoned(request: ApprovalRequest): boolean {
    const at = request.checking?.at;
    return at !== undefined && this.now().getTime() - Date.parse(at) >= CHECK_HOLD_MS;
  }

  /**
   * The process taking a final approval stopped while it re-checked the figures (a restart): the
   * approval was never saved. Say so in the thread and lift the hold so anyone may approve again;
   * never approve on the person's behalf.
   */
  private async clearInterruptedCheck(read: ApprovalRequest): Promise<void> {
    const cleared = await this.core.locked(read.id, async (current) => {
      if (current?.state !== 'pending' || !current.checking || !this.checkAbandoned(current))
        return undefined;
      const { checking, ...rest } = current;
      const next = transition(rest as ApprovalRequest, 'pending', {
        action: 'check-interrupted',
        actor: checking.user,
        note: 'nothing was approved; approve again',
        at: this.now(),
      });
      await this.core.write(current, next);
      return next;
    });
    if (cleared) await this.core.notify(cleared);
  }

  /**
   * An executing request whose caller's lease ran out. Marked as sending: the call may have gone out,
   * so it becomes outcome-unknown and is reconciled at once, never resent. Claimed but unmarked: the
   * call was certainly not made, so it is approved again, naming the claim it hands back, for the next
   * claimant to send (hand-back.ts). Written only
   * if the request is still as read, so a claimant that was only slow and writes its mark first keeps
   * it. A live lease means another replica is mid-call.
   */
  private async takeOverExpired(id: string): Promise<ApprovalRequest | undefined> {
    const taken = await this.core.locked(id, async (current) => {
      const now = this.now();
      if (current?.state !== 'executing' || !leaseExpired(current, now)) return undefined;
      let next: ApprovalRequest;
      if (certainlyUnsent(current)) {
        const released = transition(current, 'approved', {
          action: 'released',
          note: 'the bot that claimed it stopped before sending anything; the next one sends it',
          at: now,
        });
        const {
          execution: _gone,
          outcome: _none,
          nextCheckAt: _next,
          checks: _c,
          answeredChecks: _a,
          ...unsent
        } = released;
        next = handingBack(unsent as ApprovalRequest, current.execution?.generation ?? 0);
      } else {
        const { execution: _gone, nextCheckAt: _next, checks: _c, answeredChecks: _a, ...rest } = current;
        // A delegation or an unfreeze makes no service call: it is looked up in the bot's own store.
        const note = OWN_STORE_KINDS.has(current.kind)
          ? `the bot writing the ${current.kind} stopped before recording it; checking the bot's store for it instead of writing it again`
          : 'the bot making the call stopped before recording the answer; checking the transaction list instead of resending';
        next = transition({ ...rest, nextCheckAt: now.toISOString(), checks: 0 }, 'outcome-unknown', {
          action: 'interrupted',
          note,
          at: now,
        });
      }
      if (!(await this.repo.saveIf(current, next))) return undefined;
      // Its claim is spent: the next claimant need not wait out the claim's own lease.
      if (next.state === 'approved') await endHandedBackClaim(this.repo, next, now, this.log);
      return next;
    });
    if (taken) await this.core.notify(taken);
    return taken;
  }

  /**
   * Start-up: pick up what a stopped process left. sent and outcome-unknown → track now; the sweep
   * that follows sends what is approved and takes over executing requests whose lease ran out.
   */
  async resume(): Promise<void> {
    for (const request of await this.repo.openRequests()) {
      if (request.state === 'sent' || request.state === 'outcome-unknown') {
        await this.core.locked(request.id, async (current) => {
          if (current?.state === request.state) {
            const next = { ...current, nextCheckAt: this.now().toISOString() };
            await this.core.write(current, next, { audit: false });
          }
        });
      }
    }
  }
}
