// The auditor's check of passkey-signed approvals, from the audit chain alone (docs/audit-verify.md):
// every request the chain shows sent (or, for a passkey registration, written) whose approvals the
// signing rule then in force needed signed has, for each counted approval, an assertion by a passkey
// whose registration the chain shows executed before it and not revoked by then, over exactly the
// figures the chain recorded for it (the canonical bytes rebuilt here, then the challenge with the
// assertion's nonce), from the signing origin the policy recorded; and its approvals are by distinct
// people, a delegate and the approver whose place they took (as the approval's step recorded it) one
// person, none its requester or in its requester's place (as its `filed` entry names them), as many as
// it needed (when filed, as the entry that sent it says, or as the round's latest approval or
// `tiers-raised` step recorded the approval tiers raised since filing to ask, whichever is most). Any
// assertion the chain
// holds is checked the same way, needed or not, and no two of a request's assertions share a nonce or a
// passkey. What is in force is read as the chain goes: the policy entries (`signed approvals`: `all at
// <origin>` or `above ₦… at <origin>`), the passkey registrations (their `completed` step, whatever came
// before it: an outcome-unknown one, its write unanswered, registers nothing; counting from their
// `executing` one; the passkey the entry whose approvals were checked names, a completion naming
// another reported: chain-passkeys.ts) and revocations (`passkey-revoked` steps, even before that completion), each approval's time (its
// `approval-added` or `approved` step, the earliest of an approver's) and, for a delegate's, whose
// place it took (forgotten when the request is sent back, its approvals cleared). A passkey
// registration's approval may be a click (a new install's first passkeys) only while fewer than two
// approvers had ever held a passkey (executed registrations, revoked since or not) and only by an
// approver who then held no live passkey. Each approval is by someone the approvers setting that judged
// it named (a delegate's: the approver whose place they took): the settings its step names by
// fingerprint as recorded before it, or for a step without one (its bot recorded no settings)
// any that may have; where only a Slack group could have and the chain shows no join, where the archive
// lacks those settings before the step, or where its step is missing, it cannot tell (approver-pool.ts).
import { countPeople, repeats, requesterProblems } from './approval-people.js';
import { type ApprovalPlace, type PoolAnswer, RecordedPools } from './approver-pool.js';
import { ChainPasskeys, completesRegistration } from './chain-passkeys.js';
import type { SegmentOnDisk } from './segments.js';
import {
  assertionProblem,
  policyNeeds,
  type Signature,
  type SigningPolicy,
  signingPolicyOf,
} from './signature-checks.js';
import type { AuditEntry } from './types.js';

/** An entry and the segment it was read from. */
export interface PlacedEntry {
  entry: AuditEntry;
  segment: string;
}

/** A problem with one request's signatures: the segment of the entry that sent it, and why. */
interface EvidenceProblem {
  segment: string;
  text: string;
}

/** An approval the chain cannot settle: its request and person, as `request user`. */
interface Doubt extends EvidenceProblem {
  approval: string;
}

export interface EvidenceReport {
  problems: EvidenceProblem[];
  /** What the chain cannot tell, each about one approval (`approval`: the request and the person). */
  unknown: Doubt[];
  /** Requests sent that needed or carried signatures, and the assertions checked. */
  requests: number;
  signatures: number;
}

/** An approval of a request's current round, as its step recorded it: when, and in whose place (undefined: own). */
interface RoundApproval {
  at: number;
  /** The step's seq: where in the chain it was recorded. */
  seq: number;
  onBehalfOf?: string;
  /** The fingerprint of the settings that judged the step, when it names them. */
  settings?: string | undefined;
}

/** Why the chain cannot say whether `who` (for `person`) was an approver: no settings yet, other settings, or a group. */
function unknownStanding(who: string, person: string, answer: PoolAnswer): string {
  const why = answer.late
    ? `their approval step names settings (fingerprint ${short(answer.late)}) this archive records only after the step; the bot records its settings before it takes a click, so either the entry recording them before it is not in this archive, or the step names settings it was not judged by`
    : answer.missing
      ? `the archive does not hold the settings that judged their approval step (fingerprint ${short(answer.missing)})`
      : answer.early
        ? 'the archive holds no settings recorded before their approval step; those that judged it may predate the archive'
        : answer.groups.length === 0
          ? 'not under the settings in force when approving, but under others recorded up to the first after the sending, by which the replica that took the click may have judged (one not yet restarted, or one that had not yet recorded its own)'
          : `the archive records no joining of ${answer.groups.join(', ')} by ${person} still standing when they approved (none, or a leaving since), and the bot records a group's members only as it reads them`;
  return `cannot tell whether ${who} was an approver then: ${why}`;
}

