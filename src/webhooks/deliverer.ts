// Posts outbox entries to Slack: one worker per channel (Slack allows about one message per second per
// channel), entries of one reference in order, 429 (Retry-After) and 5xx retried with backoff. The
// retry is ours, not the sink's (its client's retries are off), so a wait is visible, bounded per
// channel, and never blocks other channels. An alert Slack can never accept (or refuses too often) is
// set aside in the dead-letter list so the channel's queue goes on. Under load a channel's routine
// events are grouped into digests (digest-plan.ts); see docs/webhooks-and-alerts.md for exactly-once.
import { randomUUID } from 'node:crypto';
import { type Logger, silentLogger } from '../log.js';
import type { Store } from '../store/index.js';
import { alertFor, type BankNameLookup, bankNameWithin, setAsideNotice } from './alert.js';
import { type AlertSink, failureReason } from './alert-sink.js';
import { ChannelQueues, type ChannelWork, type Step } from './channel-queue.js';
import { safeDigestRendering } from './digest.js';
import { chooseStep, pickCandidates, planDigest, sortClaimed } from './digest-plan.js';
import { postDigest } from './digest-post.js';
import type { Outbox } from './outbox.js';
import { CLAIM_LEASE_MS, whilePosting } from './post-lock.js';
import { type DeliveryOutcome, PostPolicy } from './post-policy.js';
import type { DigestRecord, DigestRendering, OutboxEntry, RenderAlert } from './types.js';

export interface DelivererOptions {
  outbox: Outbox;
  store: Store;
  /** Where alerts are posted (slack/alerts/sink.ts on Slack). */
  sink: AlertSink;
  render: RenderAlert;
  /** The channel for an entry, or undefined to keep it pending (no channel configured). */
  route: (entry: OutboxEntry) => string | undefined;
  /** Where to post when a routed channel is gone or the bot is not in it. */
  fallbackChannel?: string | undefined;
  /** Why Slack may no longer be called (the app was removed): nothing is posted, alerts stay pending. */
  halted?: () => string | undefined;
  log?: Logger;
  /** How long a claim lasts if its holder dies mid-post. */
  leaseMs?: number;
  /** Periodic rescan: other replicas' entries, blocked successors, entries held by dead claims. */
  rescanMs?: number;
  maxBackoffMs?: number;
  /** Attempts at an alert failing with an error we do not know before it is set aside (default 5). */
  maxAttempts?: number;
  /** Bank name for a bank code (redemptions carry only the code); failures just show the code. */
  bankName?: BankNameLookup | undefined;
  /** How a wait is done (tests observe the waits asked for); stop() still ends a wait at once. */
  sleep?: (ms: number) => Promise<void>;
  /** The digest builders; unset → one message per event, whatever waits. */
  digest?: DigestRendering | undefined;
  /** Routine events waiting for one channel beyond which they are grouped into digests (default 5). */
  digestAbove?: number;
  /** Events one digest message lists at most (fewer when Slack's limits say so; default 100). */
  digestMaxEvents?: number;
}

export class Deliverer {
  readonly owner = randomUUID();
  private readonly channels = new ChannelQueues();
  private readonly workers = new Map<string, Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  private readonly log: Logger;
  private readonly policy: PostPolicy;
  private readonly leaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly digestAbove: number;
  private readonly digestMaxEvents: number;
  private readonly digest: DigestRendering | undefined;
  private scanning: Promise<void> | undefined;
  private rescanRequested = false;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private warnedNoChannel = false;
  /** Entries posted by this deliverer, alone or in digests (for tests and the bench). */
  posted = 0;

