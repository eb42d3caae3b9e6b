// The last alerts kept for App Home: newest first, at most ten, one entry per event however often a
// subscriber call is replayed after a restart.
import { expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { RECENT_ALERTS_KEPT, RecentAlerts } from '../../src/webhooks/recent.js';
import { test as base } from '../support/fixtures.js';

/** `store`, a memory store of the test's own. */
const test = base.extend('store', async ({ defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  return store;
});

const deposit = (n: number) => ({
  event: 'deposit.completed',
  data: { transactionId: `tx-${n}`, trx_ref: `REF${n}`, amount: '5000.00', status: 'completed' },
  timestamp: new Date(Date.UTC(2026, 10, 23, 8, n)).toISOString(),
});

test('keeps the newest alerts first, at most ten, and a replayed event once', async ({ store }) => {
  const recent = new RecentAlerts(store);
  for (let n = 0; n < 12; n++) await recent.record(deposit(n));
  await recent.record(deposit(11));
  const kept = await recent.latest(RECENT_ALERTS_KEPT + 5);
  expect(kept).toHaveLength(RECENT_ALERTS_KEPT);
  expect(kept.map((a) => a.reference)).toEqual(Array.from({ length: 10 }, (_, i) => `REF${11 - i}`));
  expect(await recent.latest(3)).toHaveLength(3);
});

test('records an alert’s time as the intake reads it: epoch digits as that time, other text as when it came', async ({
  store,
}) => {
  const recordedAt = new Date('2026-12-03T16:00:00.000Z');
  const recent = new RecentAlerts(store, () => recordedAt);
  const at = Date.UTC(2026, 11, 3, 15, 0);
  const dated = (n: number, timestamp: string, occurredAt?: string) => ({
    ...deposit(n),
    timestamp,
    data: { ...deposit(n).data, ...(occurredAt ? { occurredAt } : {}) },
  });
  await recent.record(dated(1, String(at / 1000)));
  await recent.record(dated(2, String(at)));
  await recent.record(dated(3, '2026-12-03T16:00:00+01:00', 'yesterday'));
  await recent.record(dated(4, '2026-12-03 17:00:00 WAT'));
  const times = (await recent.latest(4)).map((a) => [a.reference, a.at]);
  expect(times).toEqual([
    ['REF4', recordedAt.toISOString()],
    ['REF3', new Date(at).toISOString()],
    ['REF2', new Date(at).toISOString()],
    ['REF1', new Date(at).toISOString()],
  ]);
});