/** Told of an approval by `user` the chain cannot settle, and why. */
type DoubtSink = (user: string, why: string) => void;

const SENT_STATES = new Set(['sent', 'completed', 'outcome-unknown']);
/** The steps that add an approval (the last one needed is `approved`), and the one that clears them. */
const APPROVAL_STEPS = new Set(['approval-added', 'approved']);
const SENT_BACK = 'sent-back';
/**
 * The steps that judge how many approvals a request needs (an approval, and an approved request made to
 * wait again for tiers raised since: the engine's `tiers-raised`), each recording the count when the
 * tiers asked more than the stored one.
 */
const JUDGING_STEPS = new Set([...APPROVAL_STEPS, 'tiers-raised']);
const POLICY_SETTING = 'signed approvals';
const short = (id: string) => (id.length > 12 ? `${id.slice(0, 12)}…` : id);

/** The chain read in order: what is in force at each entry, and each sending checked. */
class EvidenceWalk {
  readonly problems: EvidenceProblem[] = [];
  readonly unknown: Doubt[] = [];
  requests = 0;
  signatures = 0;
  /** Undefined: signing off (or never recorded). */
  private policy: SigningPolicy | undefined;
  private readonly passkeys = new ChainPasskeys();
  /**
   * For each request, when each approver of its current round first approved and in whose place, as
   * its approval steps (`approval-added`, `approved`) recorded; forgotten when it is sent back, its
   * approvals cleared.
   */
  private readonly rounds = new Map<string, Map<string, RoundApproval>>();
  /** When each request was claimed to be sent: the engine's last check of its signatures. */
  private readonly executingAt = new Map<string, number>();
  /** What each request's `filed` entry recorded: who filed it, and how many approvals it needed then. */
  private readonly filed = new Map<string, { requester?: string; required?: number }>();
  /**
   * How many approvals each request's latest judging step (this round) recorded it needed under tiers
   * raised since filing; none when that step judged it at its stored count.
   */
  private readonly raised = new Map<string, number>();
  private readonly checked = new Set<string>();

  /** `pools`: who the policy let approve, read from the whole chain first (a later record may settle one). */
  constructor(private readonly pools: RecordedPools) {}

  read({ entry, segment }: PlacedEntry): void {
    if (entry.kind === 'policy' && entry.policy?.settings) this.readPolicy(entry, segment);
    if (!entry.requestId) return;
    const at = Date.parse(entry.at);
    this.readStep(entry.requestId, entry, at);
    if (!entry.state || !SENT_STATES.has(entry.state)) return;
    if (!this.checked.has(entry.requestId)) {
      this.checked.add(entry.requestId);
      this.checkSent(entry, segment);
      this.passkeys.checked(entry);
    }
    // Its approvals are checked at the first entry saying it went out; the passkey they approved counts
    // only from its completion, which for a write that went unanswered is the tracker's later entry. A
    // first-passkeys click is judged by the registrations completed before it: one whose write is still
    // unanswered is not, so the verifier may let a click count that the bot, seeing it in the book,
    // refused (never the other way round).
    if (completesRegistration(entry)) {
      const why = this.passkeys.complete(entry, at, this.executingAt.get(entry.requestId));
      if (why) this.problems.push({ segment, text: `request ${entry.requestId} (passkey): ${why}` });
    }
  }

