// Who may approve what: the configured approvers and/or the members of a Slack user group, never the
// requester, each person once, and as many distinct approvals as the amount's tier asks for.
import { Money } from '../format/money.js';
import type { ApprovalRequest, RequestKind } from './types.js';

export interface ApprovalTier {
  /** Amounts at or above this need `approvals` distinct approvals. */
  min: Money;
  approvals: number;
}

/** `0:1,1000000:2` → tiers, sorted by amount. Throws on anything else. */
export function parseTiers(text: string): ApprovalTier[] {
  const tiers = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([\d.]+)\s*:\s*(\d+)$/.exec(part);
      if (!match) throw new Error(`"${part}" is not amount:approvals`);
      const approvals = Number(match[2]);
      if (approvals < 1) throw new Error(`"${part}" needs at least 1 approval`);
      return { min: Money.parse(match[1] ?? ''), approvals };
    });
  if (tiers.length === 0) throw new Error('no tiers given');
  return tiers.sort((a, b) => a.min.compare(b.min));
}

/**
 * Approvals needed for a request. Whitelist additions carry no amount and use the lowest tier. A
 * settlement-account change reroutes all future fiat payouts, so it needs as many as the top tier.
 */
export function requiredApprovals(
  tiers: readonly ApprovalTier[],
  amount: Money | undefined,
  kind?: RequestKind,
): number {
  if (kind === 'settlement') return Math.max(1, ...tiers.map((tier) => tier.approvals));
  if (!amount) return Math.max(tiers[0]?.approvals ?? 1, 1);
  let needed = 1;
  for (const tier of tiers) if (amount.compare(tier.min) >= 0) needed = tier.approvals;
  return Math.max(needed, 1);
}

export type RefusalReason = 'requester' | 'not-approver' | 'already-approved';

export type ApprovalCheck = { allowed: true } | { allowed: false; reason: RefusalReason };

export interface PolicyOptions {
  approvers: readonly string[];
  approverGroup?: string;
  tiers: readonly ApprovalTier[];
  /** Members of a Slack user group (the Slack side supplies it; the engine knows no Slack). */
  groupMembers?: (groupId: string) => Promise<string[]>;
  /** How long group membership is trusted before it is read again. */
  groupCacheMs?: number;
  now?: () => number;
}

export class ApprovalPolicy {
  private groupCache: { members: Set<string>; until: number } | undefined;

  constructor(private readonly options: PolicyOptions) {}

  get tiers(): readonly ApprovalTier[] {
    return this.options.tiers;
  }

  requiredFor(amount: Money | undefined, kind?: RequestKind): number {
    return requiredApprovals(this.options.tiers, amount, kind);
  }

  async isApprover(user: string): Promise<boolean> {
    if (this.options.approvers.includes(user)) return true;
    const group = this.options.approverGroup;
    if (!group || !this.options.groupMembers) return false;
    return (await this.groupMemberSet(group)).has(user);
  }

  /** Everyone who may approve: the named approvers and the group's members, each once. */
  async approverIds(): Promise<string[]> {
    const group = this.options.approverGroup;
    const members = group && this.options.groupMembers ? [...(await this.groupMemberSet(group))] : [];
    return [...new Set([...this.options.approvers, ...members])];
  }

  async check(request: ApprovalRequest, user: string): Promise<ApprovalCheck> {
    if (user === request.requester) return { allowed: false, reason: 'requester' };
    if (!(await this.isApprover(user))) return { allowed: false, reason: 'not-approver' };
    if (request.approvals.some((a) => a.user === user)) return { allowed: false, reason: 'already-approved' };
    return { allowed: true };
  }

  /** Who may approve this request now (never its requester, nobody already counted), in list order. */
  async eligibleFor(request: ApprovalRequest): Promise<string[]> {
    const eligible: string[] = [];
    for (const user of await this.approverIds()) {
      if ((await this.check(request, user)).allowed) eligible.push(user);
    }
    return eligible;
  }

  private async groupMemberSet(group: string): Promise<Set<string>> {
    const now = (this.options.now ?? Date.now)();
    if (this.groupCache && this.groupCache.until > now) return this.groupCache.members;
    const members = new Set(await this.options.groupMembers?.(group));
    this.groupCache = { members, until: now + (this.options.groupCacheMs ?? 60_000) };
    return members;
  }
}
