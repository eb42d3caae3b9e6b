// Who the policy let approve a kind of request, as the audit chain records it: the `approvers` setting
// (or `approvers for <kind>`) of each policy entry, people by ID and Slack user groups, kept in chain
// order (seq, not time: replicas' clocks differ). An approval step that names the settings that judged
// it (their fingerprint) is judged by those settings alone, as recorded before the step (never by an
// entry after it: the fingerprint is the writer's claim): in when they name the person or the chain
// shows them in a group they name, out when they name neither the person nor a group, and
// unknown only for a group's member with no join recorded, or when those settings are not in the
// archive before the step. A step without a fingerprint (its bot recorded no settings for it)
// was judged by the settings its process started with, which the chain does not say: a replica not yet
// restarted goes on judging by earlier settings, and one that took clicks before recording its own by
// later ones, so it may have been judged under any settings recorded up to the first after the request
// was sent: only those in force at its step place the person in, the others can only leave it unknown,
// and only settings that never named them prove them out. A group's members show as the `members of
// S…` entries: all of them as first read after a start (when they differ from those last recorded),
// then the changes the bot saw, each recorded without waiting, read from a cache up to two minutes old
// (and a process may stop before recording one). So a recorded join, or a listing, places someone in
// a group, and nothing places them out of one: only a pool of people by ID proves someone was not an
// approver.
// Mirrors approvals/policy-record.ts's words and fingerprint, and access/pools.ts's rules.
import { createHash } from 'node:crypto';
import { canonicalJson } from './chain.js';
import type { AuditEntry, PolicySetting } from './types.js';

type Pool = PolicySetting['value'];

/** In the pool, not in it, or not known from the chain (a group of the pool, no join recorded). */
type Standing = 'in' | 'out' | 'unknown';

export interface PoolAnswer {
  standing: Standing;
  /** The groups of the pool the chain does not place the person in (for `unknown`). */
  groups: string[];
  /** No settings were recorded before the approval step: those that judged it may predate the archive. */
  early?: boolean;
  /** The fingerprint of the settings that judged the step, which the archive does not hold. */
  missing?: string;
  /** The fingerprint the step names, of settings the archive holds only as recorded after the step. */
  late?: string;
}

/**
 * Where the approval was made in the chain: its step's seq (undefined: not in the archive), and its
 * sending's; and the fingerprint of the settings that judged the step, when it names them.
 */
export interface ApprovalPlace {
  step: number | undefined;
  sent: number;
  settings?: string | undefined;
}

/** How one pool holds a person: named by ID (or everyone), a recorded join of a group, maybe, or not. */
type Hold = 'named' | 'joined' | 'unknown' | 'out';
const HOLD_ORDER: readonly Hold[] = ['named', 'joined', 'unknown', 'out'];

const GENERAL = 'approvers';
const BY_KIND = 'approvers for ';
const GENERAL_POOL = 'the approvers above';
const NOBODY = 'nobody';
const SLACK_GROUP = /^S[A-Z0-9]{2,}$/;

/** A member's recorded joins and leaves of one group, in chain order. */
type History = Array<{ seq: number; joined: boolean }>;

interface Snapshot {
  seq: number;
  settings: Map<string, Pool>;
  /** SHA-256 of every setting's canonical JSON, as approvals/policy-record.ts takes it. */
  fingerprint: string;
}

export class RecordedPools {
  /** The approver settings of every policy entry, in chain order. */
  private readonly snapshots: Snapshot[] = [];
  /** For each group, each member's recorded joins and leaves. */
  private readonly members = new Map<string, Map<string, History>>();

  /** A policy entry: the settings in effect, or a group's members seen to change. */
  read(entry: AuditEntry): void {
    const policy = entry.policy;
    const seq = entry.seq ?? 0;
    if (policy?.settings) {
      const approverSettings = policy.settings.filter(
        (s) => s.name === GENERAL || s.name.startsWith(BY_KIND),
      );
      this.snapshots.push({
        seq,
        settings: new Map(approverSettings.map((s) => [s.name, s.value])),
        fingerprint: createHash('sha256').update(canonicalJson(policy.settings), 'utf8').digest('hex'),
      });
    }
    if (!policy?.group) return;
    const group = this.members.get(policy.group) ?? new Map<string, History>();
    this.members.set(policy.group, group);
    const note = (user: string, joined: boolean) =>
      group.set(user, [...(group.get(user) ?? []), { seq, joined }]);
    // A group's members as the bot first read them after a start: each listed is in it from here.
    for (const user of policy.members ?? []) note(user, true);
    for (const user of policy.added ?? []) note(user, true);
    for (const user of policy.removed ?? []) note(user, false);
  }

