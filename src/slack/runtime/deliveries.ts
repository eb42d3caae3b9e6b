// Slack sends an interaction again when it did not see the answer in time (X-Slack-Retry-Num), and the
// same signed body can arrive more than once. What one delivery does (file a request, run a command)
// happens once: the first to claim the delivery in the store does the work and records its answer; a
// repeat, on any replica, gives that same answer and changes nothing. The claim is atomic in the store
// and kept for a day, longer than Slack retries or anyone re-sends a request.
import { createHash } from 'node:crypto';
import type { Store } from '../../store/index.js';

const DELIVERY_TTL_MS = 86_400_000;

/** How a repeat waits for the first delivery's answer: read every `pollMs`, for at most `waitMs`. */
export interface DeliveryWait {
  pollMs: number;
  waitMs: number;
}

const DEFAULT_WAIT: DeliveryWait = { pollMs: 100, waitMs: 30_000 };

type Entry<T> = { state: 'working' } | { state: 'answered'; answer: T };

export type DeliveryTurn<T> =
  /** This is the first delivery: do the work, then record what it answered. */
  | { first: true; answered(answer: T): Promise<void> }
  /**
   * A repeat: the first delivery's answer, once it is recorded; undefined when none is recorded within
   * the wait (the first is still at work, or stopped before it answered).
   */
  | { first: false; answer(): Promise<T | undefined> };

/** One delivery: what kind it is, and the parts that name it (outside text, hashed into the key). */
export interface DeliveryKey {
  kind: 'view' | 'command';
  parts: readonly string[];
}

/**
 * A view submission: its view (id and hash, which Slack changes with every update of the view) and what
 * was submitted, so a person who changes a field after an inline error submits a new delivery.
 */
export function viewDelivery(view: { id: string; hash?: string; state?: { values?: unknown } }): DeliveryKey {
  return { kind: 'view', parts: [view.id, view.hash ?? '', canonicalJson(view.state?.values ?? {})] };
}

/** A slash command: Slack gives each invocation its own trigger_id. */
export function commandDelivery(triggerId: string): DeliveryKey {
  return { kind: 'command', parts: [triggerId] };
}

/** JSON with object keys in order, so the same values give the same text however they were sent. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const storeKey = (key: DeliveryKey) =>
  `delivery:${key.kind}:${createHash('sha256').update(JSON.stringify(key.parts)).digest('hex')}`;

export class Deliveries {
  private readonly wait: DeliveryWait;

  constructor(
    private readonly store: Store,
    wait: Partial<DeliveryWait> = {},
  ) {
    this.wait = { ...DEFAULT_WAIT, ...wait };
  }

  /** Claim the delivery; the first claimant does the work, every other one repeats its answer. */
  async claim<T>(key: DeliveryKey): Promise<DeliveryTurn<T>> {
    const at = storeKey(key);
    const working: Entry<T> = { state: 'working' };
    if (await this.store.setIfAbsent(at, working, DELIVERY_TTL_MS)) {
      return {
        first: true,
        answered: (answer) => this.store.set<Entry<T>>(at, { state: 'answered', answer }, DELIVERY_TTL_MS),
      };
    }
    return { first: false, answer: () => this.answerOf<T>(at) };
  }

  private async answerOf<T>(at: string): Promise<T | undefined> {
    const deadline = Date.now() + this.wait.waitMs;
    for (;;) {
      const entry = await this.store.get<Entry<T>>(at);
      if (entry?.state === 'answered') return entry.answer;
      if (Date.now() >= deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, this.wait.pollMs));
    }
  }
}
