// A store wrapper a test controls: hold callers of a named lock at its door until a given number
// have arrived (so a race is decided by the lock, not by HTTP timing), make reads fail or slow, make
// writes slow, refuse a conditional write, answer one late (a client-side timeout whose statement
// commits afterwards), lose the answer to a write that landed, end a wait for a lock as a store whose
// wait ran out, or make the store unreachable for its health check (ping).
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore, LockTimeoutError, type Store } from '../../src/store/index.js';
import { FakeSlack } from './fake-slack.js';
import { test as base } from './fixtures.js';

/** A conditional write answered with an error while the store has not applied it yet. */
interface LateSwap {
  matches: (next: unknown) => boolean;
  caught: (land: () => Promise<boolean>) => void;
}

interface Door {
  remaining: number;
  waiting: Array<() => void>;
  allArrived: () => void;
  latestFirst: boolean;
}

/** One set of controls, shared by every store it wraps (two replicas meet at the same door). */
export class StoreControls {
  private readonly doors = new Map<string, Door>();
  /** Each failing prefix, with the message its reads fail with (absent: one naming the key). */
  private readonly failingReads = new Map<string, string | undefined>();
  private readonly slowed = new Map<string, number>();
  private readonly slowedReads = new Map<string, number>();
  private readonly hung = new Map<string, Promise<void>>();
  private readonly arrivals = new Map<string, () => void>();
  private readonly heldWrites = new Map<string, Promise<void>>();
  private readonly failingWrites = new Set<string>();
  private readonly refusedSwaps = new Map<string, () => Promise<unknown>>();
  private readonly lateSwaps = new Map<string, LateSwap>();
  private readonly timedOutLocks = new Map<string, () => Promise<unknown>>();
  private readonly lostAnswers = new Set<string>();
  private unreachable = false;

  /** `ping` (what /readyz asks) throws until the returned function is called. */
  failPings(): () => void {
    this.unreachable = true;
    return () => {
      this.unreachable = false;
    };
  }

  /**
   * The next `count` callers of `withLock(name)` wait until all `count` have arrived, then enter
   * together, in the order they arrived (`latestFirst`: the last to arrive first). Resolves once they
   * have all arrived.
   */
  holdLock(name: string, count: number, { latestFirst = false } = {}): Promise<void> {
    return new Promise((allArrived) => {
      this.doors.set(name, { remaining: count, waiting: [], allArrived, latestFirst });
    });
  }

  /**
   * Lets in whoever waits at `name`'s door without waiting for the rest (a caller that gave up before
   * reaching the lock never comes), and resolves holdLock's promise.
   */
  openLock(name: string): void {
    const door = this.doors.get(name);
    if (!door) return;
    this.doors.delete(name);
    door.allArrived();
    letIn(door);
  }

  /**
   * `get` of keys starting with `prefix` throws until the returned function is called, with `message`
   * if given (a driver's own words).
   */
  failReads(prefix: string, message?: string): () => void {
    this.failingReads.set(prefix, message);
    return () => this.failingReads.delete(prefix);
  }

  /** `get` of keys starting with `prefix` waits until the returned function is called. */
  hangReads(prefix: string): () => void {
    let release!: () => void;
    this.hung.set(prefix, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.hung.delete(prefix);
      release();
    };
  }

  /** As hangReads, and `arrived` resolves once such a read waits (the caller has got that far). */
  holdReads(prefix: string): { arrived: Promise<void>; release: () => void } {
    const arrived = new Promise<void>((resolve) => this.arrivals.set(prefix, resolve));
    const release = this.hangReads(prefix);
    return {
      arrived,
      release: () => {
        this.arrivals.delete(prefix);
        release();
      },
    };
  }

  /**
   * `get` of keys starting with `prefix` first waits `ms` (a busy store's late answer), until the
   * returned function is called.
   */
  slowReads(prefix: string, ms: number): () => void {
    this.slowedReads.set(prefix, ms);
    return () => this.slowedReads.delete(prefix);
  }

  /** `set` of keys starting with `prefix` first waits `ms`, until the returned function is called. */
  slowWrites(prefix: string, ms: number): () => void {
    this.slowed.set(prefix, ms);
    return () => this.slowed.delete(prefix);
  }

  /** `set` of keys starting with `prefix` waits until the returned function is called. */
  holdWrites(prefix: string): () => void {
    let release!: () => void;
    this.heldWrites.set(prefix, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.heldWrites.delete(prefix);
      release();
    };
  }

  /** `set` of keys starting with `prefix` throws until the returned function is called. */
  failWrites(prefix: string): () => void {
    this.failingWrites.add(prefix);
    return () => this.failingWrites.delete(prefix);
  }

  /**
   * The next `compareAndSet` of a key starting with `prefix` is refused (false, nothing written), as
   * when another replica wrote the key first; `meanwhile` runs before it answers.
   */
  refuseSwap(prefix: string, meanwhile: () => Promise<unknown> = async () => {}): void {
    this.refusedSwaps.set(prefix, meanwhile);
  }