  /**
   * Was `person` an approver of `kind` when approving at `place`, as far as the chain tells. A step
   * naming its settings: as judgedStanding says. Otherwise in if the settings in force at the step had
   * them, out only if every settings recorded up to the window's end was people by ID and none named
   * them, else unknown. Undefined: no approvers recorded.
   */
  standing(kind: string, person: string, place: ApprovalPlace): PoolAnswer | undefined {
    if (place.settings !== undefined) return this.judgedStanding(kind, person, place.settings, place);
    const window = this.window(place);
    if (!window) return undefined;
    // The settings in force at the step judged it, unless the replica that took it was on others: one
    // not yet restarted (earlier settings), or one that took it before recording its own (later ones).
    // Only the settings in force place the person in; the others can leave it unknown, and only
    // settings that never named the person, up to the window's end, prove them out: not when the step
    // came before every settings recorded (the archive may begin after the ones that judged it).
    const pool = (s: Snapshot) => [poolOf(s.settings, kind)];
    // A step is there whenever settings are in force (`window`), so `?? 0` is never used.
    const now = window.inForce && this.holdOf(pool(window.inForce), person, place, place.step ?? 0);
    if (now?.hold === 'named' || now?.hold === 'joined') return { standing: 'in', groups: [] };
    const any = window.upTo.map((s) => this.holdOf(pool(s), person, place, window.until));
    const groups = [...new Set([...(now?.groups ?? []), ...any.flatMap((h) => h.groups)])];
    if (window.inForce === undefined) return { standing: 'unknown', groups, early: true };
    return { standing: any.every((h) => h.hold === 'out') ? 'out' : 'unknown', groups };
  }

  /**
   * Was `holder` surely an approver of some kind (as the engine counts first passkeys) at `place`: named
   * by ID in every settings recorded up to the window's end (`in`), in none and in no group (`out`), or
   * maybe (`unknown`: named in some, or a recorded join not ruling out a leave the bot never saw). A
   * step naming its settings is judged by those alone (unknown when the archive lacks them).
   * Undefined: no approvers recorded.
   */
  holderStanding(holder: string, place: ApprovalPlace): Standing | undefined {
    if (place.settings !== undefined) {
      const judging = this.judging(place.settings, place);
      if (!judging.before) return 'unknown';
      const { hold } = this.holdOf(anyKindPools(judging.before.settings), holder, place, place.step ?? 0);
      return hold === 'named' ? 'in' : hold === 'out' ? 'out' : 'unknown';
    }
    const window = this.window(place);
    if (!window) return undefined;
    // Every settings recorded up to the window's end: a replica still on any of them may have counted.
    const holds = window.upTo.map((s) => this.holdOf(anyKindPools(s.settings), holder, place, window.until));
    if (holds.every((h) => h.hold === 'named')) return 'in';
    return holds.every((h) => h.hold === 'out') ? 'out' : 'unknown';
  }

  /**
   * A step that names the settings that judged it: in when they name `person` (or everyone) or the
   * chain shows them in a group they name (as `joined` reads it); out when they name neither the person
   * nor any group; unknown for a group's member not shown in it, or when the archive holds those
   * settings only after the step, or not at all.
   */
  private judgedStanding(kind: string, person: string, print: string, place: ApprovalPlace): PoolAnswer {
    const { before, after } = this.judging(print, place);
    if (!before)
      return { standing: 'unknown', groups: [], ...(after ? { late: print } : { missing: print }) };
    // A join recorded late (up to the window's end) still places them: the bot records what it sees late.
    const until = this.window(place)?.until ?? 0;
    const { hold, groups } = this.holdOf([poolOf(before.settings, kind)], person, place, until);
    if (hold === 'named' || hold === 'joined') return { standing: 'in', groups: [] };
    return { standing: hold === 'out' ? 'out' : 'unknown', groups };
  }

