// How the executor keeps a service answer it has been given: the store write is retried, the call
// never is; and how long shutdown waits for executions under way.

/**
 * The write of a service answer is a store write, not a money call, so it is retried: with a
 * doubling pause from `firstDelayMs` up to `maxDelayMs`, for `forMs` in all. Only then is the
 * answer left to the lease running out (outcome unknown, reconciled from the transaction list).
 */
export interface RecordRetry {
  firstDelayMs: number;
  maxDelayMs: number;
  forMs: number;
}

export const RECORD_RETRY: RecordRetry = { firstDelayMs: 250, maxDelayMs: 15_000, forMs: 5 * 60_000 };

/**
 * How long shutdown waits for executions under way (a call, the write of its answer) before it leaves
 * them: the same bound as the drain of Slack answers. A store that is down keeps an answer's write
 * retrying for RecordRetry.forMs, far longer than a supervisor waits after SIGTERM.
 */
export const STOP_DRAIN_MS = 10_000;

/** The service answered, but the store would not take the answer within RecordRetry.forMs. */
export class AnswerNotRecordedError extends Error {
  override name = 'AnswerNotRecordedError';
}
