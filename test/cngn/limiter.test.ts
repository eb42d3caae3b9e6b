// The shared limiter on a fake clock: priorities, the reserve, "busy" answers with retry seconds,
// blocks after a 429, and the CNGN_RATE_LIMIT parser. No timers: sleeping advances the clock.
import { describe, expect, it } from 'vitest';
import { RateBudgetError } from '../../src/cngn/errors.js';
import {
  type LimiterOptions,
  type Priority,
  parseRateLimit,
  SharedRateLimiter,
  type Slot,
} from '../../src/cngn/limiter.js';
import { createStore } from '../../src/store/index.js';

/** A clock that only moves when someone sleeps, and records how long each sleep was. */
function fakeClock(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

async function limiterWith(
  limit = 20,
  windowSeconds = 60,
  extra: Pick<LimiterOptions, 'interactiveWaitMs' | 'sleep'> = {},
) {
  const clock = fakeClock();
  const store = await createStore('memory://', { prefix: `limiter-${Math.random()}` });
  const limiter = new SharedRateLimiter({
    store,
    keyId: 'k1',
    rateLimit: { limit, windowSeconds },
    marginMs: 1000,
    now: clock.now,
    sleep: clock.sleep,
    ...extra,
  });
  return { limiter, clock, store };
}

async function takeAndFinish(limiter: SharedRateLimiter, n: number, priority: Priority = 'money') {
  for (let i = 0; i < n; i++) await (await limiter.acquire(priority)).release();
}

describe('parseRateLimit', () => {
  it('reads N/<seconds>s and defaults to 20/60s', () => {
    expect(parseRateLimit('20/60s')).toEqual({ limit: 20, windowSeconds: 60 });
    expect(parseRateLimit(' 5 / 10s ')).toEqual({ limit: 5, windowSeconds: 10 });
    expect(parseRateLimit(undefined)).toEqual({ limit: 20, windowSeconds: 60 });
    expect(parseRateLimit('')).toEqual({ limit: 20, windowSeconds: 60 });
  });

  it('refuses anything else with the expected form in the message', () => {
    for (const bad of ['20', '20/60', '20/60m', '0/60s', '20/0s', 'x/60s', '-1/60s', '2.5/60s']) {
      expect(() => parseRateLimit(bad), bad).toThrow(/^must look like 20\/60s/);
    }
  });
});

describe('SharedRateLimiter', () => {
  it('grants the whole budget, then tells a reader when to try again', async () => {
    const { limiter } = await limiterWith(20, 60, { interactiveWaitMs: 2000 });
    await takeAndFinish(limiter, 20, 'interactive');
    const error = await limiter.acquire('interactive').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateBudgetError);
    // Slots free a window plus the margin after their requests ended: 61 s.
    expect((error as RateBudgetError).retryInSeconds).toBe(61);
    expect(await limiter.budget()).toMatchObject({ used: 20, remaining: 0, resetsInSeconds: 61 });
  });

  it('lets an interactive read wait briefly when a slot frees soon', async () => {
    const { limiter, clock } = await limiterWith(2, 60, { interactiveWaitMs: 2000 });
    await takeAndFinish(limiter, 1);
    clock.advance(59_500);
    await takeAndFinish(limiter, 1);
    const slot = await limiter.acquire('interactive');
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(1500);
    await slot.release();
  });

  it('makes money wait for a slot, however long, and never drops it', async () => {
    const { limiter, clock } = await limiterWith(3, 60);
    await takeAndFinish(limiter, 3);
    const before = clock.now();
    const slot = await limiter.acquire('money');
    expect(clock.now() - before).toBeGreaterThanOrEqual(61_000);
    await slot.release();
  });

  it('keeps the reserve from background work but not from people or money', async () => {
    const { limiter } = await limiterWith(20, 60);
    await takeAndFinish(limiter, 16, 'background');
    await expect(limiter.acquire('background')).rejects.toBeInstanceOf(RateBudgetError);
    await takeAndFinish(limiter, 2, 'interactive');
    await takeAndFinish(limiter, 2, 'money');
    expect((await limiter.budget()).remaining).toBe(0);
  });

  it("leaves one background slot from a report's reads to other background work", async () => {
    const { limiter } = await limiterWith(20, 60);
    await takeAndFinish(limiter, 15, 'report');
    await expect(limiter.acquire('report')).rejects.toBeInstanceOf(RateBudgetError);
    await (await limiter.acquire('background')).release();
    await expect(limiter.acquire('background')).rejects.toBeInstanceOf(RateBudgetError);
  });

  it('ends a wait at once when its signal fires, taking no slot and keeping none', async () => {
    let slept = () => {};
    const sleeping = new Promise<void>((resolve) => {
      slept = resolve;
    });
    // A sleep that never ends by itself: only the signal can end the wait.
    const sleep = () => {
      slept();
      return new Promise<void>(() => {});
    };
    const { limiter, clock } = await limiterWith(3, 60, { sleep });
    await takeAndFinish(limiter, 3);
    const cut = new AbortController();
    const waiting = limiter.acquire('money', cut.signal);
    await sleeping;
    cut.abort(new Error('cut'));
    await expect(waiting).rejects.toThrow('cut');
    expect((await limiter.budget()).used).toBe(3);
    // No slot is kept any longer for the money that gave up: once the window passed, people get all.
    clock.advance(62_000);
    await takeAndFinish(limiter, 3, 'interactive');
    await expect(limiter.acquire('money', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('counts an unfinished request as taken until a full window after it ends', async () => {
    const { limiter, clock } = await limiterWith(1, 60, { interactiveWaitMs: 0 });
    const held = await limiter.acquire('money');
    clock.advance(90_000); // a slow answer: still in flight after 90 s
    await expect(limiter.acquire('interactive')).rejects.toMatchObject({ retryInSeconds: 61 });
    await held.release();
    clock.advance(60_000);
    await expect(limiter.acquire('interactive')).rejects.toMatchObject({ retryInSeconds: 1 });
    clock.advance(1_000);
    await (await limiter.acquire('interactive')).release();
  });

  it('gives up on a slot whose holder never reported back (crashed replica)', async () => {
    const { limiter, clock } = await limiterWith(1, 60);
    await limiter.acquire('money'); // never released
    clock.advance(120_000 + 61_000);
    await (await limiter.acquire('interactive')).release();
  });

  it('leaves slots to waiting money before people', async () => {
    const clock = fakeClock();
    // Money starts waiting; a reader arriving when the slot frees must not take it.
    let sleeping!: () => void;
    const asleep = new Promise<void>((resolve) => {
      sleeping = resolve;
    });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const store = await createStore('memory://', { prefix: `limiter-${Math.random()}` });
    const shared = {
      store,
      keyId: 'k2',
      rateLimit: { limit: 1, windowSeconds: 60 },
      marginMs: 1000,
      now: clock.now,
    };
    const moneySide = new SharedRateLimiter({
      ...shared,
      sleep: async (ms) => {
        sleeping();
        await woken;
        clock.advance(ms);
      },
    });
    const readerSide = new SharedRateLimiter({ ...shared, sleep: clock.sleep, interactiveWaitMs: 0 });
    await (await readerSide.acquire('interactive')).release();
    const money = moneySide.acquire('money');
    await asleep;
    clock.advance(61_000); // the slot is free now, but money is registered as waiting
    await expect(readerSide.acquire('interactive')).rejects.toBeInstanceOf(RateBudgetError);
    wake();
    const slot: Slot = await money;
    await slot.release();
  });

  it('counts both of two slots taken while the state lock had lapsed, so the budget is never overrun', async () => {
    const clock = fakeClock();
    const base = await createStore('memory://', { prefix: `limiter-${Math.random()}` });
    // A lock that excludes nobody (a holder's lease lapsed while it stalled) and reads that yield, so
    // the two updates below read the same state before either writes.
    const lapsed = new Proxy(base, {
      get(target, property, receiver) {
        if (property === 'withLock') return (_name: string, fn: () => Promise<unknown>) => fn();
        if (property === 'get')
          return async (key: string) => {
            const value = await target.get(key);
            await new Promise((resolve) => setImmediate(resolve));
            return value;
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const shared = { store: lapsed, keyId: 'k3', rateLimit: { limit: 2, windowSeconds: 60 }, marginMs: 1000 };
    const one = new SharedRateLimiter({
      ...shared,
      now: clock.now,
      sleep: clock.sleep,
      interactiveWaitMs: 0,
    });
    const two = new SharedRateLimiter({
      ...shared,
      now: clock.now,
      sleep: clock.sleep,
      interactiveWaitMs: 0,
    });
    await Promise.all([one.acquire('money'), two.acquire('money')]);
    await expect(one.acquire('interactive')).rejects.toBeInstanceOf(RateBudgetError);
  });

  it('after a 429 nobody is let through until the block is over', async () => {
    const { limiter, clock } = await limiterWith(20, 60);
    await limiter.reportRateLimited();
    await expect(limiter.acquire('interactive')).rejects.toMatchObject({ retryInSeconds: 61 });
    expect(await limiter.budget()).toMatchObject({ remaining: 0, blockedForSeconds: 61 });
    const before = clock.now();
    await (await limiter.acquire('money')).release();
    expect(clock.now() - before).toBeGreaterThanOrEqual(61_000);
  });

  it('shares one budget between limiters on one store and one key, not between keys', async () => {
    const clock = fakeClock();
    const store = await createStore('memory://', { prefix: `limiter-${Math.random()}` });
    const make = (keyId: string) =>
      new SharedRateLimiter({
        store,
        keyId,
        rateLimit: { limit: 2, windowSeconds: 60 },
        now: clock.now,
        sleep: clock.sleep,
        interactiveWaitMs: 0,
      });
    const [a, b, other] = [make('same'), make('same'), make('other')];
    await takeAndFinish(a, 1, 'interactive');
    await takeAndFinish(b, 1, 'interactive');
    await expect(a.acquire('interactive')).rejects.toBeInstanceOf(RateBudgetError);
    await takeAndFinish(other, 2, 'interactive');
  });
});
