// The freeze of sends: any approver stops every service call at once, on every replica, until an
// unfreeze request approved by another approver lifts it. One record per environment in the store, so
// it holds across replicas and restarts; each freeze and lift is in the audit chain. Filing and
// approving go on; approved requests wait (held) and go out after the lift through the normal sweep.
//
// No send slips past a freeze that has been answered, on any replica, even past a lapsed lock: the
// executor reads the freeze just before it marks its claim `sending` (a compare-and-set on the claim),
// and the freeze, once written, ends every claim not yet marked (a compare-and-set on the same claim).
// Of the two writes on one claim, one wins: the mark (the call was already under way before the
// freeze: it is named in the freeze's answer) or the end (the mark is refused: nothing is sent).
// See docs/decisions/freeze-fences-claims.md.

import type { AuditLog, ChainFreeze } from '../audit/index.js';
import type { Store } from '../store/index.js';
import { freezeReason, InvalidDraftError } from './draft.js';
import { ApprovalErrorCode } from './error-codes.js';
import { ChainHold, chainUnreadable } from './freeze-chain.js';
import { CustodyCallError, type ServiceEnvironment } from './ports.js';
import type { ApprovalRepository } from './repository.js';
import type { ApprovalRequest, EngineLog, Freeze, RequestKind, RequestOf } from './types.js';

/** Who froze the sends when CNGN_START_FROZEN did it. */
export const START_FROZEN_ACTOR = 'start-up (CNGN_START_FROZEN)';

/**
 * Which kinds a freeze holds: those whose execution reaches the service. A delegation is written to the
 * bot's own store, and an unfreeze is what ends the freeze: neither is held. Nor is a passkey registration,
 * written to the passkey book.
 */
const HELD_KINDS: Record<RequestKind, boolean> = {
  withdraw: true,
  redeem: true,
  bridge: true,
  whitelist: true,
  settlement: true,
  delegation: false,
  unfreeze: false,
  passkey: false,
};

export function heldByFreeze(request: Pick<ApprovalRequest, 'kind'>): boolean {
  return HELD_KINDS[request.kind];
}

/**
 * The stored record: frozen now, or the last freeze and the request that lifted it. `barred`: the
 * unfreeze requests whose lift went unanswered and was given up on; none of them lifts this freeze.
 * `previousLift`: the request that lifted the freeze before this one, so an interrupted lift that
 * landed is still found once sends are frozen again.
 */
type FreezeRecord =
  | ({ state: 'frozen'; barred?: string[]; previousLift?: { requestId: string; at: string } } & Freeze)
  | { state: 'lifted'; at: string; by: string; requestId: string; frozen: Freeze };

const freezeKey = (environment: ServiceEnvironment) => `approvals:freeze:${environment}`;
/** Taken once per lift, by whoever tells it first: its holder, or the sweep that settled it. */
const liftToldKey = (environment: ServiceEnvironment, requestId: string) =>
  `approvals:freeze:${environment}:told:${requestId}`;
/** Long past any sweep that could settle the lift again. */
const LIFT_TOLD_TTL_MS = 90 * 86_400_000;
const lockName = (environment: ServiceEnvironment) => `approvals:freeze:${environment}`;
/** Taken once per freeze the chain holds against the record, by the replica that tells it. */
const heldToldKey = (environment: ServiceEnvironment, frozenAt: string) =>
  `approvals:freeze:${environment}:held-told:${frozenAt}`;
/** Taken once per freeze of the record, by the run that completes its pass over claims and tells it. */
const frozenToldKey = (environment: ServiceEnvironment, frozenAt: string) =>
  `approvals:freeze:${environment}:frozen-told:${frozenAt}`;

/** A change of the freeze, as listeners hear it (after it is stored and audited). */
export type FreezeChange =
  | { frozen: Freeze; underway: string[] }
  | { lifted: Freeze; by: string; requestId: string }
  /** The store's record says sends are not frozen, but the signed chain holds `heldByChain`: they stay frozen. */
  | { heldByChain: Freeze };

export type FreezeListener = (change: FreezeChange) => Promise<void>;

/**
 * An interrupted lift, settled: it landed (the change, to be told; none when sends are frozen again
 * since, so "sends resumed" is never told while frozen), or it never can.
 */
export type InterruptedLift =
  | { landed: true; change?: Extract<FreezeChange, { lifted: Freeze }> }
  | { landed: false };

