// Bringing a request's Slack side up to date, one replica at a time, without piling up runs: the work
// for a key runs under a store lock, and a run still waiting for that lock will read the newest state
// when it starts, so it stands for any call made meanwhile. Shared by the approval message presenter
// and the approvers' DMs; both never throw to their callers and are waited for at shutdown.
import type { LockOptions, Store } from '../../store/index.js';

export class CoalescedRuns {
  private readonly running = new Set<Promise<void>>();
  /** Per key, the run that has not yet started its work. */
  private readonly waiting = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly lock: LockOptions,
    private readonly onError: (key: string, error: unknown) => void,
  ) {}

  /** Run `work` for `key` under the lock `lockName`; `fresh` starts a new run even if one waits. */
  run(
    key: string,
    lockName: string,
    work: () => Promise<void>,
    options: { fresh?: boolean } = {},
  ): Promise<void> {
    const waiting = this.waiting.get(key);
    if (waiting && !options.fresh) return waiting;
    const run = this.track(
      this.store
        .withLock(
          lockName,
          () => {
            if (this.waiting.get(key) === run) this.waiting.delete(key);
            return work();
          },
          this.lock,
        )
        .catch((error: unknown) => this.onError(key, error))
        .finally(() => {
          if (this.waiting.get(key) === run) this.waiting.delete(key);
        }),
    );
    this.waiting.set(key, run);
    return run;
  }

  /** Count `work` among what idle() waits for. */
  track(work: Promise<void>): Promise<void> {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return work;
  }

  /** Resolves when the work started so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
