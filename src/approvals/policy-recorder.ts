// Puts the policy on the record: at each start, the settings in effect are compared with the last ones
// the audit chain holds, and a difference (or a first policy) becomes a `policy-changed` entry; a user
// group's members as first read after a start, when they differ from those last recorded, and their
// changes seen later, become one too. Once across replicas: each decision is re-checked
// inside a lock every replica shares. The entry is in the chain before anyone is told. The settings
// recorded at a start are told by tellUntold(), once Slack is connected: until the telling worked they
// stay marked untold beside the chain, so a start that fails after recording them (Slack's start-up
// check refuses, say) leaves them to the next start, which records nothing new (same settings) but tells
// them, once across replicas.

import type { AuditLog } from '../audit/index.js';
import type { Store } from '../store/index.js';
import {
  describeChanges,
  describePolicy,
  fingerprint,
  membershipLine,
  membersLine,
  type PolicySnapshot,
} from './policy-record.js';
import type { ServiceEnvironment } from './ports.js';
import type { AuditEntry, EngineLog } from './types.js';

const POLICY_CHANGED = 'policy-changed';
/** The subject of the first policy entry of a chain, which lists every setting. */
export const POLICY_RECORDED = 'policy recorded';
/** Who writes a policy entry: the bot itself, from the settings it started with or the groups it read. */
const POLICY_ACTOR = 'system';

/** Told of each policy entry once it is in the chain (the approvals channel hears of it). */
export type PolicyRecordListener = (entry: AuditEntry) => Promise<void>;

/** The last settings recorded, kept beside the chain too: a retention cut may remove their entry. */
interface LastRecorded {
  settings: PolicySnapshot;
  seq?: number | undefined;
  /** The settings entries recorded at a start and not yet told, oldest first (absent: all told). */
  untold?: AuditEntry[] | undefined;
}

/** A member's last recorded place in a group, so two replicas seeing one change record it once. */
type Membership = Record<string, 'in' | 'out'>;

const LOCK = { waitMs: 60_000 };
/** At most this many settings entries wait to be told; older ones are in the audit trail only. */
const UNTOLD_KEPT = 10;

/** Slack's answers that refuse a post for what it is, so posting it again will not help. */
const REFUSES_THE_POST = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long', 'no_text']);

/**
 * Slack refused the post itself (a platform error naming the message as the fault). Anything else (a
 * lost connection, Slack down, a revoked token, a channel not found) may pass at a later start.
 */
const isRefusedForGood = (error: unknown): boolean => {
  const { code, data } = (error ?? {}) as { code?: unknown; data?: { error?: unknown } };
  return code === 'slack_webapi_platform_error' && REFUSES_THE_POST.has(String(data?.error));
};

export interface PolicyRecorderOptions {
  store: Store;
  log: AuditLog;
  environment: ServiceEnvironment;
  now: () => Date;
  logger?: EngineLog | undefined;
}

export class PolicyRecorder {
  private readonly listeners: PolicyRecordListener[] = [];

  constructor(private readonly options: PolicyRecorderOptions) {}

  onRecorded(listener: PolicyRecordListener): void {
    this.listeners.push(listener);
  }

  /**
   * Record the settings this process started with when they differ from the last recorded (every
   * setting, the first time), marked untold (see tellUntold). Returns the entry written, or undefined
   * when nothing changed.
   */
  recordAtStart(snapshot: PolicySnapshot): Promise<AuditEntry | undefined> {
    return this.recordSettings(snapshot, 'settings at start', true);
  }

  /**
   * Record settings switched while the bot runs (the workbench's signing rule), when they differ from
   * the last recorded. Returns the entry written, or undefined. Not told here: the caller applies the
   * switch first and then tells it (tellSwitch), so no Slack post stands between the record and the
   * rule it names.
   */
  recordSwitch(snapshot: PolicySnapshot, subject: string): Promise<AuditEntry | undefined> {
    return this.recordSettings(snapshot, subject, false);
  }

