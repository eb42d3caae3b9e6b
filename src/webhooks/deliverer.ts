// Posts outbox entries to Slack: one worker per channel (Slack allows about one message per second per
// channel), entries of one reference in order, 429 (Retry-After) and 5xx retried with backoff. The
// retry is ours, not WebClient's (build the client with retries off), so a wait is visible, bounded per
// channel, and never blocks other channels. An alert Slack can never accept (or refuses too often) is
// set aside in the dead-letter list so the channel's queue goes on.
//
// Under load a channel's routine events are grouped into digests (one message listing many); failures
// and events a person must look at still go first and alone. See digestStep for the order of work.
//
// Exactly-once is bounded by one window, for single messages only: if the process dies after Slack
// accepted a post and before markDelivered wrote its ts, the entry is posted again after restart (or by
// another replica once the claim's lease expires). A digest has no such window: it is recorded with its
// events before anything is posted, its first post names no event, and the events are filled in with
// chat.update, which can be repeated after a crash without showing an event twice.
import { randomUUID } from 'node:crypto';
import { escapeMrkdwn } from '../format/mrkdwn.js';
import type { Store } from '../store/index.js';
import { alertFor } from './alert.js';
import { alertInputOf, digestCapacity, fitsSlack, needsPerson, safeDigestRendering } from './digest.js';
import { postDigest } from './digest-post.js';
import type { Outbox } from './outbox.js';
import { classifyPostFailure, type DeliveryOutcome } from './post-errors.js';
import type { DigestInput, DigestRecord, DigestRendering, OutboxEntry, RenderAlert } from './types.js';

export interface PostMessageArgs {
  channel: string;
  text: string;
  blocks?: ReadonlyArray<Record<string, unknown>>;
  thread_ts?: string;
  unfurl_links?: boolean;
  unfurl_media?: boolean;
}

