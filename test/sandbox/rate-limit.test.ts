import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/sandbox/rate-limit.js';

function limiter(mode: 'sliding' | 'fixed') {
  const clock = { now: 0 };
  const limit = new RateLimiter({ limit: 3, windowMs: 60_000, blockMs: 60_000, mode }, () => clock.now);
  return { clock, allow: (key = 'k') => limit.allow(key) };
}

describe('the service rate limit', () => {
  it('sliding: never more than the limit in any window, wherever the window starts', () => {
    const { clock, allow } = limiter('sliding');
    clock.now = 0;
    expect(allow()).toBe(true);
    clock.now = 50_000;
    expect([allow(), allow()]).toEqual([true, true]);
    clock.now = 61_000; // the first request has left the window; the two at 50 s have not
    expect(allow()).toBe(true);
    expect(allow()).toBe(false); // 4 within 50 s..61 s
    clock.now = 120_000; // still blocked: the block lasts 60 s from the refusal at 61 s
    expect(allow()).toBe(false);
    clock.now = 121_000;
    expect(allow()).toBe(true);
  });

  it('fixed: counts from the first request of a window, so a boundary lets a burst through', () => {
    const { clock, allow } = limiter('fixed');
    clock.now = 0;
    expect(allow()).toBe(true);
    clock.now = 59_000;
    expect([allow(), allow()]).toEqual([true, true]);
    clock.now = 60_000;
    expect([allow(), allow(), allow()]).toEqual([true, true, true]);
    expect(allow()).toBe(false);
  });

  it('keeps one budget per key', () => {
    const { allow } = limiter('sliding');
    expect([allow('a'), allow('a'), allow('a'), allow('a')]).toEqual([true, true, true, false]);
    expect(allow('b')).toBe(true);
  });

  it('refuses every call during a block, and the refusals do not extend it', () => {
    const { clock, allow } = limiter('sliding');
    for (let i = 0; i < 3; i++) allow();
    expect(allow()).toBe(false);
    clock.now = 30_000;
    expect(allow()).toBe(false);
    clock.now = 60_000;
    expect(allow()).toBe(true);
  });
});
