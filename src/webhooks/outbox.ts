// The durable outbox: one store entry per accepted event plus an index set of pending ids, so pending
// entries are found again after a restart; both are written in one atomic step (Store.claimAndWrite).
// Entries of one reference are chained (`after`) so they are delivered in order; a claim
// (set-if-absent with a lease) keeps two replicas from posting one entry; it is let go only by its
// owner (compare-and-delete), so a holder whose lease lapsed never frees the claim another one took.
import type { Store, StoreWrite } from '../store/index.js';
import { postUnderWay } from './post-lock.js';
import type { DeadLetter, DigestRecord, OutboxEntry } from './types.js';

// The pending index is split in shards, read together in one store call: the in-process store locks
// a set while an event is enqueued into it, so shards let enqueues run side by side. A store keeps its
// pending ids under these keys, so the count stays as it is.
const SHARDS = 16;
const shardKey = (shard: number) => `webhooks:outbox:pending:${shard}`;
const pendingSet = (id: string) => shardKey(Number.parseInt(id.slice(0, 4), 16) % SHARDS);
const PENDING_SHARDS = Array.from({ length: SHARDS }, (_, shard) => shardKey(shard));
const entryKey = (id: string) => `webhooks:outbox:entry:${id}`;
const claimKey = (id: string) => `webhooks:outbox:claim:${id}`;
const tailKey = (ref: string) => `webhooks:outbox:tail:${ref}`;
const DEAD_LETTERS = 'webhooks:outbox:dead-letters';
const digestKey = (id: string) => `webhooks:outbox:digest:${id}`;
// Per channel: a digest moved to the fallback channel starts again there with a placeholder of its own.
const digestTsKey = (id: string, channel: string) => `webhooks:outbox:digest-ts:${id}:${channel}`;
const digestClaimKey = (id: string) => `webhooks:outbox:digest-claim:${id}`;
const OPEN_DIGESTS = 'webhooks:outbox:digests:open';

export const DEFAULT_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * How old a transaction or a signed event may be and still be taken as new: the retention less a day
 * (a quarter of a short retention). The records that say an event was seen live for the retention; an
 * older one could be a copy sent again after they were gone.
 */
export function freshnessLimitMs(retentionMs: number): number {
  return retentionMs - Math.min(24 * 3_600_000, retentionMs / 4);
}

/**
 * How far ahead of the bot's clock a signed event may be dated and still be taken as new: half the
 * margin between the retention and `freshnessLimitMs` (12 hours by default). A copy sent again after its
 * dedupe records expired gets past the freshness limit only if its time is ahead by the whole margin;
 * half of it leaves room for the copy's delay, and a smaller offset (a replica's drift, an event time
 * later than the envelope's) is not flagged on every delivery.
 */
export function aheadLimitMs(retentionMs: number): number {
  return (retentionMs - freshnessLimitMs(retentionMs)) / 2;
}

export type OutboxDraft = Omit<
  OutboxEntry,
  | 'seq'
  | 'after'
  | 'enqueuedAt'
  | 'deliveredAt'
  | 'ts'
  | 'postedChannel'
  | 'deadLetteredAt'
  | 'deadLetterReason'
>;

/** Keys read with an entry's chain before it is written, and what the entry takes from their values. */
export interface ReadAlong {
  keys: string[];
  complete(values: unknown[]): Pick<OutboxDraft, 'threadOf'>;
}

/** The alerts waiting to be posted: how many, and when the oldest of them was accepted. */
export interface OutboxBacklog {
  depth: number;
  /** ISO time; absent when nothing waits. */
  oldestEnqueuedAt?: string;
}

let counter = 0;

