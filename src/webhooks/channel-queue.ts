// The work waiting for each alerts channel in this process: outbox entries in acceptance order and
// digests recorded but not finished. An entry or digest sits in one channel's work at most, so a scan
// that finds it again while it waits does not queue it twice.
import type { DigestRecord, OutboxEntry } from './types.js';

/** One channel's work; the arrays are the worker's, changed in place. */
export interface ChannelWork {
  queue: OutboxEntry[];
  /** Finished before new routine work is planned. */
  digests: DigestRecord[];
}

/** What a channel's worker posts next: one entry alone, or a recorded digest. */
export type Step = { kind: 'single'; entry: OutboxEntry } | { kind: 'digest'; record: DigestRecord };

export class ChannelQueues {
  private readonly work = new Map<string, ChannelWork>();
  private readonly queued = new Set<string>();
  private readonly queuedDigests = new Set<string>();
  /** The part number of the last digest in a channel's current run of digests. */
  private readonly runs = new Map<string, number>();

  /** The channel's work, made empty if there is none. */
  of(channel: string): ChannelWork {
    let work = this.work.get(channel);
    if (!work) {
      work = { queue: [], digests: [] };
      this.work.set(channel, work);
    }
    return work;
  }

  has(id: string): boolean {
    return this.queued.has(id);
  }

  hasDigest(id: string): boolean {
    return this.queuedDigests.has(id);
  }

  /** Queue an entry; `sort` puts each channel's queue back in acceptance order once a scan is done. */
  add(channel: string, entry: OutboxEntry): void {
    this.queued.add(entry.id);
    this.of(channel).queue.push(entry);
  }

  /** Kept in acceptance order: an entry found again after waiting goes back to its place. */
  sort(channel: string): void {
    this.of(channel).queue.sort((a, b) => a.seq - b.seq);
  }

  addDigest(channel: string, record: DigestRecord): void {
    this.queuedDigests.add(record.id);
    this.of(channel).digests.push(record);
  }

  /** Take an entry out of the channel's queue; a later scan may find it again. */
  drop(channel: string, id: string): void {
    remove(this.of(channel).queue, (e) => e.id === id);
    this.queued.delete(id);
  }

  /** Drop a finished (or handed-over) step, a digest with the entries it carries. */
  forget(channel: string, step: Step): void {
    if (step.kind === 'single') {
      this.drop(channel, step.entry.id);
      return;
    }
    const { queue, digests } = this.of(channel);
    remove(digests, (d) => d.id === step.record.id);
    this.queuedDigests.delete(step.record.id);
    const carried = new Set(step.record.entryIds);
    remove(queue, (e) => carried.has(e.id));
    for (const id of carried) this.queued.delete(id);
  }

  /** The part number the next digest of the channel's current run takes. */
  nextPart(channel: string): number {
    return (this.runs.get(channel) ?? 0) + 1;
  }

  startedPart(channel: string, part: number): void {
    this.runs.set(channel, part);
  }

  /** The run of digests is over: the next digest is part 1 again. */
  endRun(channel: string): void {
    this.runs.delete(channel);
  }

  /** The channel's worker stops: whatever it still held can be found and queued again by a scan. */
  close(channel: string): void {
    const work = this.work.get(channel);
    this.work.delete(channel);
    this.runs.delete(channel);
    for (const left of work?.queue ?? []) this.queued.delete(left.id);
    for (const left of work?.digests ?? []) this.queuedDigests.delete(left.id);
  }
}

function remove<T>(items: T[], test: (item: T) => boolean): void {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) items.splice(i, 1);
}
