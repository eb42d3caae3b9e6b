// The service's limiter: a fixed window per API key; going over blocks the key outright for a while,
// and every call during the block is refused (429, no Retry-After), even ones that would succeed.

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  blockMs: number;
}

interface KeyWindow {
  startedAt: number;
  count: number;
  blockedUntil: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, KeyWindow>();

  constructor(
    private readonly options: RateLimitOptions | false,
    private readonly now: () => number,
  ) {}

  /** Count one request for `key`; false when it must be refused. */
  allow(key: string): boolean {
    if (!this.options) return true;
    const { limit, windowMs, blockMs } = this.options;
    const now = this.now();
    let window = this.windows.get(key);
    if (window && now < window.blockedUntil) return false;
    if (!window || now - window.startedAt >= windowMs || window.blockedUntil > 0) {
      window = { startedAt: now, count: 0, blockedUntil: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > limit) {
      window.blockedUntil = now + blockMs;
      return false;
    }
    return true;
  }
}
