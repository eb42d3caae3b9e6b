// Members of Slack user groups, as the roles and approver pools name them. The Slack side supplies the
// reading (usergroups.users.list); the engine knows no Slack. Membership is trusted for a short while,
// then read again; the first read says who the members are, and a re-read that finds people added or
// removed says so, so both can be recorded.

/** The difference a re-read found against what was known before (both empty on a first read). */
export interface MembershipChange {
  added: string[];
  removed: string[];
}

export interface GroupMembersOptions {
  /**
   * Reads a group's members now; undefined when they cannot be read yet (no Slack client): nothing is
   * known then. Absent: every group is empty, as without Slack.
   */
  read?: ((groupId: string) => Promise<string[] | undefined>) | undefined;
  /** How long membership is trusted before it is read again (default two minutes). */
  cacheMs?: number | undefined;
  now?: (() => number) | undefined;
  /**
   * Told when a re-read finds people added or removed, before the read answers; a listener that throws
   * fails that read, so one that records the change catches its own errors.
   */
  onMembershipChange?: ((group: string, added: string[], removed: string[]) => void) | undefined;
}

const GROUP_CACHE_MS = 120_000;

interface Known {
  members: Set<string>;
  until: number;
}

export class GroupMembers {
  private readonly known = new Map<string, Known>();
  /** One read per group at a time: callers asking together share it. */
  private readonly reading = new Map<string, Promise<Set<string>>>();
  private readonly listeners: Array<(group: string, added: string[], removed: string[]) => void> = [];
  private readonly firstReads: Array<(group: string, members: string[]) => void> = [];

  constructor(private readonly options: GroupMembersOptions = {}) {
    if (options.onMembershipChange) this.listeners.push(options.onMembershipChange);
  }

  /** Also tell `listener` of each membership change a re-read finds. */
  onMembershipChange(listener: (group: string, added: string[], removed: string[]) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Also tell `listener` of each group's members as this process first reads them (the changes come
   * after); like a change's listener, one that throws fails that read.
   */
  onFirstRead(listener: (group: string, members: string[]) => void): void {
    this.firstReads.push(listener);
  }

  /** The group's members, from the cache while it is fresh. */
  async members(group: string): Promise<ReadonlySet<string>> {
    const known = this.known.get(group);
    if (known && known.until > this.now()) return known.members;
    return this.reread(group);
  }

  /**
   * The members as last read from Slack, fresh or stale, without reading Slack; undefined when this
   * process has never read the group, or read it only as unknown (no client yet, an answer without
   * members). For judgements that must not wait on Slack.
   */
  lastKnown(group: string): ReadonlySet<string> | undefined {
    return this.known.get(group)?.members;
  }

  /** Read the group now, whatever the cache holds, and say who was added or removed since the last read. */
  async refreshGroup(group: string): Promise<MembershipChange> {
    const before = this.known.get(group)?.members;
    const after = await this.reread(group);
    return before ? difference(before, after) : { added: [], removed: [] };
  }

  private reread(group: string): Promise<Set<string>> {
    const under = this.reading.get(group);
    if (under) return under;
    const read = this.readNow(group).finally(() => this.reading.delete(group));
    this.reading.set(group, read);
    return read;
  }

  private async readNow(group: string): Promise<Set<string>> {
    const read = await this.options.read?.(group);
    const members = new Set(read ?? []);
    // Nothing read (no Slack yet): nothing is known, kept or told.
    if (read === undefined) return members;
    const before = this.known.get(group)?.members;
    this.known.set(group, { members, until: this.now() + (this.options.cacheMs ?? GROUP_CACHE_MS) });
    if (!before) {
      for (const tell of this.firstReads) tell(group, [...members]);
    } else {
      const { added, removed } = difference(before, members);
      if (added.length || removed.length) for (const tell of this.listeners) tell(group, added, removed);
    }
    return members;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function difference(before: ReadonlySet<string>, after: ReadonlySet<string>): MembershipChange {
  return {
    added: [...after].filter((user) => !before.has(user)),
    removed: [...before].filter((user) => !after.has(user)),
  };
}
