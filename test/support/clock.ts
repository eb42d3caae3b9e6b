// Clocks for tests of waits that last seconds, shared by whatever reads the time, so that no test sits
// out a rate limit's window in real time.

/**
 * Time stands still while any caller the test tracks is at work (taking a slot, in flight to the
 * sandbox), and once every one of them sleeps on the clock it jumps to the earliest wake-up: requests
 * made together arrive at one instant, the hardest case for a limit per window.
 */
export class VirtualClock {
  private time: number;
  private working = 0;
  private readonly sleepers: Array<{ at: number; wake: () => void }> = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((wake) => {
      this.sleepers.push({ at: this.time + ms, wake });
      this.step();
    });

  /** Runs `work` as a caller the clock waits for: time moves only while every such caller sleeps. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.working += 1;
    try {
      return await work();
    } finally {
      this.working -= 1;
      this.step();
    }
  }

  private step(): void {
    if (this.sleepers.length === 0 || this.sleepers.length < this.working) return;
    this.sleepers.sort((a, b) => a.at - b.at);
    this.time = Math.max(this.time, this.sleepers[0]?.at ?? this.time);
    while (this.sleepers.length > 0 && (this.sleepers[0]?.at ?? Infinity) <= this.time) {
      this.sleepers.shift()?.wake();
    }
  }
}

/**
 * A clock that moves only by what was slept on it: a sleep returns at once and moves it on by its
 * length. Real time does not move it, so a busy machine's slowness never refills a rate limit.
 */
export class SkippingClock {
  private skipped = 0;
  private readonly start = Date.now();

  readonly now = (): number => this.start + this.skipped;

  readonly sleep = async (ms: number): Promise<void> => {
    this.skipped += ms;
  };
}
