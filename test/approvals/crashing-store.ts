// A store whose next matching call fails, as if the process died (or the store stopped answering) at
// exactly that point: the writes of one step are separate, so a crash can fall between any two.
import type { Store } from '../../src/store/index.js';

export type CrashPoint = (method: string, key: string) => boolean;

export class CrashingStore {
  private crash: CrashPoint | undefined;

  constructor(readonly inner: Store) {}

  /** Fail the first call for which `when` is true; later calls go through. */
  crashAt(when: CrashPoint): void {
    this.crash = when;
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
            this.crash = undefined;
            return Promise.reject(new Error('the process died here'));
          }
          return value.apply(target, args);
        };
      },
    });
  }
}
