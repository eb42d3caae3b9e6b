// An alert's post lock is held for as long as the post lasts, up to a cap: a post still under way at
// the cap (a sink that hangs) lets the lock go, with a log line, so another deliverer can take the
// alert over; its own answer is still awaited.
import { expect, test } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { whilePosting } from '../../src/webhooks/post-lock.js';
import { capturedLog } from '../support/captured-log.js';

test('a post under way past the hold cap lets its lock go, and its answer is still returned', async ({
  onTestFinished,
}) => {
  const store = await createStore('memory://');
  onTestFinished(() => store.close());
  const log = capturedLog<{ message?: string; entryId?: string }>('info');
  let accept!: (value: string) => void;
  const hanging = new Promise<string>((resolve) => (accept = resolve));
  const first = whilePosting(store, 'E-1', () => hanging, { log: log.logger, holdMs: 50 });
  await expect
    .poll(() => log.entries.some((e) => e.entryId === 'E-1' && String(e.message).includes('hold')), {
      timeout: 10_000,
    })
    .toBe(true);
  // Another deliverer takes the lock now, rather than waiting on the hanging post for ever.
  expect(await whilePosting(store, 'E-1', async () => 'second', { log: log.logger })).toBe('second');
  accept('first');
  expect(await first).toBe('first');
});

test('a post that ends within the cap keeps the lock for all of it: another waits, then is told busy', async ({
  onTestFinished,
}) => {
  const store = await createStore('memory://');
  onTestFinished(() => store.close());
  let accept!: (value: string) => void;
  const held = new Promise<string>((resolve) => (accept = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const first = whilePosting(store, 'E-2', () => {
    started();
    return held;
  });
  await running;
  expect(await whilePosting(store, 'E-2', async () => 'second')).toBe('busy');
  accept('first');
  expect(await first).toBe('first');
});
