// Delegation for an approver who is away: a request of kind `delegation`, approved by another approver
// through the engine like any request, and executed by writing it to the store instead of calling the
// service. The delegation is in effect while its request is completed, not revoked, and before its end;
// every check reads the store, so a revocation holds at once on every replica and survives restarts.
// Where the bot holds the audit signing key, the store's word is not enough: the grant must be on the
// signed audit chain (the entry of its request's completion), and a revocation holds from the chain too
// (its step's entry), which a store writer cannot rewrite unnoticed; while the chain does not verify, a
// delegation filed before what its signed head vouches for counts for none (audit/verified-read.ts).
// This file is the requests' side: filing them, the store's index of the granting requests, ending
// them. The grant itself (Delegation, isLive) and who may use it for which request live in the access
// room (access/delegations.ts, access/policy.ts: the one place eligibility lives).
import { type Delegation, isLive, LONGEST_DELEGATION_MS } from '../access/index.js';
import { type ChainDelegations, DELEGATION_REVOKED } from '../audit/index.js';
import { Money } from '../format/money.js';
import type { Store } from '../store/index.js';
import type { CoreSections } from './core-sections.js';
import type { DelegationPayload } from './payloads.js';
import type { ServiceEnvironment } from './ports.js';
import { sentBack, transition } from './state-machine.js';
import type { ApprovalRequest, RequestDraft, RequestOf } from './types.js';

export const REVOKED_ACTION = DELEGATION_REVOKED;
/** How the note of a revocation by the bot begins; why follows it ("ended by the bot: its delegate …"). */
export const ENDED_NOTE_START = 'ended by the bot: ';
/** The bot cancelled a delegation waiting for approval: its delegate or delegator may no longer act. */
export const WITHDRAWN_ACTION = 'delegation-withdrawn';
/** How the note of such a step begins; why follows it ("cancelled by the bot: its delegate …"). */
export const WITHDRAWN_NOTE_START = 'cancelled by the bot: ';

/**
 * Ended delegations stay listed this long (for the refusal's reason), then leave the index; an
 * approval that names its delegation finds it by id (byId) however long ago it ended.
 */
const KEEP_ENDED_MS = 7 * 86_400_000;

const indexKey = (environment: ServiceEnvironment) => `delegations:${environment}`;

/**
 * The lock an approval in someone's place and a revocation both take (after the request's own lock),
 * so a revocation confirmed to a person is never followed by an approval through that delegation.
 */
export const delegationsLockName = (environment: ServiceEnvironment) => `delegations:${environment}`;

/**
 * The lock a delegation request is filed under, so two identical ones sent together cannot both find
 * no twin (see pendingTwin).
 */
export const delegationFilingLockName = (environment: ServiceEnvironment) =>
  `delegation-filing:${environment}`;

/**
 * A delegation request still waiting for approval that asks for exactly this (same delegator, delegate,
 * end and cap): a second one would only be approved twice. Undefined when there is none.
 */
export function pendingTwin(
  open: readonly ApprovalRequest[],
  payload: DelegationPayload,
  now: Date,
): RequestOf<'delegation'> | undefined {
  return open.find(
    (r): r is RequestOf<'delegation'> =>
      r.kind === 'delegation' &&
      r.state === 'pending' &&
      now.getTime() < Date.parse(r.expiresAt) &&
      r.payload.delegator === payload.delegator &&
      r.payload.delegate === payload.delegate &&
      Date.parse(r.payload.until) === Date.parse(payload.until) &&
      (r.payload.max ?? '') === (payload.max ?? ''),
  );
}

/** The delegation a completed delegation request granted; undefined for any other request. */
export function delegationOf(request: ApprovalRequest): Delegation | undefined {
  if (request.kind !== 'delegation' || request.state !== 'completed') return undefined;
  const done = request.history.find((step) => step.state === 'completed');
  const revoked = request.history.find((step) => step.action === REVOKED_ACTION);
  return {
    id: request.id,
    delegator: request.payload.delegator,
    delegate: request.payload.delegate,
    from: done?.at ?? request.createdAt,
    until: request.payload.until,
    ...(request.payload.max ? { max: request.payload.max } : {}),
    approvedBy: request.approvals.map((a) => a.user),
    ...(revoked
      ? {
          revoked: {
            at: revoked.at,
            by: revoked.actor ?? '',
            ...(revoked.note ? { note: revoked.note } : {}),
          },
        }
      : {}),
  };
}