  constructor(private readonly options: DelivererOptions) {
    this.log = options.log ?? silentLogger;
    this.leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.policy = new PostPolicy({
      log: this.log,
      fallbackChannel: options.fallbackChannel,
      maxAttempts: options.maxAttempts ?? 5,
      maxBackoffMs: this.maxBackoffMs,
    });
    this.digestAbove = options.digestAbove ?? 5;
    this.digestMaxEvents = options.digestMaxEvents ?? 100;
    this.digest = options.digest ? safeDigestRendering(options.digest, this.log) : undefined;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const kind = this.options.store.kind;
    if (kind === 'memory' || kind === 'sqlite') {
      // One replica per SQLite/memory store: a claim found at start was left by a process that died.
      // On a shared store (Redis, PostgreSQL) it may be another live replica's delivery under way.
      const { digests, pending } = await this.options.outbox.indexes();
      for (const id of pending) await this.options.outbox.releaseLeftBehind(id);
      for (const digest of await this.options.outbox.openDigests(digests))
        await this.options.outbox.releaseDigestLeftBehind(digest.id);
    }
    const every = this.options.rescanMs ?? 5_000;
    this.timer = setInterval(() => this.kick(), every);
    this.timer.unref();
    this.kick();
  }

  /** Look for new pending entries soon (after an enqueue, a delivery, a restart). */
  kick(): void {
    if (!this.started || this.stopped || this.halted()) return;
    if (this.scanning) {
      this.rescanRequested = true;
      return;
    }
    this.scanning = this.scan()
      .catch((error: unknown) => this.log.error(`outbox scan failed: ${describe(error)}`, { error }))
      .finally(() => {
        this.scanning = undefined;
        if (this.rescanRequested) {
          this.rescanRequested = false;
          this.kick();
        }
      });
  }

  /** Stop taking new work; a post in flight is finished and recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const wake of this.sleepers) wake();
    await this.scanning;
    await Promise.allSettled([...this.workers.values()]);
  }

  /** Slack removed the app: the outbox keeps every alert for the bot that has a new token. */
  private halted(): boolean {
    return this.options.halted?.() !== undefined;
  }

  private async scan(): Promise<void> {
    const { digests, pending } = await this.options.outbox.indexes();
    const carried = await this.carryOpenDigests(digests);
    const fresh = await this.freshEntries(carried, pending);
    fresh.sort((a, b) => a.seq - b.seq);
    for (const channel of this.queueFresh(fresh)) {
      this.channels.sort(channel);
      this.startWorker(channel);
    }
  }

  /**
   * Digests recorded earlier (by a process that died, or a retry) are finished as recorded; the ids of
   * their events are answered, so those are not taken again one by one.
   */
  private async carryOpenDigests(ids: string[]): Promise<Set<string>> {
    const carried = new Set<string>();
    for (const record of await this.options.outbox.openDigests(ids)) {
      for (const id of record.entryIds) carried.add(id);
      if (this.channels.hasDigest(record.id) || this.stopped) continue;
      if (!this.digest) {
        this.log.warn(`digest ${record.id} is waiting but this deliverer has no digest builder`);
        continue;
      }
      const channel = this.policy.reroutedTo(record.id) ?? record.channel;
      this.channels.addDigest(channel, record);
      this.startWorker(channel);
    }
    return carried;
  }

  /** Of the pending ids, the entries not queued nor carried by a digest; finished ones leave the list. */
  private async freshEntries(carried: Set<string>, pending: string[]): Promise<OutboxEntry[]> {
    const { outbox } = this.options;
    const fresh: OutboxEntry[] = [];
    for (const id of pending) {
      if (this.channels.has(id) || carried.has(id) || this.stopped) continue;
      const entry = await outbox.get(id);
      if (!entry) continue; // index written, entry not yet (or a crash between the two): skipped
      if (entry.deliveredAt || entry.deadLetteredAt) {
        await outbox.dropPending(id);
        continue;
      }
      fresh.push(entry);
    }
    return fresh;
  }

  /** Queue each fresh entry on its channel; answers the channels that were given any. */
  private queueFresh(fresh: OutboxEntry[]): Set<string> {
    const touched = new Set<string>();
    for (const entry of fresh) {
      if (this.channels.has(entry.id)) continue;
      const channel = this.policy.reroutedTo(entry.id) ?? this.options.route(entry);
      if (!channel) {
        this.warnNoChannel();
        continue;
      }
      this.channels.add(channel, entry);
      touched.add(channel);
    }
    return touched;
  }

