// Read-through caches in the store, so replicas share them and the request budget is spent once.
// Concurrent misses in one process share one load; those that joined it go on one at a time, each when
// `resume` says (the bot: a turn of the event loop of its own), so the answers a slow shared read
// releases together are not all built on one turn while acks wait.
// A value is dated when its request went out, never when the answer arrived: the service saw nothing
// later than that, so what moved after it is still counted as not shown. A load started before an
// `invalidate` is neither joined by later callers nor stored (its own caller still gets its answer).
import type { Store } from '../store/index.js';

interface Entry<T> {
  value: T;
  /** When the read was asked: the value's date. */
  at: number;
  /** When its answer arrived: the entry's life counts from here, so a slow read still serves others. */
  got?: number;
}

export interface Cached<T> {
  value: T;
  /** When the request that read the value went out: the service's answer is no older. */
  asOf: Date;
}

export class ResponseCache {
  private readonly loading = new Map<string, Promise<Cached<unknown>>>();
  /** Moved by each `invalidate` of a key: a load stores only if its key's generation has not moved. */
  private readonly generations = new Map<string, number>();

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
      if (hit && this.now() - (hit.got ?? hit.at) < ttlMs)
        return { value: hit.value, asOf: new Date(hit.at) };
      const pending = this.loading.get(key);
      if (pending) return this.joined(pending as Promise<Cached<T>>);
    }
    const loaded = this.load(key, ttlMs, load, options);
    if (!options.signal) this.loading.set(key, loaded);
    try {
      return await loaded;
    } finally {
      if (this.loading.get(key) === loaded) this.loading.delete(key);
    }
  }

  private async load<T>(
    key: string,
    ttlMs: number,
    load: () => Promise<T>,
    options: { keep?: (value: T) => boolean; remember?: boolean },
  ): Promise<Cached<T>> {
    const at = this.now();
    const generation = this.generationOf(key);
    const value = await load();
    if (options.keep?.(value) !== false && this.generationOf(key) === generation)
      await this.put(key, { value, at, got: this.now() }, ttlMs, options.remember === true);
    return { value, asOf: new Date(at) };
  }

  /** A store hiccup costs a later re-read, not the answer. */
  private async put<T>(key: string, entry: Entry<T>, ttlMs: number, remember: boolean): Promise<void> {
    await this.store.set<Entry<T>>(key, entry, ttlMs).catch(() => undefined);
    // Kept past its lifetime for displays that say "as of" and must not read the service.
    if (remember) await this.store.set<Entry<T>>(`${key}:last`, entry).catch(() => undefined);
  }

  private generationOf(key: string): number {
    return this.generations.get(key) ?? 0;
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

  /** Forgets the value, and makes a load of it under way here neither joinable nor stored. */
  async invalidate(name: string): Promise<void> {
    const key = `cngn:cache:${this.scope}:${name}`;
    this.generations.set(key, this.generationOf(key) + 1);
    this.loading.delete(key);
    await this.store.delete(key);
  }
}