  /** What one step of a request puts in force: approvals (by whom, when, in whose place), filing, revocations. */
  private readStep(requestId: string, entry: AuditEntry, at: number): void {
    if (APPROVAL_STEPS.has(entry.action) && entry.actor) this.readApproval(requestId, entry.actor, entry, at);
    if (entry.action === SENT_BACK) {
      this.rounds.delete(requestId);
      this.raised.delete(requestId);
    }
    if (entry.action === 'executing') this.executingAt.set(requestId, at);
    if (entry.action === 'filed' && !this.filed.has(requestId)) {
      this.filed.set(requestId, { requester: entry.actor, required: entry.figures?.requiredApprovals });
    }
    if (entry.kind === 'passkey' && entry.action === 'passkey-revoked') this.passkeys.revoke(entry, at);
    if (JUDGING_STEPS.has(entry.action)) {
      // The latest judgement stands: one recording no count judged it at its stored count.
      const needed = entry.figures?.neededApprovals;
      if (typeof needed === 'number') this.raised.set(requestId, needed);
      else this.raised.delete(requestId);
    }
  }

  /**
   * An approval step at `at`: the approver's own, or (`onBehalfOf`) a delegate's in that approver's
   * place. A second step by one approver in a round (only a store edit writes one) keeps the first's
   * time, place and settings.
   */
  private readApproval(requestId: string, actor: string, entry: AuditEntry, at: number): void {
    const round = this.rounds.get(requestId) ?? new Map<string, RoundApproval>();
    const first = round.get(actor) ?? { at, seq: entry.seq ?? 0, settings: entry.policyFingerprint };
    const { seq, settings } = first;
    round.set(actor, { at: Math.min(first.at, at), seq, onBehalfOf: entry.onBehalfOf, settings });
    this.rounds.set(requestId, round);
  }

  /**
   * When `user` approved the request this entry sent, as its current round's step recorded; without
   * one (the step not in the archive), when it was sent.
   */
  private approvedAt(entry: AuditEntry, user: string): number {
    return this.rounds.get(entry.requestId ?? '')?.get(user)?.at ?? Date.parse(entry.at);
  }

  /** Where in the chain `user` approved the request this entry sent, under which settings, and where it was sent. */
  private placeOf(entry: AuditEntry, user: string): ApprovalPlace {
    const approval = this.rounds.get(entry.requestId ?? '')?.get(user);
    return { step: approval?.seq, sent: entry.seq ?? 0, settings: approval?.settings };
  }

  private readPolicy(entry: AuditEntry, segment: string): void {
    const settings = entry.policy?.settings ?? [];
    const setting = settings.find((s) => s.name === POLICY_SETTING);
    try {
      this.policy = signingPolicyOf(setting?.value);
    } catch (error) {
      this.policy = undefined;
      this.problems.push({ segment, text: `seq ${entry.seq}: the signing policy ${String(error)}` });
    }
  }

  /**
   * May `user`'s unsigned approval at `at` of this passkey registration count: fewer than two approvers
   * (anyone in the pool of some kind, as the engine counts) had held a passkey just before it (revoked
   * since or not), and `user` then held no live one? Only holders surely approvers close it; `unplaced`:
   * those who may have been (a group's members), named when counting them would have closed it.
   */
  private clickCounts(
    user: string,
    at: number,
    place: ApprovalPlace,
  ): { counts: boolean; unplaced: string[] } {
    const held = this.passkeys.all().filter((p) => p.addedAt < at);
    const approvers: string[] = [];
    const unplaced: string[] = [];
    for (const holder of new Set(held.map((p) => p.user))) {
      const standing = this.pools.holderStanding(holder, place) ?? 'in';
      if (standing === 'in') approvers.push(holder);
      if (standing === 'unknown') unplaced.push(holder);
    }
    const holdsOne = held.some((p) => p.user === user && (p.revokedAt === undefined || p.revokedAt > at));
    if (approvers.length >= 2 || holdsOne) return { counts: false, unplaced: [] };
    return { counts: true, unplaced: approvers.length + unplaced.length >= 2 ? unplaced : [] };
  }

  private needed(entry: AuditEntry): boolean {
    if (!this.policy) return false;
    return policyNeeds(this.policy, entry.kind, entry.amount);
  }

  /**
   * Why an unsigned approval of this entry does not count; undefined when it does (a first-passkeys
   * click, told to `doubt` when it counts only if holders the chain cannot place were not approvers).
   */
  private unsignedProblem(entry: AuditEntry, user: string, doubt: DoubtSink): string | undefined {
    const at = this.approvedAt(entry, user);
    const click =
      entry.kind === 'passkey' ? this.clickCounts(user, at, this.placeOf(entry, user)) : undefined;
    if (click?.counts && click.unplaced.length > 0) {
      const holders = click.unplaced.join(', ');
      doubt(
        user,
        `cannot tell whether ${user}'s unsigned approval counts: it does only if fewer than two approvers held passkeys then, and the archive does not tell whether ${holders}, who did, were approvers (members of the approvers' group)`,
      );
    }
    if (click?.counts) return undefined;
    if (entry.kind === 'passkey') {
      return `${user}'s approval has no passkey signature, though two approvers had held passkeys or ${user} held one then`;
    }
    return `${user}'s approval has no passkey signature, though the signing rule then needed one`;
  }