/** The part of WebClient the deliverer uses (a WebClient fits). */
export interface SlackPoster {
  chat: {
    postMessage(args: never): Promise<{ ts?: string }>;
    update(args: never): Promise<unknown>;
  };
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export interface DelivererOptions {
  outbox: Outbox;
  store: Store;
  slack: SlackPoster;
  render: RenderAlert;
  /** The channel for an entry, or undefined to keep it pending (no channel configured). */
  route: (entry: OutboxEntry) => string | undefined;
  /** Where to post when a routed channel is gone or the bot is not in it. */
  fallbackChannel?: string | undefined;
  log?: Logger;
  /** How long a claim lasts if its holder dies mid-post. */
  leaseMs?: number;
  /** Periodic rescan: other replicas' entries, blocked successors, entries held by dead claims. */
  rescanMs?: number;
  maxBackoffMs?: number;
  /** Attempts at an alert failing with an error we do not know before it is set aside (default 5). */
  maxAttempts?: number;
  /** Bank name for a bank code (redemptions carry only the code); failures just show the code. */
  bankName?: ((code: string) => Promise<string | undefined>) | undefined;
  /** How a wait is done (tests observe the waits asked for); stop() still ends a wait at once. */
  sleep?: (ms: number) => Promise<void>;
  /** The digest builders; unset → one message per event, whatever waits. */
  digest?: DigestRendering | undefined;
  /** Routine events waiting for one channel beyond which they are grouped into digests (default 5). */
  digestAbove?: number;
  /** Events one digest message lists at most (fewer when Slack's limits say so; default 100). */
  digestMaxEvents?: number;
}

type Step = { kind: 'single'; entry: OutboxEntry } | { kind: 'digest'; record: DigestRecord };

type Outcome = DeliveryOutcome;

export class Deliverer {
  readonly owner = randomUUID();
  private readonly queues = new Map<string, OutboxEntry[]>();
  /** Digests recorded and not finished, per channel: finished before new routine work. */
  private readonly digests = new Map<string, DigestRecord[]>();
  private readonly workers = new Map<string, Promise<void>>();
  private readonly known = new Set<string>();
  private readonly knownDigests = new Set<string>();
  /** The part number of the last digest in a channel's current run of digests. */
  private readonly runs = new Map<string, number>();
  private readonly attempts = new Map<string, number>();
  private readonly textOnly = new Set<string>();
  private readonly reroutes = new Map<string, string>();
  private readonly sleepers = new Set<() => void>();
  private readonly log: Logger;
  private readonly leaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxAttempts: number;
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
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 5;
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
      for (const id of await this.options.outbox.pendingIds()) await this.options.outbox.release(id);
      for (const digest of await this.options.outbox.openDigests())
        await this.options.outbox.releaseDigest(digest.id);
    }
    const every = this.options.rescanMs ?? 5_000;
    this.timer = setInterval(() => this.kick(), every);
    this.timer.unref();
    this.kick();
  }

  /** Look for new pending entries soon (after an enqueue, a delivery, a restart). */
  kick(): void {
    if (!this.started || this.stopped) return;
    if (this.scanning) {
      this.rescanRequested = true;
      return;
    }
    this.scanning = this.scan()
      .catch((error: unknown) => this.log.error(`outbox scan failed: ${describe(error)}`))
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

  private async scan(): Promise<void> {
    const { outbox } = this.options;
    // Digests recorded earlier (by a process that died, or a retry): finished as recorded, and their
    // events are not taken again one by one.
    const carried = new Set<string>();
    for (const record of await outbox.openDigests()) {
      for (const id of record.entryIds) carried.add(id);
      if (this.knownDigests.has(record.id) || this.stopped) continue;
      if (!this.digest) {
        this.log.warn(`digest ${record.id} is waiting but this deliverer has no digest builder`);
        continue;
      }
      this.knownDigests.add(record.id);
      const channel = this.reroutes.get(record.id) ?? record.channel;
      this.channelWork(channel).digests.push(record);
      this.startWorker(channel);
    }
    const ids = await outbox.pendingIds();
    const fresh: OutboxEntry[] = [];
    for (const id of ids) {
      if (this.known.has(id) || carried.has(id) || this.stopped) continue;
      const entry = await outbox.get(id);
      if (!entry) continue; // index written, entry not yet (or a crash between the two): skipped
      if (entry.deliveredAt || entry.deadLetteredAt) {
        await outbox.dropPending(id);
        continue;
      }
      fresh.push(entry);
    }
    fresh.sort((a, b) => a.seq - b.seq);
    const touched = new Set<string>();
    for (const entry of fresh) {
      if (this.known.has(entry.id)) continue;
      const channel = this.reroutes.get(entry.id) ?? this.options.route(entry);
      if (!channel) {
        if (!this.warnedNoChannel) {
          this.log.warn('webhook alerts are kept in the outbox: no alerts channel is configured');
          this.warnedNoChannel = true;
        }
        continue;
      }
      this.known.add(entry.id);
      this.channelWork(channel).queue.push(entry);
      touched.add(channel);
    }
    for (const channel of touched) {
      // Kept in acceptance order: an entry found again after waiting goes back to its place.
      this.channelWork(channel).queue.sort((a, b) => a.seq - b.seq);
      this.startWorker(channel);
    }
  }

  private channelWork(channel: string): { queue: OutboxEntry[]; digests: DigestRecord[] } {
    let queue = this.queues.get(channel);
    if (!queue) {
      queue = [];
      this.queues.set(channel, queue);
    }
    let digests = this.digests.get(channel);
    if (!digests) {
      digests = [];
      this.digests.set(channel, digests);
    }
    return { queue, digests };
  }

  private startWorker(channel: string): void {
    if (!this.workers.has(channel)) this.workers.set(channel, this.work(channel));
  }

  private async work(channel: string): Promise<void> {
    const { queue, digests } = this.channelWork(channel);
    let unblocked = false;
    while (!this.stopped) {
      let step: Step | undefined;
      try {
        step = await this.nextStep(channel, queue, digests);
      } catch (error) {
        this.log.error(`planning alerts for ${channel} failed: ${describe(error)}`);
        await this.sleep(this.maxBackoffMs);
        continue;
      }
      if (!step) {
        // Checked again here, synchronously: a scan may have queued more while the step was planned.
        if (queue.length === 0 && digests.length === 0) break;
        continue;
      }
      const id = step.kind === 'single' ? step.entry.id : step.record.id;
      let outcome: Outcome;
      try {
        outcome =
          step.kind === 'single'
            ? await this.deliver(step.entry, channel)
            : await this.deliverDigest(step.record, channel);
      } catch (error) {
        this.log.error(`outbox ${step.kind} ${id} could not be delivered: ${describe(error)}`);
        if (step.kind === 'digest') await this.options.outbox.releaseDigest(id).catch(() => undefined);
        outcome = { kind: 'retry', delayMs: this.backoff(id) };
      }
      if (outcome.kind === 'retry') {
        if (outcome.textOnly) this.textOnly.add(id);
        if (outcome.channel) {
          // Reroute to the fallback channel: hand it to that channel's worker.
          this.forget(step, queue, digests);
          this.reroutes.set(id, outcome.channel);
          this.kick();
          continue;
        }
        await this.sleep(outcome.delayMs);
        continue;
      }
      this.forget(step, queue, digests);
      if (outcome.kind === 'done' || outcome.kind === 'give-up') unblocked = true;
    }
    // Synchronously with the loop's end, so a scan never queues into a queue nobody works on.
    this.queues.delete(channel);
    this.digests.delete(channel);
    this.workers.delete(channel);
    this.runs.delete(channel);
    for (const left of queue) this.known.delete(left.id);
    for (const left of digests) this.knownDigests.delete(left.id);
    // A delivered entry may unblock successors queued elsewhere; blocked ones are re-read on a scan.
    if (unblocked) this.kick();
  }

  /** Drop a finished (or handed-over) step from this channel's work. */
  private forget(step: Step, queue: OutboxEntry[], digests: DigestRecord[]): void {
    if (step.kind === 'single') {
      remove(queue, (e) => e.id === step.entry.id);
      this.known.delete(step.entry.id);
      return;
    }
    remove(digests, (d) => d.id === step.record.id);
    this.knownDigests.delete(step.record.id);
    const carried = new Set(step.record.entryIds);
    remove(queue, (e) => carried.has(e.id));
    for (const id of carried) this.known.delete(id);
  }

  /**
   * What a channel posts next: a failure (or an event needing a person) first and alone — after the
   * earlier entries of its own reference waiting here; then digests already recorded; then routine
   * events, one message each while few wait, else the oldest of them grouped into a new digest.
   */
  private async nextStep(
    channel: string,
    queue: OutboxEntry[],
    digests: DigestRecord[],
  ): Promise<Step | undefined> {
    for (;;) {
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
      if (!this.digest || queue.length <= this.digestAbove || head.threadOf) {
        this.runs.delete(channel);
        return { kind: 'single', entry: head };
      }
      const planned = await this.planDigest(channel, queue, digests);
      if (planned) return planned;
    }
  }

  /**
   * Claim the oldest routine entries that can go together, as many as one message carries, and record
   * the digest before anything is posted. Undefined when planning changed the queue (look again).
   */
  private async planDigest(
    channel: string,
    queue: OutboxEntry[],
    digests: DigestRecord[],
  ): Promise<Step | undefined> {
    const { outbox } = this.options;
    const waiting = new Set(queue.map((e) => e.id));
    const chosen: OutboxEntry[] = [];
    const chosenIds = new Set<string>();
    let changed = false;
    const drop = (entry: OutboxEntry) => {
      remove(queue, (e) => e.id === entry.id);
      this.known.delete(entry.id);
      changed = true;
    };
    const candidates: OutboxEntry[] = [];
    const candidateIds = new Set<string>();
    for (const entry of [...queue]) {
      if (candidates.length >= this.digestMaxEvents) break;
      // A reply in a thread goes alone, when it is the oldest waiting; anything urgent never joins.
      if (entry.threadOf || needsPerson(entry)) continue;
      if (entry.after && !candidateIds.has(entry.after)) {
        if (waiting.has(entry.after)) continue; // its predecessor waits here: after that one
        const previous = await outbox.get(entry.after);
        if (previous && this.mustWaitFor(previous)) {
          drop(entry); // waits for another channel; found again on a later scan
          continue;
        }
      }
      candidates.push(entry);
      candidateIds.add(entry.id);
    }
    // Claimed and read back all at once: on SQLite, a hundred round trips one after another add up.
    const claimed = await Promise.all(candidates.map((e) => outbox.claim(e.id, this.owner, this.leaseMs)));
    const currents = await Promise.all(
      candidates.map((e, i) => (claimed[i] ? outbox.get(e.id) : Promise.resolve(undefined))),
    );
    for (const [i, entry] of candidates.entries()) {
      const current = currents[i];
      if (!claimed[i]) {
        drop(entry); // another replica has it
        continue;
      }
      if (!current || current.deliveredAt || current.deadLetteredAt) {
        await outbox.release(entry.id);
        await outbox.dropPending(entry.id);
        drop(entry);
        continue;
      }
      if (current.after && candidateIds.has(current.after) && !chosenIds.has(current.after)) {
        await outbox.release(entry.id); // its predecessor could not join: it waits for that one
        continue;
      }
      chosen.push(current);
      chosenIds.add(current.id);
    }
    if (chosen.length < 2) {
      for (const entry of chosen) await outbox.release(entry.id);
      const alone = chosen[0] ?? (changed ? undefined : queue[0]);
      return alone ? { kind: 'single', entry: alone } : undefined;
    }
    const part = (this.runs.get(channel) ?? 0) + 1;
    const render = this.digest!;
    const inputFor = (n: number): DigestInput => ({
      alerts: chosen.slice(0, n).map(alertInputOf),
      environment: chosen[0]!.environment,
      part,
      more: queue.length > n,
    });
    const count = digestCapacity(chosen.length, (n) => fitsSlack(render.message(inputFor(n))));
    for (const entry of chosen.slice(count)) await outbox.release(entry.id);
    if (count < 2) {
      await outbox.release(chosen[0]!.id); // the single path claims it again
      return { kind: 'single', entry: chosen[0]! };
    }
    const record: DigestRecord = {
      id: randomUUID(),
      channel,
      part,
      more: queue.length > count,
      entryIds: chosen.slice(0, count).map((e) => e.id),
      createdAt: new Date().toISOString(),
    };
    await outbox.openDigest(record);
    this.runs.set(channel, part);
    this.knownDigests.add(record.id);
    digests.push(record);
    return { kind: 'digest', record };
  }

  private async deliver(entry: OutboxEntry, channel: string): Promise<Outcome> {
    const { outbox } = this.options;
    if (entry.after) {
      const previous = await outbox.get(entry.after);
      if (previous && this.mustWaitFor(previous)) return { kind: 'blocked' };
    }
    if (!(await outbox.claim(entry.id, this.owner, this.leaseMs))) return { kind: 'skip' };
    const current = await outbox.get(entry.id);
    if (!current || current.deliveredAt || current.deadLetteredAt) {
      await outbox.release(entry.id);
      await outbox.dropPending(entry.id);
      return { kind: 'skip' };
    }
    const message = await alertFor(current, {
      render: this.options.render,
      bankName: this.options.bankName,
      log: this.log,
    });
    // A thread only exists in its own channel; elsewhere the message stands alone.
    const parent = current.threadOf ? await outbox.get(current.threadOf) : undefined;
    const threadTs = parent?.postedChannel === channel ? parent.ts : undefined;
    let ts: string | undefined;
    try {
      const args: PostMessageArgs = {
        channel,
        text: message.text,
        ...(this.textOnly.has(current.id) ? {} : { blocks: message.blocks }),
        ...(threadTs ? { thread_ts: threadTs } : {}),
        unfurl_links: false,
        unfurl_media: false,
      };
      ts = (await this.options.slack.chat.postMessage(args as never)).ts;
    } catch (error) {
      const outcome = this.onPostError(current, channel, error);
      // Set aside while still holding the claim, so no other replica picks it up meanwhile.
      if (outcome.kind === 'give-up') await this.setAside(current, channel, outcome.reason);
      else await outbox.release(current.id);
      return outcome;
    }
    await outbox.markDelivered(current, ts, channel);
    this.posted += 1;
    this.attempts.delete(current.id);
    this.textOnly.delete(current.id);
    this.reroutes.delete(current.id);
    return { kind: 'done', posted: 1 };
  }

  /** Post one digest (see digest-post.ts), then forget its retry state once it is finished. */
  private async deliverDigest(record: DigestRecord, channel: string): Promise<Outcome> {
    const { outbox, slack } = this.options;
    const outcome = await postDigest(
      {
        outbox,
        slack,
        render: this.digest!,
        log: this.log,
        owner: this.owner,
        leaseMs: this.leaseMs,
        fallbackChannel: this.options.fallbackChannel,
        textOnly: this.textOnly.has(record.id),
        attempts: (this.attempts.get(record.id) ?? 0) + 1,
        // Classified like a single alert's failure, counted under the digest's id.
        classify: (error) =>
          this.onPostError({ id: record.id, event: { event: 'digest' } } as OutboxEntry, channel, error),
      },
      record,
      channel,
    );
    if (outcome.kind === 'done' || outcome.kind === 'give-up') {
      if (outcome.kind === 'done') this.posted += outcome.posted;
      this.attempts.delete(record.id);
      this.textOnly.delete(record.id);
      this.reroutes.delete(record.id);
    }
    return outcome;
  }

  /** A successor waits for an earlier entry only while that one can still be posted somewhere. */
  private mustWaitFor(previous: OutboxEntry): boolean {
    if (previous.deliveredAt || previous.deadLetteredAt) return false;
    return (this.reroutes.get(previous.id) ?? this.options.route(previous)) !== undefined;
  }

  private onPostError(entry: OutboxEntry, channel: string, error: unknown): Outcome {
    const failure = classifyPostFailure(error);
    switch (failure.kind) {
      case 'rate-limited':
        this.log.info(`Slack rate-limited ${channel}; retrying in ${failure.delayMs / 1000} s`);
        return { kind: 'retry', delayMs: failure.delayMs };
      case 'channel': {
        const fallback = this.options.fallbackChannel;
        if (fallback && fallback !== channel) {
          this.log.warn(`cannot post alerts to ${channel} (${failure.reason}); using ${fallback}`);
          return { kind: 'retry', delayMs: 0, channel: fallback };
        }
        return { kind: 'give-up', reason: failure.reason };
      }
      case 'blocks':
        if (this.textOnly.has(entry.id)) return { kind: 'give-up', reason: failure.reason };
        this.log.warn(`Slack refused the blocks of an alert (${failure.reason}); posting it as text`);
        return { kind: 'retry', delayMs: 0, textOnly: true };
      case 'permanent':
        return { kind: 'give-up', reason: failure.reason };
      case 'unknown':
        if ((this.attempts.get(entry.id) ?? 0) + 1 >= this.maxAttempts) {
          return { kind: 'give-up', reason: failure.reason };
        }
        break;
      case 'operator':
        this.log.error(`Slack refuses the bot's alerts (${failure.reason}): fix the token or its scopes`);
        break;
      case 'transient':
        break;
    }
    const delayMs = this.backoff(entry.id);
    this.log.warn(
      `posting alert ${entry.event.event} to ${channel} failed (${failure.reason}); retrying in ${delayMs / 1000} s`,
    );
    return { kind: 'retry', delayMs };
  }

  /** Move an alert Slack will not take to the dead-letter list, say so loudly, and tell the alerts channel. */
  private async setAside(entry: OutboxEntry, channel: string, reason: string): Promise<void> {
    const attempts = (this.attempts.get(entry.id) ?? 0) + 1;
    await this.options.outbox.moveToDeadLetters(entry, channel, reason, attempts);
    this.attempts.delete(entry.id);
    this.textOnly.delete(entry.id);
    this.reroutes.delete(entry.id);
    const { data } = entry.event;
    const ref = data.trx_ref ?? data.transactionId ?? entry.id;
    this.log.error(
      `alert ${entry.event.event} for ${ref} could not be posted to ${channel} (${reason}) after ${attempts} attempt(s); moved to the dead-letter list`,
    );
    const fallback = this.options.fallbackChannel;
    if (!fallback || fallback === channel) return;
    try {
      const args: PostMessageArgs = {
        channel: fallback,
        text: escapeMrkdwn(
          `An alert (${entry.event.event}, reference ${ref}) could not be posted to ${channel}: Slack answered ${reason}. It was set aside in the dead-letter list.`,
        ),
        unfurl_links: false,
        unfurl_media: false,
      };
      await this.options.slack.chat.postMessage(args as never);
    } catch (error) {
      this.log.warn(`could not tell ${fallback} about the set-aside alert: ${describe(error)}`);
    }
  }

  private backoff(id: string): number {
    const n = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, n);
    return Math.min(500 * 2 ** (n - 1), this.maxBackoffMs);
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

function remove<T>(items: T[], test: (item: T) => boolean): void {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) items.splice(i, 1);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
