// Who may approve what: the approver pool of the request's kind (its own, or the general one of named
// approvers and a Slack user group's members), and the delegates of an approver who is away (in their place, within the window and the cap); never the
// requester, each person once, and as many distinct approvals as the amount's tier asks for. Every
// surface (channel buttons, DMs, App Home, Review all, reminders) asks this one class. It judges a
// request through the fields it reads (judged-request.ts), so this room never imports approvals/.

import { Money } from '../format/money.js';
import { type Delegation, isLive } from './delegations.js';
import { GroupMembers } from './groups.js';
import type { JudgedRequest } from './judged-request.js';
import type { RequestKind } from './kinds.js';
import { ApproverPools, type PoolSettings } from './pools.js';
import { type ApprovalTier, requiredApprovals } from './tiers.js';

/** Why the policy refuses a person's click (the engine adds reasons of its own: approvals/types.ts Refusal). */
export type RefusalReason =
  | 'requester'
  | 'not-approver'
  | 'already-approved'
  /** The delegate of a delegation request cannot approve its creation. */
  | 'delegate'
  /** A delegation request whose end has passed: approved, it would never be in effect. */
  | 'window-ended'
  /** A delegate: every delegation they hold has ended (or its delegator is no approver any more). */
  | 'delegation-ended'
  /** A delegate: the request is above the delegation's cap. */
  | 'over-cap'
  /** A delegate with a capped delegation: the request has no amount (whitelist, settlement). */
  | 'not-covered'
  /** A delegate: the delegator filed this request, so nobody approves it in their place. */
  | 'delegator-filed'
  /** A delegate: the delegator already counts on this request (approved it, or another delegate did). */
  | 'delegator-counted'
  /** An unfreeze request: this approver froze the sends, so another approver lifts the freeze. */
  | 'froze'
  /** A passkey registration whose owner is no longer an approver or a live delegate. */
  | 'passkey-owner-gone';

/** Whether an approval still counts: its approver is in the pool, has left it, or is not known to be in it. */
export type StillCounts = 'counts' | 'left' | 'unknown';

/**
 * `onBehalfOf`: the approval is a delegate's, in that approver's place, through the delegation
 * `delegationId` (the id of the request that granted it), which the approval records.
 */
export type ApprovalCheck =
  | { allowed: true; onBehalfOf?: string; delegationId?: string }
  | { allowed: false; reason: RefusalReason };

/** Everyone a request already counts: those who approved, and those in whose place a delegate did. */
export function countedPeople(request: JudgedRequest): Set<string> {
  const counted = new Set<string>();
  for (const approval of request.approvals) {
    counted.add(approval.user);
    if (approval.onBehalfOf) counted.add(approval.onBehalfOf);
  }
  return counted;
}

/** What a delegation covers: a capped one only requests with an amount (₦, as filed) at most the cap. */
export function capProblem(delegation: Delegation, request: JudgedRequest): RefusalReason | undefined {
  if (delegation.max === undefined) return undefined;
  if (!request.amount) return 'not-covered';
  return Money.parseDecimal(request.amount).compare(Money.parseDecimal(delegation.max)) > 0
    ? 'over-cap'
    : undefined;
}

/** Delegation, unfreeze and passkey requests are decided by approvers in their own right, never by a delegate. */
function inOwnRightOnly(request: JudgedRequest): boolean {
  return request.kind === 'delegation' || request.kind === 'unfreeze' || request.kind === 'passkey';
}

/** Where the policy reads delegations from (the engine's store), and the clock their windows use. */
export interface DelegationSource {
  all(): Promise<Delegation[]>;
  now(): Date;
}

export interface PolicyOptions {
  approvers: readonly string[];
  approverGroup?: string;
  /** CNGN_APPROVERS_<KIND>: a kind named here is approved by its own pool only. */
  approversByKind?: PoolSettings['byKind'];
  tiers: readonly ApprovalTier[];
  /** Members of a Slack user group (the Slack side supplies it; the engine knows no Slack). */
  groupMembers?: (groupId: string) => Promise<string[]>;
  /** How long group membership is trusted before it is read again. */
  groupCacheMs?: number;
  now?: () => number;
  /** The pools, when built elsewhere to share their group cache with the roles; the fields above then only give tiers. */
  pools?: ApproverPools;
}

export class ApprovalPolicy {
  private delegationSource: DelegationSource | undefined;
  /** Who approves each kind of request. */
  readonly pools: ApproverPools;

  constructor(private readonly options: PolicyOptions) {
    this.pools =
      options.pools ??
      new ApproverPools(
        {
          approvers: options.approvers,
          approverGroup: options.approverGroup,
          byKind: options.approversByKind,
        },
        new GroupMembers({ read: options.groupMembers, cacheMs: options.groupCacheMs, now: options.now }),
      );
  }