  private checkSent(entry: AuditEntry, segment: string): void {
    const figures = entry.figures;
    const signatures = figures?.signatures ?? [];
    const needed = this.needed(entry);
    if (!figures || (!needed && signatures.length === 0)) return;
    const about = `request ${entry.requestId} (${entry.kind}, sent at seq ${entry.seq})`;
    const doubt = (user: string, why: string) =>
      this.unknown.push({ segment, text: `${about}: ${why}`, approval: `${entry.requestId} ${user}` });
    const problems = needed ? this.approvalProblems(entry, signatures, doubt) : [];
    if (signatures.length === 0 && figures.approvals.length > 0 && problems.length === 0) return;
    this.requests += 1;
    const fail = (why: string) => this.problems.push({ segment, text: `${about}: ${why}` });
    if (needed && figures.approvals.length === 0) fail('sent with no approval, though it needed signed ones');
    for (const why of problems) fail(why);
    const repeated = repeats();
    for (const signature of signatures) {
      this.signatures += 1;
      const repeat = repeated(signature);
      const why = this.signatureProblem(entry, signature) ?? repeat;
      if (why) fail(`${signature.user}'s signature ${why}`);
    }
  }

  /**
   * Why the approvals sent do not hold, their signatures apart: unsigned ones, approverProblems and
   * poolProblems; what the chain cannot tell goes to `doubt`.
   */
  private approvalProblems(entry: AuditEntry, signatures: readonly Signature[], doubt: DoubtSink): string[] {
    const unsigned = (entry.figures?.approvals ?? []).filter(
      (user) => !signatures.some((s) => s.user === user),
    );
    return [
      ...unsigned.flatMap((user) => this.unsignedProblem(entry, user, doubt) ?? []),
      ...this.approverProblems(entry),
      ...this.poolProblems(entry, doubt),
    ];
  }

  /**
   * Approvals by someone no approvers setting that may have judged them named (for a delegate's, the
   * approver whose place they took; approver-pool.ts says which settings and why a group never proves
   * it); one the chain cannot settle goes to `doubt`: a group's member with no join recorded, or an
   * approval whose step is not in the archive (it may have been a delegate's, in an approver's place).
   */
  private poolProblems(entry: AuditEntry, doubt: DoubtSink): string[] {
    const round = this.rounds.get(entry.requestId ?? '');
    const problems: string[] = [];
    for (const user of entry.figures?.approvals ?? []) {
      const person = round?.get(user)?.onBehalfOf ?? user;
      const answer = this.pools.standing(entry.kind, person, this.placeOf(entry, user));
      const who = person === user ? user : `${person}, in whose place ${user} approved,`;
      // No approvers recorded at all: unreachable while signing is on (its policy entry names them).
      if (answer === undefined || answer.standing === 'in') continue;
      if (!round?.has(user)) {
        doubt(
          user,
          `cannot tell whether ${user}'s approval was by an approver: the archive holds no approval step of theirs to say when they approved or whose place they may have taken`,
        );
      } else if (answer.standing === 'out') {
        problems.push(`${who} was not an approver of ${entry.kind} requests then`);
      } else doubt(user, unknownStanding(who, person, answer));
    }
    return problems;
  }

  /**
   * Why the approvals sent do not count together: one person counted twice (a delegate and the approver
   * they approved in the place of are one person), the requester's own or their delegate's in their
   * place, or fewer people than the request needed (shortProblem).
   */
  private approverProblems(entry: AuditEntry): string[] {
    const approvals = entry.figures?.approvals ?? [];
    const round = this.rounds.get(entry.requestId ?? '');
    const inPlaceOf = (user: string) => round?.get(user)?.onBehalfOf;
    const { people, problems } = countPeople(approvals, inPlaceOf);
    const filed = this.filed.get(entry.requestId ?? '');
    if (filed?.requester) problems.push(...requesterProblems(approvals, inPlaceOf, filed.requester));
    const short = people > 0 ? this.shortProblem(entry, people, filed?.required) : undefined;
    return short ? [...problems, short] : problems;
  }

