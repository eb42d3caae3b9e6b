// An alert's post lock is held for as long as the post lasts, up to a cap: a post still under way at
// the cap (a sink that hangs) lets the lock go, with a log line, so another deliverer can take the
// alert over; its own answer is still awaited.
import { expect, test, vi } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { Outbox } from '../../src/webhooks/outbox.js';
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

test('with the default claim lease, a replica that takes the lapsed claim mid-post finds the lock held and does not post', async ({
  onTestFinished,
}) => {
  // Fake time: the default lease is a minute, which no test sits out in real time.
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const store = await createStore('memory://');
  onTestFinished(() => store.close());
  // The deliverer's and the dead-letter desk's default lease; whilePosting is given no lease of its own.
  const CLAIM_LEASE_MS = 60_000;
  const outbox = new Outbox(store);
  const posted: string[] = [];
  let accept!: (value: string) => void;
  const hanging = new Promise<string>((resolve) => (accept = resolve));
  expect(await outbox.claim('E-3', 'first', CLAIM_LEASE_MS)).toBe(true);
  const first = whilePosting(store, 'E-3', () => {
    posted.push('first');
    return hanging;
  });
  // Slack keeps the first post open past the claim's lease: another replica takes the claim.
  await vi.advanceTimersByTimeAsync(CLAIM_LEASE_MS + 1_000);
  expect(await outbox.claim('E-3', 'second', CLAIM_LEASE_MS)).toBe(true);
  const second = whilePosting(store, 'E-3', async () => {
    posted.push('second');
    return 'second';
  });
  await vi.advanceTimersByTimeAsync(5_000);
  expect(await second).toBe('busy');
  accept('first');
  expect(await first).toBe('first');
  expect(posted).toEqual(['first']);
});