  private warnNoChannel(): void {
    if (this.warnedNoChannel) return;
    this.log.warn('webhook alerts are kept in the outbox: no alerts channel is configured');
    this.warnedNoChannel = true;
  }

  private startWorker(channel: string): void {
    if (!this.workers.has(channel)) this.workers.set(channel, this.work(channel));
  }

  private async work(channel: string): Promise<void> {
    const work = this.channels.of(channel);
    let unblocked = false;
    while (!this.stopped && !this.halted()) {
      let step: Step | undefined;
      try {
        step = await this.nextStep(channel, work);
      } catch (error) {
        this.log.error(`planning alerts for ${channel} failed: ${describe(error)}`, { error });
        await this.sleep(this.maxBackoffMs);
        continue;
      }
      if (!step) {
        // Checked again here, synchronously: a scan may have queued more while the step was planned.
        if (work.queue.length === 0 && work.digests.length === 0) break;
        continue;
      }
      const outcome = await this.deliverStep(step, channel);
      if (await this.afterOutcome(channel, step, outcome)) unblocked = true;
    }
    // Synchronously with the loop's end, so a scan never queues into a queue nobody works on.
    this.channels.close(channel);
    this.workers.delete(channel);
    // A delivered entry may unblock successors queued elsewhere; blocked ones are re-read on a scan.
    if (unblocked) this.kick();
  }

  /**
   * A step's outcome on the channel's queue: retried after its delay, or handed to the fallback
   * channel, or done with. Answers whether it was delivered or given up (which may unblock others).
   */
  private async afterOutcome(channel: string, step: Step, outcome: DeliveryOutcome): Promise<boolean> {
    if (outcome.kind === 'retry') {
      if (outcome.channel) {
        // Moved to the fallback channel (see PostPolicy): that channel's worker takes it.
        this.channels.forget(channel, step);
        this.kick();
      } else {
        await this.sleep(outcome.delayMs);
      }
      return false;
    }
    this.channels.forget(channel, step);
    return outcome.kind === 'done' || outcome.kind === 'give-up';
  }

  /** Deliver one step; one that throws is retried later (a digest's claim released first). */
  private async deliverStep(step: Step, channel: string): Promise<DeliveryOutcome> {
    const id = step.kind === 'single' ? step.entry.id : step.record.id;
    try {
      return step.kind === 'single'
        ? await this.deliver(step.entry, channel)
        : await this.deliverDigest(step.record, channel);
    } catch (error) {
      this.log.error(`outbox ${step.kind} ${id} could not be delivered: ${describe(error)}`);
      if (step.kind === 'digest')
        await this.options.outbox.releaseDigest(id, this.owner).catch(() => undefined);
      return this.policy.retryLater(id);
    }
  }

  /** The channel's next step (see digest-plan.ts); a new digest is recorded before it is posted. */
  private async nextStep(channel: string, work: ChannelWork): Promise<Step | undefined> {
    for (;;) {
      const choice = chooseStep(work, { digests: this.digest !== undefined, digestAbove: this.digestAbove });
      if (!choice) return undefined;
      if (choice.kind !== 'group') {
        if (choice.endsRun) this.channels.endRun(channel);
        return choice;
      }
      const planned = await this.planDigest(channel, work);
      if (planned) return planned;
    }
  }