/**
 * Why a delegation cannot be filed as drafted (the sentence says which field), or undefined. Only an
 * approver in their own right delegates (never what was delegated to them), never to themselves.
 */
export function delegationProblem(
  payload: DelegationPayload,
  requester: string,
  requesterIsApprover: boolean,
  now: Date,
): string | undefined {
  if (payload.delegator !== requester) return 'delegator: only the approver themselves can delegate';
  if (!requesterIsApprover) return 'delegator: only an approver can delegate (a delegate cannot pass it on)';
  if (payload.delegate === payload.delegator) return 'delegate: you cannot delegate to yourself';
  const until = Date.parse(payload.until);
  if (!(until > now.getTime())) return 'until: must be in the future';
  if (until - now.getTime() > LONGEST_DELEGATION_MS) return 'until: at most 90 days from now';
  if (payload.max !== undefined && !Money.parseDecimal(payload.max).isPositive())
    return 'max: must be a positive amount';
  return undefined;
}

/**
 * When a request waiting for approval expires: after the configured lifetime, and a delegation no
 * later than the end of its window, since approved after that it would never be in effect.
 */
export function requestExpiry(draft: RequestDraft, now: Date, ttlMs: number): number {
  const lifetime = now.getTime() + ttlMs;
  if (draft.kind !== 'delegation') return lifetime;
  return Math.min(lifetime, Date.parse(draft.payload.until));
}

/** The latest a request may be extended to: a delegation's window end; others have no such bound. */
export function latestExpiry(request: ApprovalRequest): number {
  return request.kind === 'delegation' ? Date.parse(request.payload.until) : Number.POSITIVE_INFINITY;
}

/** Where delegations are found: an index of the granting requests, per service environment. */
export class DelegationBook {
  constructor(
    private readonly store: Store,
    private readonly environment: ServiceEnvironment,
    /** The granting requests, in the order asked, in one store request. */
    private readonly load: (ids: string[]) => Promise<Array<ApprovalRequest | undefined>>,
    private readonly now: () => Date,
    /** Whether a granting request stands: its filing seal holds where the bot checks it (request-seal.ts). */
    private readonly stands: (request: ApprovalRequest) => boolean = () => true,
    /** What the signed audit chain says of delegations; absent without the audit signing key. */
    private readonly chain?: () => Promise<ChainDelegations>,
  ) {}

  /** The execution of a delegation request: idempotent, so a repeat writes nothing new. */
  async record(request: RequestOf<'delegation'>): Promise<void> {
    await this.store.addToSet(indexKey(this.environment), request.id);
  }

  /** Whether the execution of this request reached the store (to settle an unclear outcome). */
  async isRecorded(id: string): Promise<boolean> {
    return (await this.store.setMembers(indexKey(this.environment))).includes(id);
  }

  /** Every granted delegation not ended long ago, live or not, oldest first. */
  async all(): Promise<Delegation[]> {
    const now = this.now();
    const ids = await this.store.setMembers(indexKey(this.environment));
    const requests = ids.length > 0 ? await this.load(ids) : [];
    const chain = ids.length > 0 ? await this.chain?.() : undefined;
    const found: Delegation[] = [];
    for (const [index, id] of ids.entries()) {
      const request = requests[index];
      const delegation = request && this.grantOf(request, chain);
      if (!delegation) continue; // still being settled, changed outside the bot, or not on the chain
      const endedAt = Date.parse(delegation.revoked?.at ?? delegation.until);
      if (now.getTime() - endedAt > KEEP_ENDED_MS) {
        await this.store.removeFromSet(indexKey(this.environment), id);
        continue;
      }
      found.push(delegation);
    }
    return found.sort((a, b) => a.from.localeCompare(b.from));
  }