export class Outbox {
  constructor(
    readonly store: Store,
    private readonly retentionMs = DEFAULT_RETENTION_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(id: string): Promise<OutboxEntry | undefined> {
    return this.store.get<OutboxEntry>(entryKey(id));
  }

  async has(id: string): Promise<boolean> {
    return (await this.get(id)) !== undefined;
  }

  /**
   * Store an entry durably, with its place in the pending index and its reference's chain, and
   * `alongside` (the caller's own records of it), all in one atomic step; false when an entry with this
   * id already exists (a duplicate), and then nothing is written. `along` names keys the caller needs
   * read first: they are read with the chain's tail in one store call, and what `complete` makes of
   * them goes into the entry.
   */
  async enqueue(draft: OutboxDraft, alongside: StoreWrite[] = [], along?: ReadAlong): Promise<boolean> {
    const write = () => this.writeEntry(draft, alongside, along);
    // One reference's entries are chained under its lock so the chain has no forks.
    return draft.orderKey ? this.store.withLock(`webhooks:outbox:order:${draft.orderKey}`, write) : write();
  }

  /** enqueue's atomic step: the chain's tail and `along` read, then the entry and its indexes written. */
  private async writeEntry(draft: OutboxDraft, alongside: StoreWrite[], along?: ReadAlong): Promise<boolean> {
    const keys = [...(draft.orderKey ? [tailKey(draft.orderKey)] : []), ...(along?.keys ?? [])];
    const values = keys.length > 0 ? await this.store.getMany<unknown>(keys) : [];
    const after = draft.orderKey ? (values[0] as string | undefined) : undefined;
    const completed = along ? along.complete(values.slice(draft.orderKey ? 1 : 0)) : {};
    counter = (counter + 1) % 1000;
    // One reading of the clock: the entry's order and its time name the same moment.
    const now = this.now();
    const entry: OutboxEntry = {
      ...draft,
      ...completed,
      seq: now * 1000 + counter,
      enqueuedAt: new Date(now).toISOString(),
      ...(after && after !== draft.id ? { after } : {}),
    };
    const writes: StoreWrite[] = [{ kind: 'addToSet', set: pendingSet(draft.id), member: draft.id }];
    if (draft.orderKey) {
      writes.push({ kind: 'set', key: tailKey(draft.orderKey), value: draft.id, ttlMs: this.retentionMs });
    }
    return this.store.claimAndWrite({ key: entryKey(draft.id), value: entry }, [...writes, ...alongside]);
  }

  /** Every shard of the pending index, read in one store call. */
  async pendingIds(): Promise<string[]> {
    return (await this.store.setMembersMany(PENDING_SHARDS)).flat();
  }

  /**
   * The ids of the open digests and of the pending entries, read together in one store call: a
   * deliverer's scan, which runs every few seconds on every replica, idle or not. The open digests are
   * read first: Redis answers the sets one after another, not as one snapshot, and an entry a digest
   * took after that read is still claimed, so it is not posted twice.
   */
  async indexes(): Promise<{ digests: string[]; pending: string[] }> {
    const [digests = [], ...shards] = await this.store.setMembersMany([OPEN_DIGESTS, ...PENDING_SHARDS]);
    return { digests, pending: shards.flat() };
  }

  async pendingCount(): Promise<number> {
    return (await this.pendingIds()).length;
  }

  /** The pending entries read in one store call (the metrics read this at each scrape). */
  async backlog(): Promise<OutboxBacklog> {
    const ids = await this.pendingIds();
    if (ids.length === 0) return { depth: 0 };
    let depth = 0;
    let oldest: string | undefined;
    for (const entry of await this.store.getMany<OutboxEntry>(ids.map(entryKey))) {
      // Posted or set aside a moment ago, its id not yet out of the index: not waiting.
      if (!entry || entry.deliveredAt || entry.deadLetteredAt) continue;
      depth += 1;
      // ISO times compare as text.
      if (oldest === undefined || entry.enqueuedAt < oldest) oldest = entry.enqueuedAt;
    }
    return { depth, ...(oldest ? { oldestEnqueuedAt: oldest } : {}) };
  }

  /** Take the right to post this entry for `leaseMs`; false when someone else holds it. */
  claim(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.store.setIfAbsent(claimKey(id), owner, leaseMs);
  }

  /**
   * Claim entries for a digest. Let go at once, each claimed here once its claim lapsed: one an open
   * digest carries (that digest posts it, under its own post lock), and one whose lone post is still
   * under way (Slack held it past the lease; that post finishes it). See post-lock.ts. A check that
   * fails lets go of every claim taken here before it is thrown, so no alert waits out a lease.
   */
  async claimForDigest(ids: string[], owner: string, leaseMs: number): Promise<boolean[]> {
    const claimed = await Promise.all(ids.map((id) => this.claim(id, owner, leaseMs)));
    if (!claimed.some(Boolean)) return claimed;
    let kept: boolean[];
    try {
      const carried = await this.openDigestEntries();
      kept = await Promise.all(
        ids.map(
          async (id, i) => claimed[i] === true && !carried.has(id) && !(await postUnderWay(this.store, id)),
        ),
      );
    } catch (error) {
      // The check's error is the one thrown; a claim that cannot be let go lapses with its lease.
      await Promise.allSettled(ids.filter((_, i) => claimed[i]).map((id) => this.release(id, owner)));
      throw error;
    }
    await Promise.all(ids.map((id, i) => (claimed[i] && !kept[i] ? this.release(id, owner) : undefined)));
    return kept;
  }

  /**
   * The claimed entry read again (under its post lock), while it is still to be posted on its own;
   * else `owner`'s claim let go: one delivered or set aside meanwhile leaves the pending list, and one
   * an open digest carries (claimed here once its claim lapsed under that digest) is left to it, as is
   * one whose lapsed claim another took (a digest being planned: see claimForDigest).
   */
  async stillToPostAlone(id: string, owner: string): Promise<OutboxEntry | undefined> {
    // The open digests first, then the entry: a digest marks its entries delivered before it closes,
    // so an entry read after its digest was seen open-then-closed reads delivered (never posted twice).
    const carried = await this.openDigestEntries();
    const [current, holder] = await Promise.all([this.get(id), this.store.get<string>(claimKey(id))]);
    const finished = !current || Boolean(current.deliveredAt || current.deadLetteredAt);
    const takenOver = holder !== undefined && holder !== owner;
    if (!finished && !carried.has(id) && !takenOver) return current;
    await this.release(id, owner);
    if (finished) await this.dropPending(id);
    return undefined;
  }

  /** Let go of `owner`'s claim; one that lapsed and was taken by someone else stays theirs. */
  async release(id: string, owner: string): Promise<void> {
    await this.store.compareAndDelete(claimKey(id), owner);
  }

  /**
   * Free a claim whoever holds it: only for a store one process holds (memory, SQLite), at start, where
   * a claim found was left by a process that died.
   */
  async releaseLeftBehind(id: string): Promise<void> {
    await this.store.delete(claimKey(id));
  }

  /** Record the post (ts) first, then drop the entry from the pending index and `owner`'s claim. */
  async markDelivered(
    entry: OutboxEntry,
    ts: string | undefined,
    channel: string,
    owner: string,
    digest?: DigestRecord,
  ): Promise<OutboxEntry> {
    const delivered: OutboxEntry = {
      ...entry,
      deliveredAt: new Date(this.now()).toISOString(),
      ...(ts ? { ts } : {}),
      postedChannel: channel,
      ...(digest ? { digestId: digest.id, digestPart: digest.part } : {}),
    };
    await this.store.set(entryKey(entry.id), delivered, this.retentionMs);
    await this.store.removeFromSet(pendingSet(entry.id), entry.id);
    await this.release(entry.id, owner);
    return delivered;
  }

  /**
   * Set an entry aside for good: recorded in the dead-letter list, kept (so it still counts for dedupe
   * and no longer holds its successors), then dropped from the pending index and `owner`'s claim
   * released.
   */
  async moveToDeadLetters(
    entry: OutboxEntry,
    channel: string,
    reason: string,
    attempts: number,
    owner: string,
  ): Promise<OutboxEntry> {
    const at = new Date(this.now()).toISOString();
    const dead: OutboxEntry = { ...entry, deadLetteredAt: at, deadLetterReason: reason };
    await this.store.appendToList<DeadLetter>(DEAD_LETTERS, {
      id: entry.id,
      channel,
      reason,
      attempts,
      at,
      event: entry.event,
      environment: entry.environment,
      origin: entry.origin,
      ...(entry.unreadable?.length ? { unreadable: entry.unreadable } : {}),
      ...(entry.stale ? { stale: entry.stale } : {}),
      ...(entry.refused ? { refused: entry.refused } : {}),
    });
    await this.store.set(entryKey(entry.id), dead, this.retentionMs);
    await this.store.removeFromSet(pendingSet(entry.id), entry.id);
    await this.release(entry.id, owner);
    return dead;
  }

  /** Alerts set aside, oldest first. */
  deadLetters(): Promise<DeadLetter[]> {
    return this.store.readList<DeadLetter>(DEAD_LETTERS, 0, -1);
  }

  async dropPending(id: string): Promise<void> {
    await this.store.removeFromSet(pendingSet(id), id);
  }

  /**
   * Every entry of one reference (a trx_ref, else a transaction id), oldest first: the chain walked
   * back from its last entry. Empty when the outbox never saw it (or its records have expired).
   */
  async entriesFor(reference: string): Promise<OutboxEntry[]> {
    const entries: OutboxEntry[] = [];
    const seen = new Set<string>();
    let id = await this.store.get<string>(tailKey(reference));
    while (id && !seen.has(id)) {
      seen.add(id);
      const entry = await this.get(id);
      if (!entry) break;
      entries.unshift(entry);
      id = entry.after;
    }
    return entries;
  }

  // ---- digests -------------------------------------------------------------------------------------

  /** Record a digest and the entries it carries, before anything of it is posted. */
  async openDigest(record: DigestRecord): Promise<void> {
    await this.store.set(digestKey(record.id), record, this.retentionMs);
    await this.store.addToSet(OPEN_DIGESTS, record.id);
  }

  /**
   * Digests recorded and not yet finished (a crash, a retry in progress, another replica's); `ids`, the
   * open digests' ids when already read (indexes).
   */
  async openDigests(ids?: string[]): Promise<DigestRecord[]> {
    const records: DigestRecord[] = [];
    for (const id of ids ?? (await this.store.setMembers(OPEN_DIGESTS))) {
      const record = await this.getDigest(id);
      if (record) records.push(record);
      else await this.store.removeFromSet(OPEN_DIGESTS, id);
    }
    return records;
  }

  /**
   * The entries the open digests carry: those are posted by their digest, under the digest's post
   * lock, never one by one, even once an entry's own claim lapsed (post-lock.ts).
   */
  async openDigestEntries(): Promise<Set<string>> {
    return new Set((await this.openDigests()).flatMap((record) => record.entryIds));
  }

  async getDigest(id: string): Promise<DigestRecord | undefined> {
    const record = await this.store.get<DigestRecord>(digestKey(id));
    if (!record) return undefined;
    const ts = await this.store.get<string>(digestTsKey(id, record.channel));
    const { ts: _stale, ...rest } = record;
    return ts ? { ...rest, ts } : rest;
  }

  /** Update a digest's record (a new channel, the step it reached). */
  async saveDigest(record: DigestRecord): Promise<void> {
    await this.store.set(digestKey(record.id), record, this.retentionMs);
  }

  /**
   * Record the placeholder's ts; the first one recorded wins (a replica that also posted one leaves an
   * empty placeholder and fills the winner's). Returns the ts to fill.
   */
  async recordDigestTs(record: DigestRecord, ts: string): Promise<string> {
    const key = digestTsKey(record.id, record.channel);
    if (await this.store.setIfAbsent(key, ts, this.retentionMs)) return ts;
    return (await this.store.get<string>(key)) ?? ts;
  }

  claimDigest(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.store.setIfAbsent(digestClaimKey(id), owner, leaseMs);
  }

  /** Let go of `owner`'s claim of a digest; one that lapsed and was taken by someone else stays theirs. */
  async releaseDigest(id: string, owner: string): Promise<void> {
    await this.store.compareAndDelete(digestClaimKey(id), owner);
  }

  /** releaseLeftBehind's counterpart for a digest's claim (memory, SQLite, at start). */
  async releaseDigestLeftBehind(id: string): Promise<void> {
    await this.store.delete(digestClaimKey(id));
  }

  /** The digest is finished (its entries delivered or set aside); `owner`'s claim of it let go. */
  async closeDigest(id: string, owner: string): Promise<void> {
    await this.store.removeFromSet(OPEN_DIGESTS, id);
    await this.releaseDigest(id, owner);
  }
}
