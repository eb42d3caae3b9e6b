// The read-through cache on its own, on a clock the test moves: a value is dated when its load began,
// and an invalidation reaches a load under way (not joined after it, not stored).
import { test as base, expect } from 'vitest';
import { ResponseCache } from '../../src/cngn/cache.js';
import { createStore } from '../../src/store/index.js';

interface Gate<T> {
  load: () => Promise<T>;
  started: Promise<void>;
  answer(value: T): void;
}

/** A load that waits for `answer`; `started` resolves once it was called. */
function gated<T>(): Gate<T> {
  let answer!: (value: T) => void;
  let began!: () => void;
  const started = new Promise<void>((resolve) => (began = resolve));
  const answered = new Promise<T>((resolve) => (answer = resolve));
  return {
    load: () => {
      began();
      return answered;
    },
    started,
    answer,
  };
}

const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('clock', async ({}) => ({ ms: 1_000 }))
  .extend('cache', async ({ clock }, { onCleanup }) => {
    const store = await createStore('memory://', { prefix: `response-cache-${Math.random()}` });
    onCleanup(() => store.close());
    return new ResponseCache(store, 'test:key', () => clock.ms);
  });

test('dates a value by when its load began, in the entry and in the one kept for "as of"', async ({
  clock,
  cache,
}) => {
  const gate = gated<string>();
  const reading = cache.get('balance', 15_000, gate.load, { remember: true });
  await gate.started;
  clock.ms = 4_000;
  gate.answer('100.00');
  expect((await reading).asOf.getTime()).toBe(1_000);
  expect((await cache.get('balance', 15_000, () => Promise.resolve('other'))).asOf.getTime()).toBe(1_000);
  expect((await cache.last('balance'))?.asOf.getTime()).toBe(1_000);
});

test('a load under way when its key is forgotten is not joined after it and not stored', async ({
  cache,
}) => {
  const stale = gated<string>();
  const reading = cache.get('balance', 15_000, stale.load, { remember: true });
  await stale.started;
  await cache.invalidate('balance');
  const after = await cache.get('balance', 15_000, () => Promise.resolve('200.00'), { remember: true });
  expect(after.value).toBe('200.00');
  // The stale answer arrives after the newer one was stored: it must not overwrite it.
  stale.answer('100.00');
  expect((await reading).value).toBe('100.00');
  expect((await cache.get('balance', 15_000, () => Promise.resolve('read again'))).value).toBe('200.00');
  expect((await cache.last('balance'))?.value).toBe('200.00');
});

test('a load that may be cut off is not stored once its key is forgotten either', async ({ cache }) => {
  const stale = gated<string>();
  const signal = new AbortController().signal;
  const reading = cache.get('balance', 15_000, stale.load, { remember: true, signal });
  await stale.started;
  await cache.invalidate('balance');
  stale.answer('100.00');
  expect((await reading).value).toBe('100.00');
  expect(await cache.last('balance')).toBeUndefined();
  expect((await cache.get('balance', 15_000, () => Promise.resolve('200.00'))).value).toBe('200.00');
});

test('a read slower than the life of its entry still serves the next caller, dated when it was asked', async ({
  clock,
  cache,
}) => {
  const slow = gated<string>();
  const reading = cache.get('balance', 15_000, slow.load);
  await slow.started;
  clock.ms = 21_000;
  slow.answer('100.00');
  await reading;
  clock.ms = 30_000;
  const next = await cache.get('balance', 15_000, () => Promise.resolve('read again'));
  expect(next.value).toBe('100.00');
  expect(next.asOf.getTime()).toBe(1_000);
  clock.ms = 36_000;
  expect((await cache.get('balance', 15_000, () => Promise.resolve('read again'))).value).toBe('read again');
});
