// Shared by the fuzz suites: one real bot per file (the harness), its log lines kept, and every
// unhandled rejection or uncaught exception in this process recorded, so a suite can assert that
// thousands of odd requests crashed nothing, left no listener failing, and the bot still answers.
import { request } from 'undici';
import { capturedLog } from './captured-log.js';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';
import type { SlackResponse } from './slack-requests.js';

export {
  ANY_CHARACTER,
  assertFuzz,
  HIDDEN_TEXT,
  jsonValue,
  OBJECT_MEMBER_NAMES,
  text,
} from './fuzz-inputs.js';
export { runs } from './runs-scale.js';

export interface FuzzBot {
  h: Harness;
  /** Every log line the bot wrote at warn or above, parsed. */
  lines: Array<Record<string, unknown>>;
  /** Unhandled rejections and uncaught exceptions seen since start. */
  faults: unknown[];
  /** Lines that say a listener failed or a request went unacknowledged: each one is a bug. */
  listenerFailures(): string[];
  healthz(): Promise<number>;
  stop(): Promise<void>;
}

/** A cap for one property's run on a busy machine (not a timing assertion: the suites take seconds). */
export const FUZZ_TIMEOUT_MS = 90_000;

const FAILURE =
  /unhandled error in a Slack listener|not acknowledged|unexpected error occurred|failed before Bolt/i;

export async function startFuzzBot(options: HarnessOptions = {}): Promise<FuzzBot> {
  const { logger, entries: lines } = capturedLog('warn');
  const faults: unknown[] = [];
  const onFault = (reason: unknown) => faults.push(reason);
  process.on('unhandledRejection', onFault);
  process.on('uncaughtException', onFault);
  const h = await startHarness({
    ...options,
    logger,
    // The client's own budget is not what is fuzzed here.
    config: { rateLimit: { limit: 1_000_000, windowSeconds: 60 }, ...options.config },
  });
  return {
    h,
    lines,
    faults,
    listenerFailures: () =>
      lines
        .filter((l) => l.level === 'error' && FAILURE.test(String(l.message)))
        .map((l) => JSON.stringify(l)),
    async healthz() {
      const answer = await request(`${h.bot.adminUrl}/healthz`);
      await answer.body.dump();
      return answer.statusCode;
    },
    async stop() {
      try {
        await h.stop();
      } finally {
        process.off('unhandledRejection', onFault);
        process.off('uncaughtException', onFault);
      }
    },
  };
}

const ACTIONS = new Set(['errors', 'update', 'push', 'clear']);

/**
 * A valid acknowledgement of a Slack request (an empty 200, or a JSON answer; for a view, one of
 * Slack's response actions with "field: reason" errors), or a clear refusal (400/413) with a reason.
 * Returns what is wrong, or undefined.
 */
export function problemWithAnswer(answer: SlackResponse): string | undefined {
  if (answer.status === 400 || answer.status === 413) {
    return answer.body.startsWith('refused: ') ? undefined : `a ${answer.status} without a reason`;
  }
  if (answer.status !== 200) return `status ${answer.status}`;
  if (answer.body === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `a 200 whose body is not JSON: ${answer.body.slice(0, 100)}`;
  }
  if (typeof body !== 'object' || body === null) return 'a 200 whose body is not an object';
  const { response_action: action, errors } = body as { response_action?: unknown; errors?: unknown };
  if (action === undefined) return undefined;
  if (typeof action !== 'string' || !ACTIONS.has(action)) return `response_action ${String(action)}`;
  if (action === 'errors') {
    const entries = Object.entries((errors ?? {}) as Record<string, unknown>);
    if (entries.length === 0) return 'response_action errors without errors';
    for (const [field, message] of entries) {
      if (typeof message !== 'string' || !/^[^:]+: \S/.test(message)) {
        return `error for ${field} is not "field: reason": ${String(message)}`;
      }
    }
  }
  return undefined;
}
