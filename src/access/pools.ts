// Who approves each kind of request: the kind's own pool when one is named (CNGN_APPROVERS_<KIND>),
// otherwise the general one (CNGN_APPROVERS and CNGN_APPROVER_GROUP). A kind's pool replaces the
// general one for that kind; it does not add to it. "An approver" with no kind is anyone in any pool.
import { GroupMembers } from './groups.js';
import { REQUEST_KINDS, type RequestKind } from './kinds.js';
import type { Holders } from './roles.js';

/** Slack IDs as configured: user IDs (U…, W…) and user group IDs (S…) in one list. */
export type SlackIds = readonly string[];

/** Split a configured list into people and user groups, each once. */
export function holdersOf(ids: SlackIds): Holders {
  const users = [...new Set(ids.filter((id) => !id.startsWith('S')))];
  const groups = [...new Set(ids.filter((id) => id.startsWith('S')))];
  return { everyone: false, users, groups };
}

export function unionOf(list: readonly Holders[]): Holders {
  return {
    everyone: list.some((h) => h.everyone),
    users: [...new Set(list.flatMap((h) => h.users))],
    groups: [...new Set(list.flatMap((h) => h.groups))],
  };
}

export interface PoolSettings {
  /** CNGN_APPROVERS */
  approvers: readonly string[];
  /** CNGN_APPROVER_GROUP */
  approverGroup?: string | undefined;
  /** CNGN_APPROVERS_<KIND>: people and groups; a kind absent uses the general pool. */
  byKind?: Partial<Record<RequestKind, SlackIds>> | undefined;
}

/** Someone's place in a pool as last known: in it, out of it, or not known (a group never read). */
export type PoolMembership = 'in' | 'out' | 'unknown';

export class ApproverPools {
  constructor(
    private readonly settings: PoolSettings,
    readonly groups: GroupMembers = new GroupMembers(),
  ) {}

  /** The general pool: who approves every kind without a pool of its own. */
  general(): Holders {
    const group = this.settings.approverGroup;
    return { everyone: false, users: [...new Set(this.settings.approvers)], groups: group ? [group] : [] };
  }

  /** The kinds with a pool of their own, and who is in it. */
  ownPools(): Array<{ kind: RequestKind; holders: Holders }> {
    const byKind = this.settings.byKind ?? {};
    return REQUEST_KINDS.flatMap((kind) => {
      const ids = byKind[kind];
      return ids ? [{ kind, holders: holdersOf(ids) }] : [];
    });
  }

  /** With a kind: who approves it. Without: everyone who approves some kind. */
  holders(kind?: RequestKind): Holders {
    if (kind) {
      const ids = this.settings.byKind?.[kind];
      return ids ? holdersOf(ids) : this.general();
    }
    return unionOf(REQUEST_KINDS.map((each) => this.holders(each)));
  }

  async has(user: string, kind?: RequestKind): Promise<boolean> {
    const holders = this.holders(kind);
    if (holders.users.includes(user)) return true;
    for (const group of holders.groups) if ((await this.groups.members(group)).has(user)) return true;
    return false;
  }

  /**
   * Is `user` in the kind's pool, judged without reading Slack: the configured people, then each group's
   * last known members. 'unknown' when they are not found and some group was never known.
   */
  lastKnownHas(user: string, kind?: RequestKind): PoolMembership {
    const holders = this.holders(kind);
    if (holders.users.includes(user)) return 'in';
    let unknown = false;
    for (const group of holders.groups) {
      const members = this.groups.lastKnown(group);
      if (members?.has(user)) return 'in';
      if (!members) unknown = true;
    }
    return unknown ? 'unknown' : 'out';
  }

  /** Read the groups of the kind's pool (from the cache while fresh; a read under way is shared). */
  async readGroups(kind: RequestKind): Promise<void> {
    await Promise.all(this.holders(kind).groups.map((group) => this.groups.members(group)));
  }

  /** Everyone in the pool, the named people first, then the groups' members, each once. */
  async ids(kind?: RequestKind): Promise<string[]> {
    const holders = this.holders(kind);
    const members = await Promise.all(holders.groups.map((group) => this.groups.members(group)));
    return [...new Set([...holders.users, ...members.flatMap((set) => [...set])])];
  }

  /** Every user group any pool names (for re-reading them). */
  groupIds(): string[] {
    return [...this.holders().groups];
  }
}
