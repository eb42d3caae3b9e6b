// A flood of one refusal (2,000 forged deliveries) would write 2,000 identical log lines and bury
// everything else. The first of a kind is written at once; while more of it keep coming, one line a
// minute says how many; a minute without any closes the kind, so the next one is written at once again.
import type { Logger } from '../log.js';

export const SUMMARY_WINDOW_MS = 60_000;
/** Kinds counted at once; a further kind is written as it comes (the kinds are the intake's own words). */
const MAX_KINDS = 50;

export class RepeatedWarnings {
  private readonly counting = new Map<string, { more: number; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly log: Logger,
    private readonly windowMs = SUMMARY_WINDOW_MS,
  ) {}

  warn(message: string): void {
    const kind = this.counting.get(message);
    if (kind) {
      kind.more += 1;
      return;
    }
    this.log.warn(message);
    if (this.counting.size < MAX_KINDS) this.count(message);
  }

  /** Writes the counts not yet written and stops counting (at shutdown). */
  flush(): void {
    for (const [message, kind] of this.counting) {
      clearTimeout(kind.timer);
      if (kind.more > 0) this.log.warn(summary(message, kind.more));
    }
    this.counting.clear();
  }

  private count(message: string): void {
    const timer = setTimeout(() => this.endWindow(message), this.windowMs);
    timer.unref?.();
    this.counting.set(message, { more: 0, timer });
  }

  private endWindow(message: string): void {
    const kind = this.counting.get(message);
    this.counting.delete(message);
    if (!kind || kind.more === 0) return;
    this.log.warn(summary(message, kind.more));
    this.count(message);
  }
}

const summary = (message: string, more: number) => `${message} (${more} more like it in the last minute)`;