/** How many times the bar is tried when the record keeps changing under a lapsed lock. */
const BAR_RUNS = 5;

export type FreezeResult =
  /** `underway`: requests whose call was already marked as going out when the freeze came. */
  | { ok: true; freeze: Freeze; underway: string[] }
  /** `recorded`: the store's record holds it (not the signed chain alone); `underway` as found again. */
  | { ok: false; reason: 'already-frozen'; freeze: Freeze; recorded: boolean; underway: string[] };

/** `/cngn unfreeze` that cannot be filed: sends are not frozen, or an unfreeze already waits. */
export class UnfreezeRefusedError extends InvalidDraftError {
  override name = 'UnfreezeRefusedError';
  override readonly code = ApprovalErrorCode.UnfreezeRefused;
  constructor(
    readonly reason: 'not-frozen' | 'already-waiting',
    /** The unfreeze request already waiting. */
    readonly waiting?: ApprovalRequest,
  ) {
    super(
      reason === 'not-frozen'
        ? 'sends are not frozen'
        : `an unfreeze is already waiting for approval as ${waiting?.id ?? 'another request'}`,
    );
  }
}

export interface FreezeDeps {
  store: Store;
  repo: ApprovalRepository;
  auditLog: AuditLog;
  now: () => Date;
  log?: EngineLog | undefined;
  /** Where the bot holds the audit signing key: the freeze the verified chain holds (freeze-chain.ts). */
  onChain?: (() => Promise<ChainFreeze>) | undefined;
  /**
   * With `onChain`: how long after it was filed (sealed createdAt) an unfreeze may still lift: its
   * lifetime and one Extend. A retention cut forgets the requests the chain named as spent; this does not.
   */
  liftWithinMs?: number | undefined;
}

/** An interrupted lift against the record as read: settled already, or the record that bars it. Pure. */
function barStep(
  read: FreezeRecord | undefined,
  request: RequestOf<'unfreeze'>,
): InterruptedLift | { bar: FreezeRecord } {
  if (read?.state === 'lifted') {
    if (read.requestId !== request.id) return { landed: false };
    return { landed: true, change: { lifted: read.frozen, by: read.by, requestId: request.id } };
  }
  if (read?.state === 'frozen' && read.previousLift?.requestId === request.id) return { landed: true };
  if (read?.state !== 'frozen' || read.at !== request.payload.frozenAt) return { landed: false };
  if (read.barred?.includes(request.id)) return { landed: false };
  return { bar: { ...read, barred: [...(read.barred ?? []), request.id] } };
}

const freezeOf = (record: Extract<FreezeRecord, { state: 'frozen' }>): Freeze => ({
  by: record.by,
  reason: record.reason,
  at: record.at,
});

export class FreezeSwitch {
  private readonly listeners: FreezeListener[] = [];
  private readonly telling = new Set<Promise<void>>();
  private readonly key: string;
  private readonly chain: ChainHold | undefined;

  constructor(private readonly deps: FreezeDeps) {
    this.key = freezeKey(deps.repo.environment);
    const read = deps.onChain;
    this.chain = read && new ChainHold({ read, log: deps.log, disagrees: (freeze) => this.tellHeld(freeze) });
  }

  get environment(): ServiceEnvironment {
    return this.deps.repo.environment;
  }

  /**
   * The freeze in place now, read from the store (current on every replica), or else the one the signed
   * chain holds; undefined when none. The chain is read again when the record changed since its last
   * read (a surface showing the freeze); `fresh` (a send, the sweep, filing an unfreeze) reads it always.
   */
  async current(options: { fresh?: boolean } = {}): Promise<Freeze | undefined> {
    const record = await this.deps.store.get<FreezeRecord>(this.key);
    if (record?.state !== 'frozen') return this.chain?.held(record, options.fresh === true);
    // A record that is lifted or gone again after this is read against the chain again.
    this.chain?.forget();
    return freezeOf(record);
  }

  onChange(listener: FreezeListener): void {
    this.listeners.push(listener);
  }

