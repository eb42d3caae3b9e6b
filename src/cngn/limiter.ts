// The service allows N requests per window per API key and blocks the key when one more arrives, so
// every request (retries included) first takes a slot here. The slot log lives in the store under a
// lock, so every replica sharing the store shares one budget.
// A slot stays taken until windowMs + marginMs after its request *finished*, so at most N requests
// reach the service in any of its windows, whatever the network delays
// (docs/decisions/shared-rate-limiter.md).
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { LockTimeoutError, type Store } from '../store/index.js';
import { untilAborted } from './abort.js';
import { RateBudgetError } from './errors.js';

/**
 * Who is waiting on a call, for the shared request budget: `money` (withdraw, redeem, bridge,
 * whitelist, settlement, and checks at approval) waits for a slot and is never dropped;
 * `interactive` waits briefly, then RateBudgetError; `background` never uses the reserve; `report`
 * (a report's reads) is background that also leaves one background slot free, so other background
 * work (balance reads, the reconciler) always finds one while a report reads its history.
 */
export type Priority = 'money' | 'interactive' | 'background' | 'report';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { limit: 20, windowSeconds: 60 };

/** `CNGN_RATE_LIMIT`: `N/<seconds>s`, e.g. `20/60s`. */
export function parseRateLimit(text: string | undefined): RateLimit {
  if (text === undefined || text.trim() === '') return { ...DEFAULT_RATE_LIMIT };
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*s\s*$/.exec(text);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1) {
    throw new Error(`must look like 20/60s (so many requests per so many seconds), got "${text}"`);
  }
  return { limit, windowSeconds };
}

export interface LimiterOptions {
  store: Store;
  /** Non-reversible id of the API key (see keyId); the key itself never reaches the store. */
  keyId: string;
  rateLimit: RateLimit;
  /** Added to the window so clock jitter between replicas and the service can never trip it. */
  marginMs?: number;
  /** Slots background work (pollers, reconciler) may never use; kept for money and people. */
  backgroundReserve?: number;
  /** How long an interactive read may wait for a slot before it is told "busy". */
  interactiveWaitMs?: number;
  /** How long the service blocks the key after a 429 (it sends no Retry-After). */
  blockMs?: number;
  /**
   * A slot whose request never reported back (crashed replica) counts as finished after this; it
   * must exceed the longest a request can take (the client sets it from its timeouts).
   */
  maxInFlightMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RateBudget {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until the next taken slot frees (0 when none is taken). */
  resetsInSeconds: number;
  /** Seconds the key is still blocked after a 429 from the service (0 when not blocked). */
  blockedForSeconds: number;
}

export interface Slot {
  /** Call once the request has finished (answered, failed or timed out). */
  release(): Promise<void>;
}

interface SlotEntry {
  id: string;
  start: number;
  end?: number;
}

interface LimiterState {
  slots: SlotEntry[];
  blockedUntil: number;
  /** Money callers waiting for a slot, id → registration expiry; others leave these slots to them. */
  moneyWaiting: Record<string, number>;
}

const emptyState = (): LimiterState => ({ slots: [], blockedUntil: 0, moneyWaiting: {} });

type Decision = { granted: true; id: string } | { granted: false; freeAt: number };

export class SharedRateLimiter {
  readonly limit: number;
  private readonly windowMs: number;
  private readonly marginMs: number;
  private readonly reserve: number;
  private readonly interactiveWaitMs: number;
  private readonly blockMs: number;
  private readonly maxInFlightMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly store: Store;
  private readonly stateKey: string;

  constructor(options: LimiterOptions) {
    this.store = options.store;
    this.stateKey = `cngn:rate:${options.keyId}`;
    this.limit = options.rateLimit.limit;
    this.windowMs = options.rateLimit.windowSeconds * 1000;
    this.marginMs = options.marginMs ?? 1000;
    this.reserve = Math.min(options.backgroundReserve ?? Math.ceil(this.limit / 5), this.limit - 1);
    this.interactiveWaitMs = options.interactiveWaitMs ?? 2000;
    this.blockMs = options.blockMs ?? 60_000;
    this.maxInFlightMs = options.maxInFlightMs ?? 120_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => delay(ms).then(() => undefined));
  }

  /**
   * Take a slot. `money` waits as long as it takes (never dropped); `interactive` waits up to
   * interactiveWaitMs; `background` and `report` never wait and never use the reserve. Refusals throw
   * RateBudgetError with the seconds after which trying again makes sense. `signal` ends a wait at
   * once (its reason is thrown); no slot is taken after it fired.
   */
  async acquire(priority: Priority, signal?: AbortSignal): Promise<Slot> {
    const waiterId = randomUUID();
    const deadline = priority === 'interactive' ? this.now() + this.interactiveWaitMs : this.now();
    for (;;) {
      signal?.throwIfAborted();
      const decision = await this.decide(priority, waiterId);
      if (decision.granted) return { release: () => this.release(decision.id) };
      const now = this.now();
      const waitMs = Math.max(decision.freeAt - now, 1);
      if (priority !== 'money' && decision.freeAt > deadline) {
        throw new RateBudgetError(Math.max(1, Math.ceil(waitMs / 1000)));
      }
      // Nothing can free before freeAt; the jitter spreads waiters that wake together.
      try {
        await untilAborted(this.sleep(waitMs + Math.floor(Math.random() * 20)), signal);
      } catch (error) {
        // Given up: the slots it was waiting for are no longer kept for it.
        await this.update((state) => {
          delete state.moneyWaiting[waiterId];
        });
        throw error;
      }
    }
  }