  /**
   * The delegation granted by request `id` of this environment, however long ago it ended: read
   * directly, not through the index, which lets ended ones go. Undefined when none was granted.
   */
  async byId(id: string): Promise<Delegation | undefined> {
    const [request] = await this.load([id]);
    if (request?.environment !== this.environment) return undefined;
    return this.grantOf(request, await this.chain?.());
  }

  /** The granting requests in the index as stored, whether their seals hold or not (sealing-once.ts). */
  async granting(): Promise<ApprovalRequest[]> {
    const ids = await this.store.setMembers(indexKey(this.environment));
    const requests = ids.length > 0 ? await this.load(ids) : [];
    return requests.filter((r): r is ApprovalRequest => r !== undefined);
  }

  /**
   * The delegation a request granted, unless it was changed outside the bot, or the signed chain does
   * not hold its grant, or it was filed before what the chain vouches for: then none. It runs from its
   * grant on the chain; revoked when its history or the chain says so.
   */
  private grantOf(request: ApprovalRequest, chain: ChainDelegations | undefined): Delegation | undefined {
    const stored = delegationOf(request);
    if (!stored || !this.stands(request)) return undefined;
    if (!chain) return stored;
    const granted = chain.granted.get(request.id);
    if (!granted || !(Date.parse(request.createdAt) > chain.filedAfter)) return undefined;
    const delegation = { ...stored, from: granted.at };
    const revoked = chain.revoked.get(request.id);
    if (delegation.revoked || !revoked) return delegation;
    const { at, actor, note } = revoked;
    return { ...delegation, revoked: { at, by: actor ?? '', ...(note ? { note } : {}) } };
  }

  /** Delegations in effect now. */
  async live(): Promise<Delegation[]> {
    const now = this.now();
    return (await this.all()).filter((d) => isLive(d, now));
  }
}

/** What a revocation uses: the core's locks, write and notices, the book, who is an approver, the clock. */
export interface RevocationDeps {
  core: CoreSections;
  book: DelegationBook;
  isApprover: (user: string) => Promise<boolean>;
  now: () => Date;
}

/**
 * `revoke @person`: end at once, without a second approval, the live delegations between `by` and
 * `person` (either way: a delegator takes it back, a delegate gives it up). An approver who is neither
 * may end any delegation to or from `person` (the delegator may be the one who is away). Each
 * revocation is a step of its request: audited, and shown on its message.
 */
export async function revokeDelegations(
  { core, book, isApprover, now }: RevocationDeps,
  by: string,
  person: string,
): Promise<ApprovalRequest[]> {
  const live = await book.live();
  let ending = live.filter(
    (d) => (d.delegator === by && d.delegate === person) || (d.delegate === by && d.delegator === person),
  );
  if (ending.length === 0 && (await isApprover(by))) {
    ending = live.filter((d) => d.delegate === person || d.delegator === person);
  }
  return endDelegations({ core, now }, ending, by, (current) =>
    by === current.delegator
      ? 'taken back by the delegator'
      : by === current.delegate
        ? 'given up by the delegate'
        : 'ended by an approver',
  );
}

/**
 * End at once every live delegation to or from `person`, who may no longer act here (made a guest,
 * deactivated, not a member of the workspace): a step of its request with no actor, saying why; and
 * cancel those still waiting for approval, first. The requests ended, then those cancelled.
 */
export async function endDelegationsOf(
  deps: Pick<RevocationDeps, 'core' | 'book' | 'now'>,
  person: string,
  why: string,
): Promise<ApprovalRequest[]> {
  // The waiting ones first: one approved meanwhile is live by the time the live ones are read.
  const cancelled = await cancelWaitingDelegations(deps, person, why);
  const ending = (await deps.book.live()).filter((d) => d.delegate === person || d.delegator === person);
  const note = (d: Delegation) =>
    `${ENDED_NOTE_START}its ${d.delegate === person ? 'delegate' : 'delegator'} ${why}`;
  const ended = await endDelegations(deps, ending, undefined, note);
  await withdrawDelegatedApprovals(deps, person, why);
  return [...ended, ...cancelled];
}