  /**
   * Freeze every send: audited, then stored; then every claim not yet marked as sending is ended, so
   * none of them sends. Refused when already frozen, by the record or the signed chain (the freeze in
   * place is returned). The listeners hear of a freeze of the record once, from the first run whose
   * pass completes (tellFrozen): a run that stopped part-way (a store error) leaves it to the next one.
   */
  async freeze(by: string, why: string, options: { quiet?: boolean } = {}): Promise<FreezeResult> {
    const checked = freezeReason.safeParse(why);
    if (!checked.success) throw new InvalidDraftError(`reason: ${checked.error.issues[0]?.message}`);
    const reason = checked.data;
    const { store, auditLog } = this.deps;
    const environment = this.environment;
    const written = await store.withLock(lockName(environment), async () => {
      const read = await store.get<FreezeRecord>(this.key);
      const recorded = read?.state === 'frozen';
      const held = recorded ? freezeOf(read) : await this.chain?.heldForFreeze(read);
      if (held) return { ok: false as const, reason: 'already-frozen' as const, freeze: held, recorded };
      const freeze: Freeze = { by, reason, at: this.deps.now().toISOString() };
      // The entry first, like every step: a freeze never exists without it.
      await auditLog.append(environment, {
        at: freeze.at,
        kind: 'freeze',
        action: 'frozen',
        actor: by,
        note: reason,
      });
      const previousLift = read?.state === 'lifted' ? { requestId: read.requestId, at: read.at } : undefined;
      const next: FreezeRecord = { state: 'frozen', ...freeze, ...(previousLift ? { previousLift } : {}) };
      if (!(await store.compareAndSet<FreezeRecord>(this.key, read, next))) {
        throw new Error('the freeze record changed while the freeze was written; try again');
      }
      this.chain?.forget();
      return { ok: true as const, freeze };
    });
    // Run again when already frozen: a freeze whose own run stopped part-way (a store error) is
    // completed by the next `/cngn freeze`, so its answer too means no claim can still send.
    const underway = await this.stopUnmarkedClaims();
    const told = written.ok || written.recorded;
    if (told && !options.quiet) await this.tellFrozen({ frozen: written.freeze, underway });
    return { ...written, underway };
  }

  /**
   * Tell the listeners of a freeze made quietly, once they are there (a start-up freeze), unless they
   * were told of it already (the freeze was in place before, and told); or of a lift a sweep settled.
   */
  announce(change: FreezeChange): void {
    if ('frozen' in change) this.track(this.tellFrozen(change));
    else this.tell(change);
  }

  /**
   * A freeze of the record is told once, by the first run whose pass over claims completed (a retried
   * `/cngn freeze`, a start after one that stopped part-way). Its listeners start before the command
   * that froze answers. A marker that cannot be written is told anyway: twice is better than never.
   */
  private async tellFrozen(change: FreezeChange & { frozen: Freeze }): Promise<void> {
    const key = frozenToldKey(this.environment, change.frozen.at);
    const first = await this.deps.store
      .setIfAbsent(key, this.deps.now().toISOString(), LIFT_TOLD_TTL_MS)
      .catch((error: unknown) => {
        this.deps.log?.warn('whether the freeze was told could not be checked', { error: String(error) });
        return true;
      });
    if (first) this.startListeners(change);
  }

  /**
   * Executing an approved unfreeze request: lift the freeze it names (audited, then stored). Throws
   * CustodyCallError `not-done` when that freeze is no longer in place: nothing changed. Done already
   * by this request: nothing more to do.
   */
  async lift(request: RequestOf<'unfreeze'>): Promise<void> {
    const { store, auditLog } = this.deps;
    const environment = this.environment;
    const change = await store.withLock(lockName(environment), async () => {
      const read = await store.get<FreezeRecord>(this.key);
      const frozen = await this.liftable(read, request);
      if (!frozen) return undefined;
      const at = this.deps.now().toISOString();
      const by = request.approvals.at(-1)?.user ?? request.requester;
      await auditLog.append(environment, {
        at,
        kind: 'freeze',
        action: 'unfrozen',
        actor: by,
        subject: request.id,
        note: `lifted the freeze of ${frozen.at} (${frozen.reason})`,
      });
      const next: FreezeRecord = { state: 'lifted', at, by, requestId: request.id, frozen };
      if (!(await store.compareAndSet<FreezeRecord>(this.key, read, next))) {
        throw new Error('the freeze record changed while the freeze was lifted; it is looked up again');
      }
      return { lifted: frozen, by, requestId: request.id };
    });
    if (change) this.tell(change);
  }

