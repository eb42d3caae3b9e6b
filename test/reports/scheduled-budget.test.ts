// A scheduled report's build (its deadline and its cut, as the schedule passes them) over a history that
// takes several of the service's windows to read: in no window does it take more than the report's
// share (the limit less the four slots kept for money and people and the one left to other background
// work), and a background read made whenever the build waits for budget goes out at once.
// The real client, limiter and sandbox, on one virtual clock: windows pass without real waiting.
import { expect } from 'vitest';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { buildReport, readDeadline } from '../../src/reports/build.js';
import { reportDeps } from '../../src/reports/deps.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { VirtualClock } from '../support/clock.js';
import { clientFor } from '../support/cngn-client.js';
import { test } from '../support/fixtures.js';
import { lastDays } from './support.js';

const WINDOW_MS = 2_000;
/** 20 a window, less 4 kept for money and people, less 1 left to other background work. */
const REPORT_SHARE = 15;

test('a scheduled build never takes the last background slot, in any window of its read', async ({
  defer,
}) => {
  const clock = new VirtualClock(Date.UTC(2026, 10, 29, 9));
  const sandbox = await startSandbox({
    rateLimit: { limit: 20, windowMs: WINDOW_MS, blockMs: 60_000 },
    settleDelayMs: 3_600_000,
    now: clock.now,
    history: { count: 80, from: clock.now() - 20 * 86_400_000 },
  });
  defer(() => sandbox.stop());
  const { client, store } = await clientFor(sandbox, {
    environment: 'sandbox',
    rateLimit: { limit: 20, windowSeconds: WINDOW_MS / 1000 },
    limiter: { marginMs: 100, now: clock.now, sleep: clock.sleep },
  });
  defer(() => store.close());
  defer(() => client.close());

  // Each time the build waits for budget, a background read (an approval's balance check) goes out.
  const backgroundReads: string[] = [];
  const parts = reportDeps({
    client,
    store,
    repository: new ApprovalRepository(store, 'sandbox'),
    keyId: 'test-key',
    pageSize: 2,
    now: () => new Date(clock.now()),
    sleep: async (ms) => {
      const { entries } = await client.getBalanceWithTime({ priority: 'background', fresh: true });
      backgroundReads.push(entries[0]?.balance ?? '');
      await clock.sleep(ms);
    },
  });
  const cut = new AbortController();
  const scheduled = {
    deadline: readDeadline(clock.now(), 10 * 60_000),
    signal: cut.signal,
  };
  const report = await clock.track(() => buildReport(lastDays(30, new Date(clock.now())), parts, scheduled));

  // 80 transactions two a page: 40 pages and more, so the read waited for budget window after window.
  expect(report.treasury.movements.length).toBe(80);
  expect(report.treasury.interrupted).toBeUndefined();
  expect(backgroundReads.length).toBeGreaterThanOrEqual(2);
  expect(backgroundReads.every((balance) => balance !== '')).toBe(true);
  // In every window the list's reads (all the report's) stayed within its share, and nothing was refused.
  const listReads = sandbox.requests
    .filter((r) => r.path.startsWith('/v1/api/transactions'))
    .map((r) => r.at);
  const busiest = Math.max(
    ...listReads.map((at) => listReads.filter((t) => t >= at && t < at + WINDOW_MS).length),
  );
  expect(busiest).toBe(REPORT_SHARE);
  expect(sandbox.requests.filter((r) => r.status === 429)).toEqual([]);
});