/**
 * Delegation requests still waiting for approval to or from `person`, who may no longer act, are
 * cancelled (approved, each would only be ended at once): one audited conditional write per request,
 * with no actor and the reason on the record, then told, so its message says so.
 */
async function cancelWaitingDelegations(
  { core, now }: Pick<RevocationDeps, 'core' | 'now'>,
  person: string,
  why: string,
): Promise<ApprovalRequest[]> {
  const waiting = (request: ApprovalRequest | undefined): request is RequestOf<'delegation'> =>
    request?.kind === 'delegation' &&
    request.state === 'pending' &&
    (request.payload.delegate === person || request.payload.delegator === person);
  const cancelled: ApprovalRequest[] = [];
  for (const open of (await core.openRequests()).filter(waiting)) {
    const next = await core.locked(open.id, async (current) => {
      if (!waiting(current)) return undefined;
      const role = current.payload.delegate === person ? 'delegate' : 'delegator';
      const reason = `${WITHDRAWN_NOTE_START}its ${role} ${why}`;
      const base = { ...current, checking: undefined, reason } as ApprovalRequest;
      const closed = transition(base, 'cancelled', { action: WITHDRAWN_ACTION, note: reason, at: now() });
      await core.write(current, closed);
      return closed;
    });
    if (next) {
      cancelled.push(next);
      await core.notify(next);
    }
  }
  return cancelled;
}

/**
 * Approvals given through a delegation of `person`, who may no longer act, stop counting: each request
 * not yet sent that counts one goes back to its approvers (a new round, its approvals cleared, as for
 * changed figures), one audited conditional write per request. Run after the delegation ended, so no
 * approval through it can come after; run every time, so a crash after the ending is made good.
 */
async function withdrawDelegatedApprovals(
  { core, now }: Pick<RevocationDeps, 'core' | 'now'>,
  person: string,
  why: string,
): Promise<void> {
  const through = (request: ApprovalRequest) =>
    request.approvals.some(
      (a) => a.onBehalfOf !== undefined && (a.user === person || a.onBehalfOf === person),
    );
  const counting = (request: ApprovalRequest | undefined): request is ApprovalRequest =>
    request !== undefined &&
    (request.state === 'pending' || request.state === 'approved') &&
    through(request);
  for (const open of (await core.openRequests()).filter(counting)) {
    const back = await core.locked(open.id, async (current) => {
      if (!counting(current)) return undefined;
      const role = current.approvals.some((a) => a.onBehalfOf !== undefined && a.user === person)
        ? 'delegate'
        : 'delegator';
      const reason = `an approval given through a delegation no longer counts: its ${role} ${why}; approve again`;
      const next = sentBack(current, current.round, reason, { note: reason, at: now() });
      await core.write(current, next);
      return next;
    });
    if (back) await core.notify(back);
  }
}

/** Each delegation still live ended as one audited step of its request, then shown and told. */
async function endDelegations(
  { core, now }: Pick<RevocationDeps, 'core' | 'now'>,
  ending: readonly Delegation[],
  by: string | undefined,
  noteOf: (current: Delegation) => string,
): Promise<ApprovalRequest[]> {
  const revoked: ApprovalRequest[] = [];
  for (const delegation of ending) {
    // The delegation request's lock, then the delegations lock (the order approvals take them in): an
    // approval in the delegator's place under way finishes first, any later one reads the revocation.
    const next = await core.locked(delegation.id, (request) =>
      core.underDelegationsLock(async () => {
        const current = request && delegationOf(request);
        if (!request || !current || !isLive(current, now())) return undefined;
        const at = now().toISOString();
        const step = {
          at,
          state: request.state,
          action: REVOKED_ACTION,
          ...(by ? { actor: by } : {}),
          note: noteOf(current),
        };
        const saved = { ...request, history: [...request.history, step] } as ApprovalRequest;
        await core.write(request, saved);
        return saved;
      }),
    );
    if (next) {
      revoked.push(next);
      await core.notify(next);
    }
  }
  return revoked;
}