  /**
   * The freeze `request` lifts, under the freeze's lock: the record's, or, when the record says sends
   * are not frozen, the one the signed chain holds (a record lifted or deleted outside the bot). Undefined
   * when this request lifted it already. Throws CustodyCallError `not-done` when it may not lift it.
   */
  private async liftable(
    read: FreezeRecord | undefined,
    request: RequestOf<'unfreeze'>,
  ): Promise<Freeze | undefined> {
    const { frozenAt } = request.payload;
    if (read?.state === 'frozen' && read.barred?.includes(request.id)) {
      throw new CustodyCallError('not-done', 'this unfreeze was given up on; nothing changed');
    }
    if (read?.state === 'lifted' && read.requestId === request.id) return undefined;
    await this.refuseReplay(request);
    const held = read?.state === 'frozen' ? freezeOf(read) : await this.chain?.held(read, true);
    if (held?.at === frozenAt) return held;
    throw new CustodyCallError(
      'not-done',
      'the freeze it was filed to lift is no longer in place; nothing changed',
    );
  }

  /**
   * Where the chain holds the freeze: an unfreeze the chain names already (lifted or given up), or filed
   * longer ago than any unfreeze lives, is one put back by a store writer: it lifts nothing.
   */
  private async refuseReplay(request: RequestOf<'unfreeze'>): Promise<void> {
    const { chain } = this;
    if (!chain) return;
    const within = this.deps.liftWithinMs;
    const age = this.deps.now().getTime() - Date.parse(request.createdAt);
    if ((within !== undefined && age > within) || (await chain.spent(request))) {
      throw new CustodyCallError(
        'not-done',
        'the signed audit chain shows this unfreeze already lifted a freeze or was given up on, or it is too old to lift one; nothing changed',
      );
    }
  }

  /**
   * Filing an unfreeze request (the engine built it from the freeze now in place): saved only while
   * that freeze is still in place and no other unfreeze is open, under the freeze's lock.
   */
  async saveUnfreezeRequest(request: RequestOf<'unfreeze'>): Promise<void> {
    const { store, repo } = this.deps;
    await store.withLock(lockName(this.environment), async () => {
      const freeze = await this.current({ fresh: true });
      if (freeze?.at !== request.payload.frozenAt) throw new UnfreezeRefusedError('not-frozen');
      const waiting = (await repo.openRequests()).find((open) => open.kind === 'unfreeze');
      if (waiting) throw new UnfreezeRefusedError('already-waiting', waiting);
      await repo.save(request);
    });
  }

  /**
   * An unfreeze whose lift went unanswered (a store that timed out on the bot's side, or a holder that
   * stalled past its lease) may still land. Found lifted by it: it landed. Otherwise the freeze it was
   * filed for is barred to it before anyone is told it failed: the record, rewritten naming it, no
   * longer equals what that lift read, so its compare-and-set is refused whenever it arrives, and
   * `lift` refuses it from then on. A freeze no longer in place needs no bar: the lift's write is
   * conditional on that freeze's record, which never comes back. Throws when the bar is not written
   * (the next sweep tries again). See docs/decisions/unanswered-writes-fenced.md.
   */
  async settleInterrupted(request: RequestOf<'unfreeze'>): Promise<InterruptedLift> {
    return this.deps.store.withLock(lockName(this.environment), () => this.barUnderLock(request));
  }

  private async barUnderLock(request: RequestOf<'unfreeze'>): Promise<InterruptedLift> {
    const { store } = this.deps;
    let audited = false;
    for (let run = 1; ; run++) {
      const read = await store.get<FreezeRecord>(this.key);
      const step = barStep(read, request);
      if ('landed' in step) return audited ? step : this.barChainLift(step, read, request);
      // The entry first, like every step: the chain already says "unfrozen" (the lift audits before
      // its write), and this says that lift never took effect.
      if (!audited) await this.auditBar(request);
      audited = true;
      if (await store.compareAndSet<FreezeRecord>(this.key, read, step.bar)) return { landed: false };
      if (run >= BAR_RUNS) throw new Error(`the freeze record kept changing while ${run} bars were tried`);
    }
  }

  /**
   * A lift of a freeze only the chain held (the record lifted or gone outside the bot) is conditional on
   * that record, which may still be there when its write lands: the bar on the chain keeps it from
   * taking effect. A bar of a lift that never reached the chain changes nothing there.
   */
  private async barChainLift(
    step: InterruptedLift,
    read: FreezeRecord | undefined,
    request: RequestOf<'unfreeze'>,
  ): Promise<InterruptedLift> {
    if (step.landed || !this.chain || read?.state === 'frozen') return step;
    await this.auditBar(request);
    // As after a freeze: a claim taken while the lift seemed to hold is ended before it sends.
    await this.stopUnmarkedClaims();
    return step;
  }

