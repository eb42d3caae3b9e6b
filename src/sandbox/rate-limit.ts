// The service's limiter: at most `limit` requests per `windowMs` per API key; going over blocks the key
// outright for `blockMs`, and every call during the block is refused (429, no Retry-After), even ones
// that would succeed. The service does not say how it counts its window, so the default is the
// strictest reading, "never more than 20 in ANY 60 s" (sliding); `fixed` counts from a window's first
// request, which lets up to twice the limit through across a window boundary.

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  blockMs: number;
  mode?: 'sliding' | 'fixed';
}

interface KeyState {
  /** Arrival times of the requests counted in the current window (oldest first). */
  arrivals: number[];
  windowStartedAt: number;
  blockedUntil: number;
}

export class RateLimiter {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly options: RateLimitOptions | false,
    private readonly now: () => number,
  ) {}

  /** Count one request for `key`; false when it must be refused. */
  allow(key: string): boolean {
    if (!this.options) return true;
    const { limit, windowMs, blockMs, mode = 'sliding' } = this.options;
    const now = this.now();
    let state = this.keys.get(key);
    if (state && now < state.blockedUntil) return false;
    if (!state || state.blockedUntil > 0) {
      state = { arrivals: [], windowStartedAt: now, blockedUntil: 0 };
      this.keys.set(key, state);
    }
    if (mode === 'fixed') {
      if (now - state.windowStartedAt >= windowMs) {
        state.arrivals = [];
        state.windowStartedAt = now;
      }
    } else {
      while (state.arrivals.length > 0 && now - (state.arrivals[0] as number) >= windowMs)
        state.arrivals.shift();
    }
    state.arrivals.push(now);
    if (state.arrivals.length > limit) {
      state.blockedUntil = now + blockMs;
      return false;
    }
    return true;
  }
}
