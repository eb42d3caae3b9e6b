// The roles as configured (CNGN_READERS, CNGN_REQUESTERS, CNGN_AUDITORS and the approver pools),
// answering the one question every surface asks (roles.ts). Readers and requesters unset: every member
// who is not a guest. Readers set: those named and the approvers, who read what they decide on.
// Auditors unset: nobody besides the approvers, who may always audit.
import type { GroupMembers } from './groups.js';
import type { RequestKind } from './kinds.js';
import { type ApproverPools, holdersOf, type SlackIds, unionOf } from './pools.js';
import type { Holders, Need, Roles } from './roles.js';

export interface RoleLists {
  /** CNGN_READERS; undefined: every member who is not a guest. */
  readers?: SlackIds | undefined;
  /** CNGN_REQUESTERS; undefined: every member who is not a guest. */
  requesters?: SlackIds | undefined;
  /** CNGN_AUDITORS; undefined: nobody besides the approvers. */
  auditors?: SlackIds | undefined;
}

export interface RoleSummary {
  readers: Holders;
  requesters: Holders;
  /** Named auditors only; every approver may audit too. */
  auditors: Holders;
  /** The general approver pool, for every kind without a pool of its own. */
  general: Holders;
  ownPools: Array<{ kind: RequestKind; holders: Holders }>;
}

const EVERYONE: Holders = { everyone: true, users: [], groups: [] };
const NOBODY: Holders = { everyone: false, users: [], groups: [] };

export class RoleBook implements Roles {
  constructor(
    private readonly lists: RoleLists,
    readonly pools: ApproverPools,
  ) {}

  get groups(): GroupMembers {
    return this.pools.groups;
  }

  async holders(need: Need): Promise<Holders> {
    return this.holdersNow(need);
  }

  async holds(user: string, need: Need): Promise<boolean> {
    const holders = this.holdersNow(need);
    if (holders.everyone || holders.users.includes(user)) return true;
    for (const group of holders.groups) if ((await this.groups.members(group)).has(user)) return true;
    return false;
  }

  /** The roles as configured, for /cngn policy: auditors as named (approvers audit besides). */
  summary(): RoleSummary {
    const { readers, requesters, auditors } = this.lists;
    return {
      readers: readers ? holdersOf(readers) : EVERYONE,
      requesters: requesters ? holdersOf(requesters) : EVERYONE,
      auditors: auditors ? holdersOf(auditors) : NOBODY,
      general: this.pools.general(),
      ownPools: this.pools.ownPools(),
    };
  }

  /** Every user group a role or a pool names, for re-reading them. */
  groupIds(): string[] {
    const named = [this.lists.readers, this.lists.requesters, this.lists.auditors].map((ids) =>
      ids ? holdersOf(ids) : NOBODY,
    );
    return [...unionOf([...named, this.pools.holders()]).groups];
  }

  /** Re-read a group now, if a role or pool names it; what changed since the last read. */
  async refreshGroup(group: string): Promise<{ added: string[]; removed: string[] }> {
    if (!this.groupIds().includes(group)) return { added: [], removed: [] };
    return this.groups.refreshGroup(group);
  }

  private holdersNow(need: Need): Holders {
    switch (need.role) {
      case 'reader':
        return this.lists.readers ? unionOf([holdersOf(this.lists.readers), this.pools.holders()]) : EVERYONE;
      case 'requester': {
        if (!this.lists.requesters) return EVERYONE;
        const named = holdersOf(this.lists.requesters);
        return need.approvers ? unionOf([named, this.pools.holders()]) : named;
      }
      case 'auditor':
        return unionOf([this.lists.auditors ? holdersOf(this.lists.auditors) : NOBODY, this.pools.holders()]);
      case 'approver':
        return this.pools.holders(need.kind);
    }
  }
}