  /** Tell a switch recordSwitch wrote, once it holds; a failed telling is logged, the record stands. */
  tellSwitch(entry: AuditEntry): Promise<void> {
    return this.tell(entry);
  }

  /** A settings entry under the lock, unless they are the last recorded; `untold`: kept for tellUntold. */
  private async recordSettings(
    snapshot: PolicySnapshot,
    subject: string,
    untold: boolean,
  ): Promise<AuditEntry | undefined> {
    const { store, log, environment, now } = this.options;
    const print = fingerprint(snapshot);
    return store.withLock(
      this.lockName(),
      async () => {
        const last = await this.lastRecorded();
        if (last && fingerprint(last.settings) === print) return undefined;
        const changes = last ? describeChanges(last.settings, snapshot) : describePolicy(snapshot);
        const written = await log.append(environment, {
          at: now().toISOString(),
          kind: 'policy',
          action: POLICY_CHANGED,
          actor: POLICY_ACTOR,
          subject: last ? subject : POLICY_RECORDED,
          note: changes.join('; '),
          policy: { changes, settings: snapshot, fingerprint: print },
        });
        const kept = (await store.get<LastRecorded>(this.lastKey()))?.untold ?? [];
        const toTell = untold ? this.keptUntold([...kept, written]) : kept.length > 0 ? kept : undefined;
        await store.set<LastRecorded>(this.lastKey(), {
          settings: snapshot,
          seq: written.seq,
          untold: toTell,
        });
        return written;
      },
      LOCK,
    );
  }

  /**
   * The newest few of `untold` only: settings a failing Slack never heard of are in the audit trail all
   * the same. Those dropped are logged, so an operator knows the channel will never hear of them.
   */
  private keptUntold(untold: AuditEntry[]): AuditEntry[] {
    const dropped = untold.slice(0, -UNTOLD_KEPT);
    if (dropped.length > 0) {
      this.options.logger?.warn(
        'policy changes were recorded but never told, more than are kept to tell; not posted',
        {
          dropped: dropped.length,
          seqs: dropped.map((entry) => entry.seq),
        },
      );
    }
    return untold.slice(-UNTOLD_KEPT);
  }

  /**
   * Tell the settings entries recorded at a start and not told yet (this start's, or one that failed
   * after recording them), oldest first, each once across replicas. The teller holds a lock of its own,
   * never the record's across a Slack call: a slow Slack keeps no replica from recording its settings.
   * Each entry is marked told as soon as `tell` resolved for it. One Slack refuses for what it is
   * (invalid blocks, too long) is logged and dropped; any other failure is logged and leaves it and
   * those after it for the next start.
   */
  async tellUntold(tell: PolicyRecordListener): Promise<void> {
    await this.options.store.withLock(
      `${this.lockName()}:tell`,
      async () => {
        for (;;) {
          const entry = (await this.options.store.get<LastRecorded>(this.lastKey()))?.untold?.[0];
          if (!entry || !(await this.toldOrRefused(entry, tell))) return;
          await this.markTold(entry.seq);
        }
      },
      LOCK,
    );
  }

  /** True when `entry` was told, or Slack refused it for good (logged); false to try at the next start. */
  private async toldOrRefused(entry: AuditEntry, tell: PolicyRecordListener): Promise<boolean> {
    const failure = await tell(entry).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (failure === undefined) return true;
    const refused = isRefusedForGood(failure);
    this.options.logger?.warn(
      refused
        ? 'a policy change was recorded, and Slack refused its post; not posted'
        : 'a policy change was recorded but could not be told; told at the next start',
      { seq: entry.seq, error: String(failure) },
    );
    return refused;
  }

  /** Takes the entry `seq` off the untold list, under the record's lock. */
  private async markTold(seq: number | undefined): Promise<void> {
    const { store } = this.options;
    await store.withLock(
      this.lockName(),
      async () => {
        const last = await store.get<LastRecorded>(this.lastKey());
        if (!last) return;
        const untold = (last.untold ?? []).filter((entry) => entry.seq !== seq);
        await store.set<LastRecorded>(this.lastKey(), {
          ...last,
          untold: untold.length > 0 ? untold : undefined,
        });
      },
      LOCK,
    );
  }