  /**
   * Why `people` distinct approvers were too few for the request this entry sent: it needed the most of
   * what that entry says, what it was filed with (`filed`: a store write may lower the count after
   * filing; the signed figures do not hold it) and what its latest judging step of the round recorded
   * the approval tiers raised since filing to ask (`neededApprovals`; tiers lowered again before a later
   * approval ask less). Undefined when they were enough.
   */
  private shortProblem(entry: AuditEntry, people: number, filed: number | undefined): string | undefined {
    const atSend = entry.figures?.requiredApprovals ?? 0;
    const atFiling = Math.max(atSend, filed ?? 0);
    const needed = Math.max(atFiling, this.raised.get(entry.requestId ?? '') ?? 0);
    if (people >= needed) return undefined;
    const when =
      needed > atFiling
        ? ` as the approval tiers raised since filing asked (filed with ${atFiling})`
        : needed > atSend
          ? ` when filed (${atSend} on the entry that sent it)`
          : '';
    const approvers = `${people} distinct approver${people === 1 ? '' : 's'}`;
    return `sent with ${approvers}, though it needed ${needed}${when}`;
  }

  /** Why one assertion does not count for this entry's figures; undefined when it does. */
  private signatureProblem(entry: AuditEntry, signature: Signature): string | undefined {
    const passkey = this.passkeys.get(signature.credentialId);
    const credential = `passkey ${short(signature.credentialId)}`;
    if (!passkey) return `is by ${credential}, which no registration before it in the chain made`;
    if (passkey.user !== signature.user) return `is by ${credential}, registered to ${passkey.user}`;
    const at = this.approvedAt(entry, signature.user);
    if (passkey.addedAt > at) return `is by ${credential}, registered only after the approval`;
    const sentAt = this.executingAt.get(entry.requestId ?? '') ?? Date.parse(entry.at);
    if (passkey.revokedAt !== undefined && passkey.revokedAt <= sentAt) {
      return `is by ${credential}, revoked at ${new Date(passkey.revokedAt).toISOString()}, before the request was sent`;
    }
    if (!this.policy) return 'was made while the chain records no signing origin to check it against';
    return assertionProblem(entry, signature, passkey.publicKey, this.policy);
  }
}

/** Check the signed approvals of one environment's chain, its entries in seq order. */
export function checkApprovalEvidence(entries: Iterable<PlacedEntry>): EvidenceReport {
  const placed = [...entries];
  const pools = new RecordedPools();
  for (const { entry } of placed) if (entry.kind === 'policy') pools.read(entry);
  const walk = new EvidenceWalk(pools);
  for (const each of placed) walk.read(each);
  const { problems, unknown, requests, signatures } = walk;
  return { problems, unknown, requests, signatures };
}

/** The public key (COSE, base64url) the chain registered for `credentialId`; undefined when none. */
export function registeredKey(entries: Iterable<PlacedEntry>, credentialId: string): string | undefined {
  for (const { entry } of entries) {
    const payload = entry.figures?.payload;
    if (!completesRegistration(entry) || payload?.credentialId !== credentialId) continue;
    if (typeof payload.publicKey === 'string') return payload.publicKey;
  }
  return undefined;
}

/** Every readable line of the segments, in seq order, each once (the segment check reports the rest). */
export function placedEntries(segments: readonly SegmentOnDisk[]): PlacedEntry[] {
  const bySeq = new Map<number, PlacedEntry>();
  for (const segment of segments) {
    for (const line of segment.entries?.toString('utf8').split('\n') ?? []) {
      let entry: AuditEntry;
      try {
        entry = JSON.parse(line) as AuditEntry;
      } catch {
        continue;
      }
      if (typeof entry?.seq !== 'number' || bySeq.has(entry.seq)) continue;
      bySeq.set(entry.seq, { entry, segment: segment.name });
    }
  }
  return [...bySeq.values()].sort((a, b) => (a.entry.seq ?? 0) - (b.entry.seq ?? 0));
}