  /**
   * Claim the oldest routine entries that can go together, as many as one message carries, and record
   * the digest before anything is posted. Undefined when planning changed the queue (look again).
   */
  private async planDigest(channel: string, work: ChannelWork): Promise<Step | undefined> {
    const { outbox } = this.options;
    const candidates = await this.candidatesFor(work);
    // Waits for another channel; found again on a later scan.
    for (const entry of candidates.waiting) this.channels.drop(channel, entry.id);
    const { entries } = candidates;
    // Claimed and read back all at once: on SQLite, a hundred round trips one after another add up.
    const ids = entries.map((e) => e.id);
    const claimed = await outbox.claimForDigest(ids, this.owner, this.leaseMs);
    const currents = await Promise.all(
      entries.map((e, i) => (claimed[i] ? outbox.get(e.id) : Promise.resolve(undefined))),
    );
    const { verdicts, chosen } = sortClaimed(entries, claimed, currents);
    const dropped = await this.settleUnchosen(channel, entries, verdicts);
    const changed = candidates.waiting.length > 0 || dropped;
    const plan = planDigest({
      channel,
      chosen,
      queue: work.queue,
      changed,
      part: this.channels.nextPart(channel),
      render: this.digest!,
      id: randomUUID(),
      now: new Date(),
    });
    for (const entry of plan.release) await outbox.release(entry.id, this.owner);
    if (plan.kind === 'again') return undefined;
    if (plan.kind === 'single') return { kind: 'single', entry: plan.entry };
    await outbox.openDigest(plan.record);
    this.channels.startedPart(channel, plan.record.part);
    this.channels.addDigest(channel, plan.record);
    return { kind: 'digest', record: plan.record };
  }

  /** The entries that can go in one digest, once whether each one's predecessor must be waited for is known. */
  private async candidatesFor(work: ChannelWork): Promise<ReturnType<typeof pickCandidates>> {
    const predecessorWaits = new Map<string, boolean>();
    let candidates = pickCandidates(work.queue, this.digestMaxEvents, predecessorWaits);
    while (candidates.unknown.length > 0) {
      const previous = await Promise.all(candidates.unknown.map((id) => this.options.outbox.get(id)));
      for (const [i, id] of candidates.unknown.entries()) {
        const entry = previous[i];
        predecessorWaits.set(id, entry !== undefined && this.mustWaitFor(entry));
      }
      candidates = pickCandidates(work.queue, this.digestMaxEvents, predecessorWaits);
    }
    return candidates;
  }

  /**
   * Release the claimed entries the digest does not take; finished ones leave the pending list, and
   * taken or finished ones the channel's queue. Answers whether any left the queue.
   */
  private async settleUnchosen(
    channel: string,
    entries: ReadonlyArray<{ id: string }>,
    verdicts: ReturnType<typeof sortClaimed>['verdicts'],
  ): Promise<boolean> {
    const { outbox } = this.options;
    let changed = false;
    for (const [i, verdict] of verdicts.entries()) {
      const { id } = entries[i]!;
      if (verdict === 'finished') {
        await outbox.release(id, this.owner);
        await outbox.dropPending(id);
      } else if (verdict === 'behind') {
        await outbox.release(id, this.owner);
      }
      if (verdict === 'taken' || verdict === 'finished') {
        this.channels.drop(channel, id);
        changed = true;
      }
    }
    return changed;
  }

  private async deliver(entry: OutboxEntry, channel: string): Promise<DeliveryOutcome> {
    const { outbox } = this.options;
    if (entry.after) {
      const previous = await outbox.get(entry.after);
      if (previous && this.mustWaitFor(previous)) return { kind: 'blocked' };
    }
    // A read of the service, bounded and before the claim: no claim is held across it (alert.ts).
    const bankName = await bankNameWithin(entry, this.options.bankName);
    if (!(await outbox.claim(entry.id, this.owner, this.leaseMs))) return { kind: 'skip' };
    // The claim's lease is fixed; the post lock is held as long as the post lasts, up to past the lease
    // (post-lock.ts). A lock the store could not take: nothing was posted, and the claim is let go now.
    const post = () => this.postClaimed(entry, channel, bankName);
    const outcome = await whilePosting(this.options.store, entry.id, post, {
      log: this.log,
      claimMs: this.leaseMs,
      notStarted: () => outbox.release(entry.id, this.owner),
    });
    if (outcome !== 'busy') return outcome;
    await outbox.release(entry.id, this.owner);
    return { kind: 'skip' };
  }

