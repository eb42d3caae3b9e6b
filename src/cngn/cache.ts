// Read-through caches in the store, so replicas share them and the request budget is spent once.
// Concurrent misses in one process share one load; those that joined it go on one at a time, each when
// `resume` says (the bot: a turn of the event loop of its own), so the answers a slow shared read
// releases together are not all built on one turn while acks wait.
import type { Store } from '../store/index.js';

interface Entry<T> {
  value: T;
  at: number;
}

export interface Cached<T> {
  value: T;
  /** When the value was read from the service. */
  asOf: Date;
}

export class ResponseCache {
  private readonly loading = new Map<string, Promise<Cached<unknown>>>();

  constructor(
    private readonly store: Store,
    /** Environment + key id: test and live (and two keys) never see each other's entries. */
    private readonly scope: string,
    private readonly now: () => number = Date.now,
    /** How a caller that joined a load already under way goes on once it is done; none: at once. */
    private readonly resume?: () => Promise<void>,
  ) {}

  async get<T>(
    name: string,
    ttlMs: number,
    load: () => Promise<T>,
    options: {
      fresh?: boolean;
      keep?: (value: T) => boolean;
      remember?: boolean;
      /** The load may be cut off: others do not join it (they would get its abort). */
      signal?: AbortSignal | undefined;
    } = {},
  ): Promise<Cached<T>> {
    const key = `cngn:cache:${this.scope}:${name}`;
    if (!options.fresh) {
      const hit = await this.store.get<Entry<T>>(key);
      if (hit && this.now() - hit.at < ttlMs) return { value: hit.value, asOf: new Date(hit.at) };
      const pending = this.loading.get(key);
      if (pending) return this.joined(pending as Promise<Cached<T>>);
    }
    const loaded = (async () => {
      const value = await load();
      const at = this.now();
      // A store hiccup costs a later re-read, not this answer.
      if (options.keep?.(value) !== false) {
        await this.store.set<Entry<T>>(key, { value, at }, ttlMs).catch(() => undefined);
        // Kept past its lifetime for displays that say "as of" and must not read the service.
        if (options.remember)
          await this.store.set<Entry<T>>(`${key}:last`, { value, at }).catch(() => undefined);
      }
      return { value, asOf: new Date(at) };
    })();
    if (!options.signal) this.loading.set(key, loaded);
    try {
      return await loaded;
    } finally {
      if (this.loading.get(key) === loaded) this.loading.delete(key);
    }
  }

  private async joined<T>(pending: Promise<Cached<T>>): Promise<Cached<T>> {
    try {
      return await pending;
    } finally {
      // A failed load releases its callers as a returned one does: one at a time.
      await this.resume?.();
    }
  }

  /** The last value loaded with `remember`, however old; never reads the service. */
  async last<T>(name: string): Promise<Cached<T> | undefined> {
    const hit = await this.store.get<Entry<T>>(`cngn:cache:${this.scope}:${name}:last`);
    return hit ? { value: hit.value, asOf: new Date(hit.at) } : undefined;
  }

  async invalidate(name: string): Promise<void> {
    await this.store.delete(`cngn:cache:${this.scope}:${name}`);
  }
}