  /** The engine hands over its delegations (kept in its store); without them nobody is a delegate. */
  useDelegations(source: DelegationSource): void {
    this.delegationSource = source;
  }

  /** Delegations granted and not long ended (live or not); read fresh from the store each time. */
  async delegations(): Promise<Delegation[]> {
    return (await this.delegationSource?.all()) ?? [];
  }

  get tiers(): readonly ApprovalTier[] {
    return this.options.tiers;
  }

  requiredFor(amount: Money | undefined, kind?: RequestKind): number {
    return requiredApprovals(this.options.tiers, amount, kind);
  }

  /** With a kind: is `user` in that kind's pool? Without: in any pool (freeze, audit, delegating). */
  isApprover(user: string, kind?: RequestKind): Promise<boolean> {
    return this.pools.has(user, kind);
  }

  /**
   * Does an approval given on a request of `kind` still count, judged now without reading Slack: is the
   * approver it counts for (the delegator, for a delegate's) still in the kind's pool, by the configured
   * lists and the groups' last known members? 'unknown' when that rests on a group never read (or read
   * only as unknown); a click, by contrast, reads the group and refuses when it is not known.
   */
  approvalStillCounts(
    approval: { user: string; onBehalfOf?: string | undefined },
    kind: RequestKind,
  ): StillCounts {
    const membership = this.pools.lastKnownHas(approval.onBehalfOf ?? approval.user, kind);
    return membership === 'in' ? 'counts' : membership === 'out' ? 'left' : 'unknown';
  }

  /** Is `user` an approver (in any pool), judged without reading Slack, as approvalStillCounts judges? */
  lastKnownApprover(user: string): StillCounts {
    const membership = this.pools.lastKnownHas(user);
    return membership === 'in' ? 'counts' : membership === 'out' ? 'left' : 'unknown';
  }

  /** Read the user groups of the kind's pool from Slack (the cache while fresh), for `approvalStillCounts`. */
  readPoolGroups(kind: RequestKind): Promise<void> {
    return this.pools.readGroups(kind);
  }

  /** Everyone in the kind's pool (any pool without one): the named approvers, then groups' members. */
  approverIds(kind?: RequestKind): Promise<string[]> {
    return this.pools.ids(kind);
  }

  /**
   * May `user` approve `request` now, and in whose place? Never its requester, never anyone it already
   * counts. An approver approves in their own right. Anyone else only as the delegate of an approver
   * (in their own right, never through a delegation: no chains) whose delegation is live, covers the
   * amount, and whose place is free on this request: the delegator did not file it and does not count
   * on it yet. A delegation request is approved by another approver in their own right, never by its
   * delegate; an unfreeze request likewise, never by the approver who froze the sends. `delegations` may be passed when checking many requests at once (read once).
   */
  async check(
    request: JudgedRequest,
    user: string,
    delegations?: readonly Delegation[],
  ): Promise<ApprovalCheck> {
    if (user === request.requester) return { allowed: false, reason: 'requester' };
    const counted = countedPeople(request);
    const approver = await this.isApprover(user, request.kind);
    const ownRightRefusal = this.inOwnRightRefusal(request, user, approver);
    if (ownRightRefusal) return { allowed: false, reason: ownRightRefusal };
    if (counted.has(user)) return { allowed: false, reason: 'already-approved' };
    if (approver && (await this.passkeyOwnerGone(request, delegations)))
      return { allowed: false, reason: 'passkey-owner-gone' };
    if (approver) return { allowed: true };
    if (inOwnRightOnly(request)) return { allowed: false, reason: 'not-approver' };
    const place = await this.placeAmong(request, user, counted, delegations ?? (await this.delegations()));
    return 'reason' in place
      ? { allowed: false, reason: place.reason }
      : { allowed: true, onBehalfOf: place.delegation.delegator, delegationId: place.delegation.id };
  }

  /**
   * Is a passkey registration's owner known to be no approver now (named people first, then the
   * groups) and no live delegate? Not known (a group's read failed): taken as still one, so a failed
   * read never makes a list throw; the executor's check before the write, by last known membership,
   * sends it back if they left.
   */
  private async passkeyOwnerGone(
    request: JudgedRequest,
    delegations?: readonly Delegation[],
  ): Promise<boolean> {
    if (request.kind !== 'passkey') return false;
    const owner = request.payload.user;
    const now = this.delegationSource?.now() ?? new Date();
    const live = (delegations ?? (await this.delegations())).some(
      (d) => d.delegate === owner && isLive(d, now),
    );
    return !live && !(await this.isApprover(owner).catch(() => true));
  }