  /**
   * The settings a step names by fingerprint (equal fingerprints, equal settings): `before`, the newest
   * recorded before the step, the only ones that may judge it (the engine records its settings before it
   * takes a click, and the fingerprint is only the writer's claim: settings recorded after the step may
   * be old ones that once named the person); `after`, whether some are recorded only after it (none
   * before: cut from this chain, or a claim no honest engine makes). No step in the archive: neither.
   */
  private judging(print: string, place: ApprovalPlace): { before?: Snapshot; after: boolean } {
    const { step } = place;
    if (step === undefined) return { after: false };
    const named = this.snapshots.filter((s) => s.fingerprint === print);
    const before = named.findLast((s) => s.seq < step);
    return before ? { before, after: false } : { after: named.length > 0 };
  }

  /**
   * The settings an approval at `place` may have been judged under: `inForce`, the newest recorded
   * before its step (none without a step, or before every settings); `upTo`, every settings recorded up
   * to and including the first after the sending (the restart gap); `until`, that one's seq (none yet:
   * no end).
   */
  private window(
    place: ApprovalPlace,
  ): { inForce: Snapshot | undefined; upTo: Snapshot[]; until: number } | undefined {
    if (this.snapshots.length === 0) return undefined;
    const { step } = place;
    const inForce = step === undefined ? undefined : this.snapshots.findLast((s) => s.seq < step);
    const after = this.snapshots.findIndex((s) => s.seq > place.sent);
    return {
      inForce,
      upTo: this.snapshots.slice(0, after < 0 ? undefined : after + 1),
      until: after < 0 ? Number.POSITIVE_INFINITY : (this.snapshots[after]?.seq ?? 0),
    };
  }

  /** How the best of `pools` holds `person`, and the groups that leave it unknown. */
  private holdOf(
    pools: readonly Pool[],
    person: string,
    place: ApprovalPlace,
    until: number,
  ): { hold: Hold; groups: string[] } {
    const holds = pools.map((pool) => this.poolHolds(pool, person, place, until));
    const best = Math.min(...holds.map((h) => HOLD_ORDER.indexOf(h.hold)));
    return { hold: HOLD_ORDER[best] ?? 'out', groups: holds.flatMap((h) => h.groups) };
  }

  /**
   * How one pool holds `person`: words other than `nobody` (everyone who is not a guest, or words this
   * reader does not know, which prove nothing) name them; a group with their join recorded holds them.
   */
  private poolHolds(
    pool: Pool,
    person: string,
    place: ApprovalPlace,
    until: number,
  ): { hold: Hold; groups: string[] } {
    if (typeof pool === 'string') return { hold: pool === NOBODY ? 'out' : 'named', groups: [] };
    if (pool.includes(person)) return { hold: 'named', groups: [] };
    const groups = pool.filter((id) => SLACK_GROUP.test(id));
    if (groups.some((group) => this.joined(group, person, place, until)))
      return { hold: 'joined', groups: [] };
    return { hold: groups.length > 0 ? 'unknown' : 'out', groups };
  }

  /**
   * Does the chain show `person` in `group` at the approval: their last change before its step a join,
   * or a join recorded after it up to `until` (the bot sees and records a change late)?
   */
  private joined(group: string, person: string, { step }: ApprovalPlace, until: number): boolean {
    const history = this.members.get(group)?.get(person) ?? [];
    const before = step === undefined ? undefined : history.findLast((change) => change.seq < step);
    if (before?.joined) return true;
    return history.some((c) => c.joined && (step === undefined || c.seq > step) && c.seq <= until);
  }
}

/** Who approves `kind` in these settings: its own pool, or the general one (`the approvers above`, or none). */
function poolOf(settings: Map<string, Pool>, kind: string): Pool {
  const own = settings.get(`${BY_KIND}${kind}`);
  return own === undefined || own === GENERAL_POOL ? (settings.get(GENERAL) ?? NOBODY) : own;
}

/** "An approver" with no kind (access/pools.ts): anyone in the pool of some kind. */
function anyKindPools(settings: Map<string, Pool>): Pool[] {
  const kinds = [...settings.keys()].filter((name) => name.startsWith(BY_KIND));
  if (kinds.length === 0) return [settings.get(GENERAL) ?? NOBODY];
  return kinds.map((name) => poolOf(settings, name.slice(BY_KIND.length)));
}
