// A store on which the bot stops as it writes a delegation into effect (its `delegations:` set): that
// write's answer never comes, so nothing the process would do after it runs. The test says whether the
// write itself reached the store before the stop, and settles the hung answer with `stop` once the
// engine's restart (a tracker pass after the lease) is done.
import type { Store } from '../../src/store/index.js';

export function stoppedAtDelegationWrite(inner: Store, { landed }: { landed: boolean }) {
  let stop!: (error: Error) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => {});
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'addToSet') return value.bind(target);
      const write = (key: string, ...rest: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).call(target, key, ...rest);
      return async (key: string, ...rest: unknown[]) => {
        if (!key.startsWith('delegations:')) return write(key, ...rest);
        if (landed) await write(key, ...rest);
        return stopped;
      };
    },
  });
  return { store, stop };
}