  /**
   * Does a passkey registration's owner still count, judged now without reading Slack: in a pool by the
   * configured lists and the groups' last known members, or a live delegate? 'unknown' when that rests
   * on a group never read and they hold no live delegation.
   */
  async passkeyOwnerStillCounts(user: string): Promise<StillCounts> {
    const membership = this.pools.lastKnownHas(user);
    if (membership === 'in') return 'counts';
    const now = this.delegationSource?.now() ?? new Date();
    if ((await this.delegations()).some((d) => d.delegate === user && isLive(d, now))) return 'counts';
    return membership === 'out' ? 'left' : 'unknown';
  }

  /**
   * A delegation or unfreeze request is approved by an approver in their own right: never its delegate,
   * never once its window has ended, never by the approver who froze the sends.
   */
  private inOwnRightRefusal(
    request: JudgedRequest,
    user: string,
    approver: boolean,
  ): RefusalReason | undefined {
    if (request.kind === 'delegation') {
      if (!approver) return 'not-approver';
      if (user === request.payload.delegate) return 'delegate';
      const now = this.delegationSource?.now() ?? new Date();
      if (!(Date.parse(request.payload.until) > now.getTime())) return 'window-ended';
    }
    if (request.kind === 'unfreeze') {
      if (!approver) return 'not-approver';
      if (user === request.payload.frozenBy) return 'froze';
    }
    return undefined;
  }

  /**
   * The delegation through which `user` (no approver in their own right) would approve `request` now,
   * in its delegator's place; undefined when they would not (or approve in their own right). For
   * saying whose place a delegate takes (their DM), with the delegations read once by the caller.
   */
  async placeFor(
    request: JudgedRequest,
    user: string,
    delegations?: readonly Delegation[],
  ): Promise<Delegation | undefined> {
    const check = await this.check(request, user, delegations);
    if (!check.allowed || !check.onBehalfOf) return undefined;
    const place = await this.placeAmong(
      request,
      user,
      countedPeople(request),
      delegations ?? (await this.delegations()),
    );
    return 'delegation' in place ? place.delegation : undefined;
  }

  /** A delegate's place on the request: the delegation ending last that fits, or why none does. */
  private async placeAmong(
    request: JudgedRequest,
    user: string,
    counted: Set<string>,
    delegations: readonly Delegation[],
  ): Promise<{ delegation: Delegation } | { reason: RefusalReason }> {
    const held = delegations.filter((d) => d.delegate === user);
    if (held.length === 0) return { reason: 'not-approver' };
    const now = this.delegationSource?.now() ?? new Date();
    let refusal: RefusalReason = 'delegation-ended';
    // The delegation ending last is tried first; any one that fits is enough.
    for (const delegation of [...held].sort((a, b) => b.until.localeCompare(a.until))) {
      if (!isLive(delegation, now) || !(await this.isApprover(delegation.delegator, request.kind))) continue;
      const problem =
        delegation.delegator === request.requester
          ? 'delegator-filed'
          : counted.has(delegation.delegator)
            ? 'delegator-counted'
            : capProblem(delegation, request);
      if (!problem) return { delegation };
      if (refusal === 'delegation-ended') refusal = problem;
    }
    return { reason: refusal };
  }

  /**
   * May `user` reject `request`? Never its requester; an approver in their own right; a delegate for
   * what their live delegation covers (in the delegator's place), even where a count is already used.
   * A delegation request only by an approver in their own right.
   */
  async mayReject(request: JudgedRequest, user: string): Promise<ApprovalCheck> {
    if (user === request.requester) return { allowed: false, reason: 'requester' };
    if (await this.isApprover(user, request.kind)) return { allowed: true };
    if (inOwnRightOnly(request)) return { allowed: false, reason: 'not-approver' };
    return this.check({ ...request, approvals: [] }, user);
  }

  /**
   * Everyone who may approve something now (of `kind`, when given): the approvers and the delegates of
   * live delegations.
   */
  async approversAndDelegates(delegations?: readonly Delegation[], kind?: RequestKind): Promise<string[]> {
    const now = this.delegationSource?.now() ?? new Date();
    const live = (delegations ?? (await this.delegations())).filter((d) => isLive(d, now));
    return [...new Set([...(await this.approverIds(kind)), ...live.map((d) => d.delegate)])];
  }

  /**
   * Who may approve this request now (never its requester, nobody already counted), in list order:
   * the approvers, then the delegates whose delegation covers it. `delegations` may be passed when
   * asking of many requests at once (read once).
   */
  async eligibleFor(request: JudgedRequest, read?: readonly Delegation[]): Promise<string[]> {
    const delegations = read ?? (await this.delegations());
    const eligible: string[] = [];
    for (const user of await this.approversAndDelegates(delegations, request.kind)) {
      if ((await this.check(request, user, delegations)).allowed) eligible.push(user);
    }
    return eligible;
  }
}