  /** Post a claimed entry, read again under its post lock: one delivered meanwhile is not posted again. */
  private async postClaimed(
    entry: OutboxEntry,
    channel: string,
    bankName: string | undefined,
  ): Promise<DeliveryOutcome> {
    const { outbox } = this.options;
    const current = await outbox.stillToPostAlone(entry.id, this.owner);
    if (!current) return { kind: 'skip' };
    const message = alertFor(current, { render: this.options.render, bankName, log: this.log });
    // A thread only exists in its own channel; elsewhere the message stands alone.
    const parent = current.threadOf ? await outbox.get(current.threadOf) : undefined;
    const threadTs = parent?.postedChannel === channel ? parent.ts : undefined;
    const answer = await this.options.sink.post({
      channel,
      text: message.text,
      ...(this.policy.isTextOnly(current.id) ? {} : { blocks: message.blocks }),
      ...(threadTs ? { threadTs } : {}),
    });
    if (!answer.ok) {
      const outcome = this.policy.afterError(current.id, current.event.event, channel, answer.failure);
      // Set aside while still holding the claim, so no other replica picks it up meanwhile.
      if (outcome.kind === 'give-up') await this.setAside(current, channel, outcome.reason);
      else await outbox.release(current.id, this.owner);
      return outcome;
    }
    await outbox.markDelivered(current, answer.ts, channel, this.owner);
    this.posted += 1;
    this.policy.settled(current.id);
    return { kind: 'done', posted: 1 };
  }

  /** Post one digest (see digest-post.ts), then forget its retry state once it is finished. */
  private async deliverDigest(record: DigestRecord, channel: string): Promise<DeliveryOutcome> {
    const { outbox, sink, store } = this.options;
    const deps = {
      outbox,
      sink,
      render: this.digest!,
      log: this.log,
      owner: this.owner,
      leaseMs: this.leaseMs,
      fallbackChannel: this.options.fallbackChannel,
      textOnly: this.policy.isTextOnly(record.id),
      attempts: this.policy.attempt(record.id),
      // Judged like a single alert's failure, counted under the digest's id.
      classify: (failure: Parameters<PostPolicy['afterError']>[3]) =>
        this.policy.afterError(record.id, 'digest', channel, failure),
    };
    const posting = await whilePosting(store, record.id, () => postDigest(deps, record, channel), {
      log: this.log,
      claimMs: this.leaseMs,
    });
    // Another deliverer is posting it: its claim is that one's, and a later scan looks again.
    const outcome: DeliveryOutcome = posting === 'busy' ? { kind: 'skip' } : posting;
    if (outcome.kind === 'done' || outcome.kind === 'give-up') {
      if (outcome.kind === 'done') this.posted += outcome.posted;
      this.policy.settled(record.id);
    }
    return outcome;
  }

  /** A successor waits for an earlier entry only while that one can still be posted somewhere. */
  private mustWaitFor(previous: OutboxEntry): boolean {
    if (previous.deliveredAt || previous.deadLetteredAt) return false;
    return (this.policy.reroutedTo(previous.id) ?? this.options.route(previous)) !== undefined;
  }

  /** Move an alert Slack will not take to the dead-letter list, say so loudly, and tell the alerts channel. */
  private async setAside(entry: OutboxEntry, channel: string, reason: string): Promise<void> {
    const attempts = this.policy.attempt(entry.id);
    await this.options.outbox.moveToDeadLetters(entry, channel, reason, attempts, this.owner);
    this.policy.settled(entry.id);
    const { data } = entry.event;
    const ref = data.trx_ref ?? data.transactionId ?? entry.id;
    this.log.error(
      `alert ${entry.event.event} for ${ref} could not be posted to ${channel} (${reason}) after ${attempts} attempt(s); moved to the dead-letter list`,
    );
    const fallback = this.options.fallbackChannel;
    if (!fallback || fallback === channel) return;
    const told = await this.options.sink.post({
      channel: fallback,
      text: setAsideNotice(entry.event.event, ref, channel, reason),
    });
    if (!told.ok) {
      this.log.warn(`could not tell ${fallback} about the set-aside alert: ${failureReason(told.failure)}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      this.sleepers.add(wake);
      if (this.options.sleep) void this.options.sleep(ms).then(wake, wake);
      else timer = setTimeout(wake, ms);
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
