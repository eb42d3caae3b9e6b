// A report period built the way `/cngn report 7d` means it (the Lagos days up to now), for tests that
// need one without the command's parser; and the report's real parts against a sandbox.
import { ApprovalRepository } from '../../src/approvals/repository.js';
import type { CngnClient } from '../../src/cngn/client.js';
import { reportDeps } from '../../src/reports/deps.js';
import { lagosDayStart } from '../../src/reports/figures.js';
import { lagosDay } from '../../src/reports/movements.js';
import type { ReportPeriod } from '../../src/reports/types.js';
import type { Store } from '../../src/store/index.js';

/** The last `count` Lagos days, today included, ending now. */
export function lastDays(count: number, now: Date): ReportPeriod {
  const today = lagosDay(now);
  const days = Array.from({ length: count }, (_, i) =>
    lagosDay(new Date(lagosDayStart(today, i - count + 1))),
  );
  return { label: `last ${count} days`, from: new Date(lagosDayStart(days[0] as string)), to: now, days };
}

export function partsFor(client: CngnClient, store: Store, now: () => Date, pageSize = 10) {
  return reportDeps({
    client,
    store,
    repository: new ApprovalRepository(store, 'sandbox'),
    keyId: 'test-key',
    now,
    pageSize,
    maxWaitMs: 0,
  });
}
