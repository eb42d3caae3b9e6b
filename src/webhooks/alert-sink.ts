// The port alerts leave through: webhooks/ says what to post or update and reads the answer in its own
// words, a ts or a typed failure. The Slack side (its client, its calls, what its errors mean) is
// slack/alerts/sink.ts; nothing here knows Slack's API.

/** Block Kit blocks, kept loose: webhooks/ does not depend on Slack's type package. */
export type AlertBlocks = ReadonlyArray<Record<string, unknown>>;

/** A message posted into a channel: an alert, a digest's placeholder, a notice about either. */
interface AlertPost {
  channel: string;
  text: string;
  blocks?: AlertBlocks | undefined;
  /** Posted as a reply in the thread of the message with this ts. */
  threadTs?: string | undefined;
}

/** A message replaced in place: a digest filled in, or saying where its events went. */
interface AlertUpdate {
  channel: string;
  ts: string;
  text: string;
  blocks: AlertBlocks;
}

/** Why a post or an update was not taken, as the outbox acts on it. */
export type PostFailure =
  /** Rate-limited: wait as long as the sink says. */
  | { kind: 'rate-limited'; delayMs: number }
  /** The channel is gone or the bot is not in it: another channel may work. */
  | { kind: 'channel'; reason: string }
  /** The blocks were refused: the text alone may go. */
  | { kind: 'blocks'; reason: string }
  /** Retrying the same request cannot succeed. */
  | { kind: 'permanent'; reason: string }
  /** Token or scope problems: nothing can be posted until someone fixes them; keep waiting. */
  | { kind: 'operator'; reason: string }
  /** A bad moment (5xx, timeouts, resets): keep trying. */
  | { kind: 'transient'; reason: string }
  /** A failure not known: tried a bounded number of times. */
  | { kind: 'unknown'; reason: string };

export type SinkAnswer = { ok: true; ts: string | undefined } | { ok: false; failure: PostFailure };

export interface AlertSink {
  /** Posts the message; answers with its ts, or why it was not taken. */
  post(message: AlertPost): Promise<SinkAnswer>;
  /** Replaces the message at `ts`; answers with that ts, or why it was not taken. */
  update(message: AlertUpdate): Promise<SinkAnswer>;
}

/** The failure in a word: the refusal's own code, or `ratelimited`. */
export function failureReason(failure: PostFailure): string {
  return failure.kind === 'rate-limited' ? 'ratelimited' : failure.reason;
}
