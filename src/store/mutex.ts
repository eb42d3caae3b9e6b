// A keyed in-process mutex: calls with the same key run one after another.
import { setTimeout as sleep } from 'node:timers/promises';

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /**
   * Wait at most waitMs for the key's turn: the function that ends the turn, or undefined when the
   * wait ran out (the turn is then passed on untouched when it comes).
   */
  async acquire(key: string, waitMs: number): Promise<(() => void) | undefined> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const tail = previous.then(() => ended);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    const timer = new AbortController();
    const ourTurn = await Promise.race([
      previous.then(() => true),
      sleep(waitMs, false, { signal: timer.signal }).catch(() => false),
    ]);
    timer.abort();
    if (ourTurn) return end;
    void previous.then(end);
    return undefined;
  }
}