  /**
   * The next `compareAndSet` of a key starting with `prefix` whose new value `matches` fails as a
   * client-side query timeout does (the caller hears an error) while the store has not applied it:
   * `landed()` applies it then, as a statement the server still commits, and answers whether it wrote.
   */
  answerLate(
    prefix: string,
    matches: (next: unknown) => boolean = () => true,
  ): { landed: () => Promise<boolean> } {
    const land = new Promise<() => Promise<boolean>>((caught) =>
      this.lateSwaps.set(prefix, { matches, caught }),
    );
    return { landed: async () => (await land)() };
  }

  /**
   * The next write (`set` or `compareAndSet`) of a key starting with `prefix` lands, then throws, as a
   * connection lost before the store's answer: the caller cannot tell it from a write that never landed.
   */
  loseAnswer(prefix: string): void {
    this.lostAnswers.add(prefix);
  }

  /** `written`, or the error of a lost answer when one is set for `key` (once). */
  private answered<T>(key: string, written: T): T {
    const lost = [...this.lostAnswers].find((prefix) => key.startsWith(prefix));
    if (lost === undefined) return written;
    this.lostAnswers.delete(lost);
    throw new Error(`connection lost before the answer (test): ${key}`);
  }

  /**
   * The next `withLock(name)` enters nothing: `meanwhile` runs, then it throws LockTimeoutError, as on a
   * store whose wait for that lock ran out (Redis and PostgreSQL wait 10 s unless told).
   */
  timeOutLock(name: string, meanwhile: () => Promise<unknown> = async () => {}): void {
    this.timedOutLocks.set(name, meanwhile);
  }

  wrap(store: Store): Store {
    return new Proxy(store, {
      get: (target, property) => {
        if (property === 'withLock') {
          return async (
            name: string,
            fn: () => Promise<unknown>,
            options?: Parameters<Store['withLock']>[2],
          ) => {
            const meanwhile = this.timedOutLocks.get(name);
            if (meanwhile) {
              this.timedOutLocks.delete(name);
              await meanwhile();
              throw new LockTimeoutError(`Timed out waiting for lock ${name} (test)`);
            }
            await this.atDoor(name);
            return target.withLock(name, fn, options);
          };
        }
        if (property === 'ping') {
          return async () => {
            if (this.unreachable) throw new Error('connection refused (test)');
            return target.ping();
          };
        }
        if (property === 'get') {
          return async (key: string) => {
            const [prefix, hang] = [...this.hung].find(([held]) => key.startsWith(held)) ?? [];
            if (prefix) this.arrivals.get(prefix)?.();
            if (hang) await hang;
            const slow = [...this.slowedReads].find(([held]) => key.startsWith(held))?.[1];
            if (slow) await new Promise((resolve) => setTimeout(resolve, slow));
            const failing = [...this.failingReads].find(([prefix]) => key.startsWith(prefix));
            if (failing) throw new Error(failing[1] ?? `store read failed (test): ${key}`);
            return target.get(key);
          };
        }
        if (property === 'set') {
          return async (key: string, ...rest: unknown[]) => {
            const wait = [...this.slowed].find(([prefix]) => key.startsWith(prefix))?.[1];
            if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
            const held = [...this.heldWrites].find(([prefix]) => key.startsWith(prefix))?.[1];
            if (held) await held;
            if ([...this.failingWrites].some((prefix) => key.startsWith(prefix))) {
              throw new Error(`store write failed (test): ${key}`);
            }
            await (target.set as (...a: unknown[]) => Promise<void>)(key, ...rest);
            return this.answered(key, undefined);
          };
        }
        if (property === 'compareAndSet') {
          return async (key: string, expected: unknown, next: unknown) => {
            const late = [...this.lateSwaps].find(
              ([prefix, swap]) => key.startsWith(prefix) && swap.matches(next),
            );
            if (late) {
              this.lateSwaps.delete(late[0]);
              late[1].caught(() => target.compareAndSet(key, expected, next));
              throw new Error('Query read timeout (test)');
            }
            const refused = [...this.refusedSwaps].find(([prefix]) => key.startsWith(prefix));
            if (!refused) return this.answered(key, await target.compareAndSet(key, expected, next));
            this.refusedSwaps.delete(refused[0]);
            await refused[1]();
            return false;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private atDoor(name: string): Promise<void> {
    const door = this.doors.get(name);
    if (!door) return Promise.resolve();
    return new Promise((enter) => {
      door.waiting.push(enter);
      door.remaining -= 1;
      if (door.remaining > 0) return;
      this.doors.delete(name);
      door.allArrived();
      letIn(door);
    });
  }
}

/** Whoever waits at `door`, let in in its order. */
function letIn(door: Door): void {
  for (const open of door.latestFirst ? [...door.waiting].reverse() : door.waiting) open();
}

/**
 * A memory store behind controls, a fake Slack and a sandbox that settles nothing by itself: what a
 * test of the bot's start needs (`world.store` is the controlled one, `world.memory` the store under it).
 */
export const controlledStartTest = base.extend('world', async ({ defer }) => {
  const memory = await createStore('memory://');
  const slack = await FakeSlack.start();
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  defer(() => memory.close());
  defer(() => slack.stop());
  defer(() => sandbox.stop());
  const controls = new StoreControls();
  return { memory, store: controls.wrap(memory), controls, slack, sandbox };
});