  /**
   * Record that the bot saw `added` join and `removed` leave user group `group`. What another replica
   * already recorded (the member's last recorded place is the same) is left out; nothing left, no entry.
   */
  async recordMembershipChange(
    group: string,
    added: readonly string[],
    removed: readonly string[],
  ): Promise<AuditEntry | undefined> {
    return this.recordMembership(group, (known) => {
      const joined = [...new Set(added)].filter((user) => known[user] !== 'in');
      const left = [...new Set(removed)].filter((user) => known[user] !== 'out' && !joined.includes(user));
      const changes = [membershipLine(group, joined, left)];
      return { joined, left, policy: { changes, group, added: joined.sort(), removed: left.sort() } };
    });
  }

  /**
   * Record user group `group`'s members as this process first read them, when they differ from the
   * members last recorded (who joined and left since is part of the entry); nothing differs, no entry.
   */
  async recordMembers(group: string, members: readonly string[]): Promise<AuditEntry | undefined> {
    return this.recordMembership(group, (known) => {
      const listed = [...new Set(members)].sort();
      const joined = listed.filter((user) => known[user] !== 'in');
      const left = Object.keys(known).filter((user) => known[user] === 'in' && !listed.includes(user));
      const first = Object.keys(known).length === 0;
      const changes = [membersLine(group, listed, { added: joined, removed: left, first })];
      return {
        joined,
        left,
        policy: { changes, group, members: listed, added: joined, removed: left.sort() },
      };
    });
  }

  /**
   * A `members of` entry for `group`, under the lock: `change` says, from the members' last recorded
   * places, who joined and left and the entry's policy part; no one, no entry. Told once in the chain.
   */
  private async recordMembership(
    group: string,
    change: (known: Membership) => {
      joined: string[];
      left: string[];
      policy: NonNullable<AuditEntry['policy']> & { changes: string[] };
    },
  ): Promise<AuditEntry | undefined> {
    const { store, log, environment, now } = this.options;
    const key = this.membersKey(group);
    const entry = await store.withLock(
      this.lockName(),
      async () => {
        const known = (await store.get<Membership>(key)) ?? {};
        const { joined, left, policy } = change(known);
        if (joined.length === 0 && left.length === 0) return undefined;
        const written = await log.append(environment, {
          at: now().toISOString(),
          kind: 'policy',
          action: POLICY_CHANGED,
          actor: POLICY_ACTOR,
          subject: `members of ${group}`,
          note: policy.changes.join('; '),
          policy,
        });
        for (const user of joined) known[user] = 'in';
        for (const user of left) known[user] = 'out';
        await store.set<Membership>(key, known);
        return written;
      },
      LOCK,
    );
    if (entry) await this.tell(entry);
    return entry;
  }

  /** The settings of the newest policy entry in the chain; past a retention cut, the copy beside it. */
  private async lastRecorded(): Promise<LastRecorded | undefined> {
    const entries = await this.options.log.entries(this.options.environment);
    const newest = entries.findLast((e) => e.kind === 'policy' && e.policy?.settings);
    if (newest?.policy?.settings) return { settings: newest.policy.settings, seq: newest.seq };
    return this.options.store.get<LastRecorded>(this.lastKey());
  }

  private lockName(): string {
    return `approvals:policy-record:${this.options.environment}`;
  }

  private lastKey(): string {
    return `approvals:policy-record:${this.options.environment}:last`;
  }

  /** Each member's last recorded place in the group. */
  private membersKey(group: string): string {
    return `${this.lastKey()}:members:${group}`;
  }

  /** The record stands whether or not the telling works. */
  private async tell(entry: AuditEntry): Promise<void> {
    for (const listener of this.listeners) {
      await listener(entry).catch((error: unknown) => {
        this.options.logger?.warn('a policy change was recorded but could not be told', {
          seq: entry.seq,
          error: String(error),
        });
      });
    }
  }
}
