// A store whose next matching call (or every one) fails, as if the process died (or the store stopped answering) at
// exactly that point: the writes of one step are separate, so a crash can fall between any two. And
// `crashingTest`, the engine on such a store.
import { createStore, type Store } from '../../src/store/index.js';
import { engineTest } from '../support/engine.js';

export type CrashPoint = (method: string, key: string) => boolean;

export class CrashingStore {
  private crash: CrashPoint | undefined;
  private every = false;

  constructor(readonly inner: Store) {}

  /** Fail the first call for which `when` is true; later calls go through. */
  crashAt(when: CrashPoint): void {
    this.crash = when;
    this.every = false;
  }

  /** Fail every call for which `when` is true, until disarmed: a store that keeps refusing one write. */
  failEvery(when: CrashPoint): void {
    this.crash = when;
    this.every = true;
  }

  disarm(): void {
    this.crash = undefined;
  }

  get store(): Store {
    return new Proxy(this.inner, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.crash?.(String(name), String(args[0]))) {
            if (!this.every) this.crash = undefined;
            return Promise.reject(new Error('the process died here'));
          }
          return value.apply(target, args);
        };
      },
    });
  }
}

/** `engineTest` plus `crashing`, a memory store that can fail one call (or every one), and `fx`, the engine on it. */
export const crashingTest = engineTest
  .extend('crashing', async ({ defer }) => {
    const crashing = new CrashingStore(await createStore('memory://'));
    defer(() => crashing.inner.close());
    return crashing;
  })
  .extend('fx', async ({ startEngine, crashing }) => startEngine({ store: crashing.store }));
