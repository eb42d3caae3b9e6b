// Who the policy let approve a kind of request, as the audit chain records it: the `approvers` setting
// (or `approvers for <kind>`) of the newest policy entry, people by ID and Slack user groups; a group's
// members only as far as the chain shows them joining or leaving (`members of S…` entries, by time).
// The bot records the changes it sees, never the members it first read, so someone the chain never
// shows joining or leaving a group of the pool cannot be placed: their standing is `unknown`, and the
// verifier says so rather than counting or refusing them. Mirrors approvals/policy-record.ts's words.
import type { AuditEntry, PolicySetting } from './types.js';

/** In the pool, not in it, or not known from the chain (a group member never seen to join or leave). */
type Standing = 'in' | 'out' | 'unknown';

export interface PoolAnswer {
  standing: Standing;
  /** The groups of the pool whose membership of the person the chain does not record (for `unknown`). */
  groups: string[];
}

const GENERAL = 'approvers';
const GENERAL_POOL = 'the approvers above';
const EVERYONE = 'every member who is not a guest';
const SLACK_GROUP = /^S[A-Z0-9]{2,}$/;

/** A member's recorded joins and leaves of one group, in chain order. */
type History = Array<{ at: number; joined: boolean }>;

export class ApproverPools {
  /** The approver settings of the newest policy entry; undefined: none recorded yet. */
  private settings: Map<string, PolicySetting['value']> | undefined;
  /** For each group, each member's recorded joins and leaves. */
  private readonly members = new Map<string, Map<string, History>>();

  /** A policy entry: the settings in effect, or a group's members seen to change at its time. */
  read(entry: AuditEntry): void {
    const policy = entry.policy;
    if (policy?.settings) {
      const approverSettings = policy.settings.filter((s) => s.name.startsWith(GENERAL));
      this.settings = new Map(approverSettings.map((s) => [s.name, s.value]));
    }
    if (!policy?.group) return;
    const at = Date.parse(entry.at);
    const group = this.members.get(policy.group) ?? new Map<string, History>();
    this.members.set(policy.group, group);
    const note = (user: string, joined: boolean) =>
      group.set(user, [...(group.get(user) ?? []), { at, joined }]);
    for (const user of policy.added ?? []) note(user, true);
    for (const user of policy.removed ?? []) note(user, false);
  }

  /** Who approves `kind` (undefined: the general pool), in words or IDs; undefined while none is recorded. */
  private poolOf(kind: string | undefined): PolicySetting['value'] | undefined {
    const own = kind === undefined ? undefined : this.settings?.get(`${GENERAL} for ${kind}`);
    return own === undefined || own === GENERAL_POOL ? this.settings?.get(GENERAL) : own;
  }

  /** Was `user` an approver of `kind` at `at`, as far as the chain tells? Undefined: no approvers recorded. */
  standing(kind: string | undefined, user: string, at: number): PoolAnswer | undefined {
    const pool = this.poolOf(kind);
    if (pool === undefined) return undefined;
    if (pool === EVERYONE) return { standing: 'in', groups: [] };
    if (typeof pool === 'string') return { standing: 'out', groups: [] };
    if (pool.includes(user)) return { standing: 'in', groups: [] };
    const unplaced: string[] = [];
    for (const group of pool.filter((id) => SLACK_GROUP.test(id))) {
      const last = this.members
        .get(group)
        ?.get(user)
        ?.findLast((change) => change.at <= at);
      if (last?.joined) return { standing: 'in', groups: [] };
      if (!last) unplaced.push(group);
    }
    return { standing: unplaced.length > 0 ? 'unknown' : 'out', groups: unplaced };
  }
}
