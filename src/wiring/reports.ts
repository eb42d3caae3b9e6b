// Treasury reports from the bot's real parts: figures from the service's transaction list (kept in the
// store) and the bot's own records, the chart drawn on this host.
import { ApprovalRepository } from '../approvals/index.js';
import type { CngnClient } from '../cngn/client.js';
import { keyId } from '../cngn/credentials.js';
import { buildReport } from '../reports/build.js';
import { renderReportChart } from '../reports/chart.js';
import { reportDeps } from '../reports/deps.js';
import type { ReportSource } from '../reports/types.js';
import type { Store } from '../store/index.js';

export function treasuryReports(client: CngnClient, store: Store, apiKey: string): ReportSource {
  const deps = reportDeps({
    client,
    store,
    repository: new ApprovalRepository(store, client.environment),
    keyId: keyId(apiKey),
  });
  return { build: (period, options) => buildReport(period, deps, options), chart: renderReportChart };
}
