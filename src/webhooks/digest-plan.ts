// What a channel posts next, decided without I/O: the worker reads and claims, these functions choose.
// A failure (or an event needing a person) goes first and alone, after the earlier entries of its own
// reference; then digests already recorded; then routine events, one message each while few wait,
// else the oldest of them grouped into a new digest of as many as one Slack message carries.
import type { ChannelWork, Step } from './channel-queue.js';
import { alertInputOf, digestCapacity, fitsSlack, needsPerson } from './digest.js';
import type { DigestInput, DigestRecord, DigestRendering, OutboxEntry } from './types.js';

export interface StepSettings {
  /** Whether digests can be built at all (a digest builder is configured). */
  digests: boolean;
  /** Routine events waiting beyond which they are grouped. */
  digestAbove: number;
}

/**
 * The next step for a channel, or `group` when the oldest routine events should become a digest
 * (see pickCandidates). `endsRun`: a routine event goes alone, so the next digest is part 1 again.
 */
export type Choice = (Step & { endsRun?: true }) | { kind: 'group' };

export function chooseStep(work: ChannelWork, settings: StepSettings): Choice | undefined {
  const { queue, digests } = work;
  if (queue.length === 0 && digests.length === 0) return undefined;
  const urgent = queue.find(needsPerson);
  if (urgent) {
    let first = urgent;
    for (let previous = queue.find((e) => e.id === first.after); previous; ) {
      first = previous;
      previous = queue.find((e) => e.id === first.after);
    }
    return { kind: 'single', entry: first };
  }
  const recorded = digests[0];
  if (recorded) return { kind: 'digest', record: recorded };
  const head = queue[0]!;
  if (!settings.digests || queue.length <= settings.digestAbove || head.threadOf) {
    return { kind: 'single', entry: head, endsRun: true };
  }
  return { kind: 'group' };
}

export interface Candidates {
  /** The oldest routine entries that may go together, at most `max`, in queue order. */
  entries: OutboxEntry[];
  /** Entries whose predecessor (not in this queue) must be posted first: out of the queue for now. */
  waiting: OutboxEntry[];
  /** Predecessors not in the queue whose state is not known yet: look them up and ask again. */
  unknown: string[];
}

/**
 * The entries a new digest may take. A reply in a thread goes alone, when it is the oldest waiting;
 * anything urgent never joins; an entry whose predecessor waits in this queue and is not taken stays
 * behind it. `predecessorWaits` says, for predecessors elsewhere, whether they still hold their
 * successors (see Deliverer.mustWaitFor); one not in it is taken for now and listed in `unknown`.
 */
export function pickCandidates(
  queue: readonly OutboxEntry[],
  max: number,
  predecessorWaits: ReadonlyMap<string, boolean>,
): Candidates {
  const inQueue = new Set(queue.map((e) => e.id));
  const entries: OutboxEntry[] = [];
  const taken = new Set<string>();
  const waiting: OutboxEntry[] = [];
  const unknown: string[] = [];
  for (const entry of queue) {
    if (entries.length >= max) break;
    if (entry.threadOf || needsPerson(entry)) continue;
    const held = heldBy(entry, taken, inQueue, predecessorWaits, unknown);
    if (held === 'queue') continue;
    if (held === 'elsewhere') {
      waiting.push(entry);
      continue;
    }
    entries.push(entry);
    taken.add(entry.id);
  }
  return { entries, waiting, unknown };
}

/**
 * What holds `entry` back: its predecessor in this queue, not taken ('queue'), or one elsewhere that
 * still holds its successors ('elsewhere'); undefined when nothing does. A predecessor elsewhere not in
 * `predecessorWaits` holds nothing for now, and is added to `unknown`.
 */
function heldBy(
  entry: OutboxEntry,
  taken: ReadonlySet<string>,
  inQueue: ReadonlySet<string>,
  predecessorWaits: ReadonlyMap<string, boolean>,
  unknown: string[],
): 'queue' | 'elsewhere' | undefined {
  if (!entry.after || taken.has(entry.after)) return undefined;
  if (inQueue.has(entry.after)) return 'queue';
  const waits = predecessorWaits.get(entry.after);
  if (waits === undefined) unknown.push(entry.after);
  return waits ? 'elsewhere' : undefined;
}

/** What becomes of a candidate once its claim was tried and the entry read again. */
export type ClaimVerdict =
  /** Another replica has it: out of this queue. */
  | 'taken'
  /** Delivered or set aside meanwhile (or gone): release, drop from the pending index and the queue. */
  | 'finished'
  /** Its predecessor could not join: released, it waits for that one. */
  | 'behind'
  | 'chosen';

/** Sort the claimed candidates; `chosen` holds the entries as read after the claim. */
export function sortClaimed(
  candidates: readonly OutboxEntry[],
  claimed: readonly boolean[],
  currents: ReadonlyArray<OutboxEntry | undefined>,
): { verdicts: ClaimVerdict[]; chosen: OutboxEntry[] } {
  const candidateIds = new Set(candidates.map((e) => e.id));
  const chosenIds = new Set<string>();
  const chosen: OutboxEntry[] = [];
  const verdicts = candidates.map((_, i): ClaimVerdict => {
    const current = currents[i];
    if (!claimed[i]) return 'taken';
    if (!current || current.deliveredAt || current.deadLetteredAt) return 'finished';
    if (current.after && candidateIds.has(current.after) && !chosenIds.has(current.after)) return 'behind';
    chosen.push(current);
    chosenIds.add(current.id);
    return 'chosen';
  });
  return { verdicts, chosen };
}

export interface DigestPlanInput {
  channel: string;
  /** The claimed entries that may go together, oldest first. */
  chosen: readonly OutboxEntry[];
  /** The channel's queue once candidates that cannot be posted from it were dropped. */
  queue: readonly OutboxEntry[];
  /** Candidates were dropped from the queue: its head may have changed, so look again. */
  changed: boolean;
  part: number;
  render: DigestRendering;
  /** The new record's id and time. */
  id: string;
  now: Date;
}

/**
 * The digest to record, as many of `chosen` as one message fits; or an entry to post alone (fewer
 * than two go together); or nothing when the queue changed (choose again). `release` lists, in
 * order, the claimed entries the digest does not take: their claims are let go.
 */
export type DigestPlan =
  | { kind: 'digest'; record: DigestRecord; release: OutboxEntry[] }
  | { kind: 'single'; entry: OutboxEntry; release: OutboxEntry[] }
  | { kind: 'again'; release: OutboxEntry[] };

export function planDigest(input: DigestPlanInput): DigestPlan {
  const { chosen, queue, part } = input;
  if (chosen.length < 2) {
    const release = [...chosen];
    const alone = chosen[0] ?? (input.changed ? undefined : queue[0]);
    return alone ? { kind: 'single', entry: alone, release } : { kind: 'again', release };
  }
  const inputFor = (n: number): DigestInput => ({
    alerts: chosen.slice(0, n).map(alertInputOf),
    environment: chosen[0]!.environment,
    part,
    more: queue.length > n,
  });
  const count = digestCapacity(chosen.length, (n) => fitsSlack(input.render.message(inputFor(n))));
  const release = chosen.slice(count);
  if (count < 2) {
    // The single path claims it again.
    return { kind: 'single', entry: chosen[0]!, release: [...release, chosen[0]!] };
  }
  const record: DigestRecord = {
    id: input.id,
    channel: input.channel,
    part,
    more: queue.length > count,
    entryIds: chosen.slice(0, count).map((e) => e.id),
    createdAt: input.now.toISOString(),
  };
  return { kind: 'digest', record, release };
}
