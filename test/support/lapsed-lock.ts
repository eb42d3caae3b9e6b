// A replica whose lock has lapsed: its `withLock` of a request (or of whatever else its prefix names)
// no longer keeps anyone out (as after a GC pause or a stalled renewal, when another replica took the
// lock over), and one write of its choice waits at a gate, so the test can let another replica change
// the request in between the lapsed replica's read and its late write.
import type { Store } from '../../src/store/index.js';

type WrittenValue = { state?: string } & Record<string, unknown>;

export interface Gate {
  /** Resolves once the lapsed replica's gated write has started and is waiting. */
  arrived: Promise<void>;
  /** Let it go on. */
  release(): void;
}

export class LapsedLock {
  /** `prefix`: of the locks that lapse and the keys whose writes can be held. */
  constructor(private readonly prefix = 'approval:') {}

  private gate:
    | { when: (value: WrittenValue) => boolean; wait: Promise<void>; arrive: () => void }
    | undefined;

  /** The next write under the prefix (an approval request) for which `when` is true waits until released. */
  holdWrite(when: (value: WrittenValue) => boolean): Gate {
    let arrive!: () => void;
    let release!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const wait = new Promise<void>((resolve) => (release = resolve));
    this.gate = { when, wait, arrive };
    return { arrived, release };
  }

  wrap(store: Store): Store {
    const atGate = async (key: string, value: unknown) => {
      const gate = this.gate;
      if (!gate || !key.startsWith(this.prefix) || !gate.when(value as WrittenValue)) return;
      this.gate = undefined;
      gate.arrive();
      await gate.wait;
    };
    return new Proxy(store, {
      get: (target, property) => {
        if (property === 'withLock') {
          return (name: string, fn: () => Promise<unknown>, options?: Parameters<Store['withLock']>[2]) =>
            name.startsWith(this.prefix) ? fn() : target.withLock(name, fn, options);
        }
        if (property === 'set') {
          return async (key: string, value: unknown, ttlMs?: number) => {
            await atGate(key, value);
            return target.set(key, value, ttlMs);
          };
        }
        if (property === 'compareAndSet') {
          return async (key: string, expected: unknown, next: unknown) => {
            await atGate(key, next);
            return target.compareAndSet(key, expected, next);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}
