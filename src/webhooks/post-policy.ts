// What a failed post means for one alert or digest (the sink's typed failure), and what is remembered
// about it between attempts: wait as long as Slack says, or back off; move to the fallback channel when
// its own is gone; post the text alone once Slack refused the blocks; set it aside (dead-letter) when
// Slack can never take it or an error we do not know repeats. Token and scope errors set nothing
// aside: every alert waits until someone fixes them. The attempts are counted per alert or digest, so
// one bad alert never slows another.
import type { Logger } from '../log.js';
import type { PostFailure } from './alert-sink.js';

/** What became of one attempt at an alert or a digest, as the channel's worker acts on it. */
export type DeliveryOutcome =
  | { kind: 'done'; posted: number }
  | { kind: 'skip' }
  | { kind: 'blocked' }
  | { kind: 'retry'; delayMs: number; textOnly?: boolean; channel?: string }
  | { kind: 'give-up'; reason: string };

export interface PostPolicyOptions {
  log: Logger;
  /** Where to post when a routed channel is gone or the bot is not in it. */
  fallbackChannel: string | undefined;
  /** Attempts at an alert failing with an error we do not know before it is set aside. */
  maxAttempts: number;
  maxBackoffMs: number;
}

export class PostPolicy {
  private readonly attempts = new Map<string, number>();
  private readonly textOnly = new Set<string>();
  private readonly reroutes = new Map<string, string>();

  constructor(private readonly options: PostPolicyOptions) {}

  /** The number of the attempt under way (or about to start) at this alert or digest. */
  attempt(id: string): number {
    return (this.attempts.get(id) ?? 0) + 1;
  }

  /** Slack refused its blocks before: post its text alone. */
  isTextOnly(id: string): boolean {
    return this.textOnly.has(id);
  }

  /** The channel it was moved to because its own refused it, if it was. */
  reroutedTo(id: string): string | undefined {
    return this.reroutes.get(id);
  }

  /**
   * What a failed post of `id` (an alert of kind `kind`, or a digest) to `channel` means. A retry in
   * another channel, or as text, is remembered for the next attempt.
   */
  afterError(id: string, kind: string, channel: string, failure: PostFailure): DeliveryOutcome {
    const outcome = this.decide(id, kind, channel, failure);
    if (outcome.kind === 'retry') {
      if (outcome.textOnly) this.textOnly.add(id);
      if (outcome.channel) this.reroutes.set(id, outcome.channel);
    }
    return outcome;
  }

  /** Something other than Slack failed (the store, a bug): try again after a backoff. */
  retryLater(id: string): DeliveryOutcome {
    return { kind: 'retry', delayMs: this.backoff(id) };
  }

  /** Posted or set aside: nothing about it is remembered any more. */
  settled(id: string): void {
    this.attempts.delete(id);
    this.textOnly.delete(id);
    this.reroutes.delete(id);
  }

  private decide(id: string, kind: string, channel: string, failure: PostFailure): DeliveryOutcome {
    const { log } = this.options;
    switch (failure.kind) {
      case 'rate-limited':
        log.info(`Slack rate-limited ${channel}; retrying in ${failure.delayMs / 1000} s`);
        return { kind: 'retry', delayMs: failure.delayMs };
      case 'channel': {
        const fallback = this.options.fallbackChannel;
        if (fallback && fallback !== channel) {
          log.warn(`cannot post alerts to ${channel} (${failure.reason}); using ${fallback}`);
          return { kind: 'retry', delayMs: 0, channel: fallback };
        }
        return { kind: 'give-up', reason: failure.reason };
      }
      case 'blocks':
        if (this.textOnly.has(id)) return { kind: 'give-up', reason: failure.reason };
        log.warn(`Slack refused the blocks of an alert (${failure.reason}); posting it as text`);
        return { kind: 'retry', delayMs: 0, textOnly: true };
      case 'permanent':
        return { kind: 'give-up', reason: failure.reason };
      case 'unknown':
        if (this.attempt(id) >= this.options.maxAttempts) return { kind: 'give-up', reason: failure.reason };
        break;
      case 'operator':
        log.error(`Slack refuses the bot's alerts (${failure.reason}): fix the token or its scopes`);
        break;
      case 'transient':
        break;
    }
    const delayMs = this.backoff(id);
    log.warn(
      `posting alert ${kind} to ${channel} failed (${failure.reason}); retrying in ${delayMs / 1000} s`,
    );
    return { kind: 'retry', delayMs };
  }

  private backoff(id: string): number {
    const n = this.attempt(id);
    this.attempts.set(id, n);
    return Math.min(500 * 2 ** (n - 1), this.options.maxBackoffMs);
  }
}
