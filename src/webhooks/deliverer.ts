// Posts outbox entries to Slack: one worker per channel (Slack allows about one message per second per
// channel), entries of one reference in order, 429 (Retry-After) and 5xx retried with backoff. The
// retry is ours, not WebClient's (build the client with retries off), so a wait is visible, bounded per
// channel, and never blocks other channels. An alert Slack can never accept (or refuses too often) is
// set aside in the dead-letter list so the channel's queue goes on.
//
// Exactly-once is bounded by one window: if the process dies after Slack accepted a post and before
// markDelivered wrote its ts, the entry is posted again after restart (or by another replica once the
// claim's lease expires). Everything else is deduplicated.
import { randomUUID } from 'node:crypto';
import { escapeMrkdwn } from '../format/mrkdwn.js';
import type { Store } from '../store/index.js';
import { alertFor } from './alert.js';
import type { Outbox } from './outbox.js';
import { classifyPostFailure } from './post-errors.js';
import type { OutboxEntry, RenderAlert } from './types.js';

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
  chat: { postMessage(args: never): Promise<{ ts?: string }> };
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
}

type Outcome =
  | { kind: 'done' }
  | { kind: 'skip' }
  | { kind: 'blocked' }
  | { kind: 'retry'; delayMs: number; textOnly?: boolean; channel?: string }
  | { kind: 'give-up'; reason: string };

export class Deliverer {
  readonly owner = randomUUID();
  private readonly queues = new Map<string, OutboxEntry[]>();
  private readonly workers = new Map<string, Promise<void>>();
  private readonly known = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly textOnly = new Set<string>();
  private readonly reroutes = new Map<string, string>();
  private readonly sleepers = new Set<() => void>();
  private readonly log: Logger;
  private readonly leaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxAttempts: number;
  private scanning: Promise<void> | undefined;
  private rescanRequested = false;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;
  private warnedNoChannel = false;
  /** Entries posted by this deliverer (for tests and the bench). */
  posted = 0;

  constructor(private readonly options: DelivererOptions) {
    this.log = options.log ?? silentLogger;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const kind = this.options.store.kind;
    if (kind === 'memory' || kind === 'sqlite') {
      // One replica per SQLite/memory store: a claim found at start was left by a process that died.
      // On a shared store (Redis, PostgreSQL) it may be another live replica's delivery under way.
      for (const id of await this.options.outbox.pendingIds()) await this.options.outbox.release(id);
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
    const ids = await outbox.pendingIds();
    const fresh: OutboxEntry[] = [];
    for (const id of ids) {
      if (this.known.has(id) || this.stopped) continue;
      const entry = await outbox.get(id);
      if (!entry) continue; // index written, entry not yet (or a crash between the two): skipped
      if (entry.deliveredAt || entry.deadLetteredAt) {
        await outbox.dropPending(id);
        continue;
      }
      fresh.push(entry);
    }
    fresh.sort((a, b) => a.seq - b.seq);
    for (const entry of fresh) {
      const channel = this.reroutes.get(entry.id) ?? this.options.route(entry);
      if (!channel) {
        if (!this.warnedNoChannel) {
          this.log.warn('webhook alerts are kept in the outbox: no alerts channel is configured');
          this.warnedNoChannel = true;
        }
        continue;
      }
      this.known.add(entry.id);
      const queue = this.queues.get(channel) ?? [];
      queue.push(entry);
      this.queues.set(channel, queue);
      if (!this.workers.has(channel)) {
        this.workers.set(channel, this.work(channel));
      }
    }
  }

  private async work(channel: string): Promise<void> {
    const queue = this.queues.get(channel) ?? [];
    let unblocked = false;
    while (queue.length > 0 && !this.stopped) {
      const entry = queue[0]!;
      let outcome: Outcome;
      try {
        outcome = await this.deliver(entry, channel);
      } catch (error) {
        this.log.error(`outbox entry ${entry.id} could not be delivered: ${describe(error)}`);
        outcome = { kind: 'retry', delayMs: this.backoff(entry.id) };
      }
      if (outcome.kind === 'retry') {
        if (outcome.textOnly) this.textOnly.add(entry.id);
        if (outcome.channel) {
          // Reroute to the fallback channel: hand the entry to that channel's worker.
          queue.shift();
          this.known.delete(entry.id);
          this.reroutes.set(entry.id, outcome.channel);
          this.kick();
          continue;
        }
        await this.sleep(outcome.delayMs);
        continue;
      }
      queue.shift();
      this.known.delete(entry.id);
      if (outcome.kind === 'done' || outcome.kind === 'give-up') unblocked = true;
    }
    // Synchronously with the loop's end, so a scan never queues into a queue nobody works on.
    this.queues.delete(channel);
    this.workers.delete(channel);
    for (const left of queue) this.known.delete(left.id);
    // A delivered entry may unblock successors queued elsewhere; blocked ones are re-read on a scan.
    if (unblocked) this.kick();
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
    return { kind: 'done' };
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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