  private async auditBar(request: RequestOf<'unfreeze'>): Promise<void> {
    await this.deps.auditLog.append(this.environment, {
      at: this.deps.now().toISOString(),
      kind: 'freeze',
      action: 'unfreeze-barred',
      subject: request.id,
      note: `its lift of the freeze of ${request.payload.frozenAt} was not confirmed; it never takes effect`,
    });
  }

  /**
   * The record says sends are not frozen while the chain holds `held`. Read again under the freeze's
   * lock before anyone is told: a freeze written on another replica is on the chain before it is in the
   * record, and its writer holds the lock between the two, so that moment is never told as a store
   * writer's change. Told once per freeze across replicas, and only once someone listens. True when told
   * (here or on another replica).
   */
  private tellHeld(held: Freeze): Promise<boolean> {
    const told = this.confirmHeld(held).catch((error: unknown) => {
      this.deps.log?.warn('the freeze held by the signed audit chain could not be read again', {
        error: String(error),
      });
      return false;
    });
    this.track(told.then(() => undefined));
    return told;
  }

  private async confirmHeld(held: Freeze): Promise<boolean> {
    const { store } = this.deps;
    const confirmed = await store.withLock(lockName(this.environment), async () => {
      const record = await store.get<FreezeRecord>(this.key);
      return record?.state !== 'frozen' && (await this.chain?.stillHeld(held.at)) === true;
    });
    if (!confirmed || this.listeners.length === 0) return false;
    const key = heldToldKey(this.environment, held.at);
    const first = await store
      .setIfAbsent(key, this.deps.now().toISOString(), LIFT_TOLD_TTL_MS)
      .catch(() => true);
    if (!first) return true;
    const problem = chainUnreadable(held)
      ? 'sends are held: the signed audit chain does not verify back to its latest freeze'
      : 'the freeze record in the store says sends are not frozen, but the signed audit chain holds them frozen: the store was changed outside the bot; sends stay frozen';
    const fields = { frozenAt: held.at, frozenBy: held.by };
    if (this.deps.log?.error) this.deps.log.error(problem, fields);
    else this.deps.log?.warn(problem, fields);
    this.startListeners({ heldByChain: held });
    return true;
  }

  /** Resolves when listeners told so far have finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.telling.size > 0) await Promise.allSettled([...this.telling]);
  }

  /**
   * After the freeze is stored: end every claim of an approved or executing request not yet marked as
   * sending (its mark is then refused). Returns the requests whose call was marked before: under way.
   */
  private async stopUnmarkedClaims(): Promise<string[]> {
    const underway: string[] = [];
    for (const request of await this.deps.repo.openRequests()) {
      if (!heldByFreeze(request)) continue;
      if (request.state !== 'approved' && request.state !== 'executing') continue;
      if (await this.deps.repo.endUnmarkedClaims(request, this.deps.now())) {
        underway.push(request.id);
      }
    }
    return underway;
  }

  /**
   * Tell the listeners without holding up the caller (an executor recording its answer, a command).
   * A lift is told once: its holder tells it when its write is answered, and a sweep that settles the
   * same lift later (the holder stalled before recording it) tells it only if the holder never did. A
   * marker that cannot be written is told anyway: twice is better than never.
   */
  private tell(change: FreezeChange): void {
    if (!('lifted' in change)) {
      this.startListeners(change);
      return;
    }
    const key = liftToldKey(this.environment, change.requestId);
    this.track(
      this.deps.store.setIfAbsent(key, this.deps.now().toISOString(), LIFT_TOLD_TTL_MS).then(
        (first) => (first ? this.startListeners(change) : undefined),
        (error: unknown) => {
          this.deps.log?.warn('whether the lift was told could not be checked', { error: String(error) });
          this.startListeners(change);
        },
      ),
    );
  }

  private startListeners(change: FreezeChange): void {
    for (const listener of this.listeners) {
      this.track(
        listener(change).catch((error: unknown) => {
          this.deps.log?.warn('a listener of the freeze failed', { error: String(error) });
        }),
      );
    }
  }

  private track(told: Promise<void>): void {
    this.telling.add(told);
    void told.finally(() => this.telling.delete(told));
  }
}