  /** The service answered 429: the key is blocked, so nobody sends until the block is over. */
  async reportRateLimited(retryAfterMs?: number): Promise<void> {
    const until = this.now() + (retryAfterMs ?? this.blockMs) + this.marginMs;
    await this.update((state) => {
      state.blockedUntil = Math.max(state.blockedUntil, until);
    });
  }

  async budget(): Promise<RateBudget> {
    const state = (await this.store.get<LimiterState>(this.stateKey)) ?? emptyState();
    const now = this.now();
    const taken = state.slots.map((slot) => this.freeAt(slot, now)).filter((at) => at > now);
    const used = Math.min(taken.length, this.limit);
    const blockedForSeconds = Math.max(0, Math.ceil((state.blockedUntil - now) / 1000));
    return {
      limit: this.limit,
      used,
      remaining: blockedForSeconds > 0 ? 0 : this.limit - used,
      resetsInSeconds: taken.length ? Math.ceil((Math.min(...taken) - now) / 1000) : 0,
      blockedForSeconds,
    };
  }

  private decide(priority: Priority, waiterId: string): Promise<Decision> {
    return this.update((state, now) => {
      const taken = state.slots
        .map((slot) => this.freeAt(slot, now))
        .filter((at) => at > now)
        .sort((a, b) => a - b);
      const moneyWaiting = Object.entries(state.moneyWaiting).filter(
        ([id, expiry]) => id !== waiterId && expiry > now,
      ).length;
      const backgroundSlots = this.limit - this.reserve;
      const capacity =
        this.limit -
        (priority === 'background' || priority === 'report' ? this.reserve : 0) -
        // One background slot is left to other background work, when there are two to share.
        (priority === 'report' && backgroundSlots > 1 ? 1 : 0) -
        (priority === 'money' ? 0 : moneyWaiting);
      if (now >= state.blockedUntil && taken.length < capacity) {
        const id = randomUUID();
        state.slots.push({ id, start: now });
        delete state.moneyWaiting[waiterId];
        return { granted: true, id };
      }
      // The (taken - capacity + 1)-th slot to free is the first moment this caller could go.
      const needed = Math.max(taken.length - Math.max(capacity, 0), 0);
      const slotFree = taken[needed] ?? now + this.windowMs + this.marginMs;
      const freeAt = Math.max(slotFree, state.blockedUntil);
      if (priority === 'money') state.moneyWaiting[waiterId] = freeAt + 10_000;
      return { granted: false, freeAt };
    });
  }

  private async release(id: string): Promise<void> {
    await this.update((state, now) => {
      const slot = state.slots.find((entry) => entry.id === id);
      if (slot && slot.end === undefined) slot.end = now;
    });
  }

  /** When a slot stops counting: a full window (plus margin) after its request finished. */
  private freeAt(slot: SlotEntry, now: number): number {
    const span = this.windowMs + this.marginMs;
    if (slot.end !== undefined) return slot.end + span;
    if (now - slot.start > this.maxInFlightMs) return slot.start + this.maxInFlightMs + span;
    return now + span; // still in flight: it cannot free before a full window after it ends
  }

  /**
   * One change of the shared state, written only over the state it was made from: a holder whose lock
   * lapsed while it stalled (another replica then took it) must not write over that replica's slots, or
   * the budget would count fewer requests than were made and the service would block the key.
   */
  private async update<T>(change: (state: LimiterState, now: number) => T): Promise<T> {
    for (;;) {
      try {
        const done = await this.store.withLock(this.stateKey, async () => {
          const read = await this.store.get<LimiterState>(this.stateKey);
          const state = read === undefined ? emptyState() : structuredClone(read);
          const now = this.now();
          const result = change(state, now);
          this.prune(state, now);
          return (await this.store.compareAndSet(this.stateKey, read, state)) ? { result } : undefined;
        });
        // Written over by another replica since it was read: read it again and decide again.
        if (done) return done.result;
      } catch (error) {
        // A busy lock is not a refusal: money must never be dropped for it, so try again.
        if (!(error instanceof LockTimeoutError)) throw error;
      }
    }
  }

  private prune(state: LimiterState, now: number): void {
    state.slots = state.slots.filter((slot) => this.freeAt(slot, now) > now);
    for (const [id, expiry] of Object.entries(state.moneyWaiting)) {
      if (expiry <= now) delete state.moneyWaiting[id];
    }
  }
}
