// A store a test kills as if its process died at exactly one point: the matching call reaches the
// store, and neither it nor any later call ever answers, so nothing the process would do next (a
// mark, a service call, a lease renewal) happens. Locks it held are let go, as their TTL (Redis) or
// the end of the process (SQLite, memory) would let them go.
import type { Store } from '../../src/store/index.js';

export type DeathPoint = (method: string, args: unknown[]) => boolean;

const never = new Promise<never>(() => {});

export class DyingStore {
  readonly died: Promise<void>;
  private dead = false;
  private death!: () => void;
  private point: DeathPoint | undefined;

  constructor(readonly inner: Store) {
    this.died = new Promise((resolve) => {
      this.death = resolve;
    });
  }

  /** Die right after the first call for which `when` is true has been carried out. */
  dieAfter(when: DeathPoint): void {
    this.point = when;
  }

  get store(): Store {
    return new Proxy(this.inner, {
      get: (target, name) => {
        const value: unknown = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.dead) return never;
          if (name === 'withLock') {
            const [lock, fn, options] = args as Parameters<Store['withLock']>;
            const held = target.withLock(lock, () => Promise.race([fn(), this.died]), options);
            return held.then((result) => (this.dead ? never : result));
          }
          const result = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (!this.point?.(String(name), args)) return result;
          this.point = undefined;
          return result.then(() => {
            this.dead = true;
            this.death();
            return never;
          });
        };
      },
    });
  }
}

/** The write of an approval request whose execution lease is in `phase`. */
export function writesPhase(id: string, phase: 'claimed' | 'sending'): DeathPoint {
  return (method, args) => {
    if (method !== 'compareAndSet' || args[0] !== `approval:${id}`) return false;
    const next = args[2] as { state?: string; execution?: { phase?: string } };
    return next.state === 'executing' && next.execution?.phase === phase;
  };
}
