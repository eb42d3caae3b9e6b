// A small fixed ReportSource for the delivery's tests: the same figures whatever the period (the
// period itself is the one asked for), and a tiny real PNG for the chart. It records what it was asked.
import { readFileSync } from 'node:fs';
import type { ChartImage, ChartInput, Report, ReportPeriod, ReportSource } from '../../src/reports/types.js';

export const CHART_PNG = readFileSync(new URL('../fixtures/report-chart.png', import.meta.url));

export const CHART_ALT =
  'Closing balance from ₦1,200,000.00 to ₦1,450,000.50 over 7 days; inflows ₦600,000.50, outflows ₦350,000.00.';

/** The fixed figures, for `period`. Outside text (a reference, a reason) carries mrkdwn to be escaped. */
function fixedReport(period: ReportPeriod): Report {
  return {
    period,
    treasury: {
      environment: 'sandbox',
      opening: '1200000.00',
      closing: '1450000.50',
      inflows: {
        deposit: '500000.50',
        withdrawal: '0.00',
        redemption: '0.00',
        bridge: '100000.00',
        other: '0.00',
      },
      outflows: {
        deposit: '0.00',
        withdrawal: '250000.00',
        redemption: '100000.00',
        bridge: '0.00',
        other: '0.00',
      },
      fees: '1250.00',
      largest: [
        {
          reference: 'DEP-0001',
          kind: 'deposit',
          direction: 'in',
          amount: '500000.50',
          fee: '0.00',
          at: '2026-11-24T09:15:00.000Z',
          status: 'succeeded',
        },
        {
          reference: 'WD-0002',
          kind: 'withdrawal',
          direction: 'out',
          amount: '250000.00',
          fee: '750.00',
          at: '2026-11-25T13:40:00.000Z',
          status: 'succeeded',
        },
      ],
      failures: [
        {
          reference: 'RD-<!channel>',
          kind: 'redemption',
          direction: 'out',
          amount: '75000.00',
          fee: '0.00',
          at: '2026-11-25T15:00:00.000Z',
          status: 'failed',
          reason: 'Bank *declined*: account closed',
        },
      ],
      days: period.days.map((day, i) => ({
        day,
        closing: (1200000 + i * 35000).toFixed(2),
        inflow: '85000.00',
        outflow: '50000.00',
      })),
      completeFrom: '2026-11-20T10:00:00.000Z',
      movements: [
        {
          reference: 'DEP-0001',
          kind: 'deposit',
          direction: 'in',
          amount: '500000.50',
          fee: '0.00',
          at: '2026-11-24T09:15:00.000Z',
          status: 'succeeded',
        },
        {
          reference: '=HYPERLINK("x")',
          kind: 'other',
          direction: 'in',
          amount: '100000.00',
          fee: '500.00',
          at: '2026-11-25T08:00:00.000Z',
          status: 'succeeded',
          network: 'base',
        },
      ],
    },
    approvals: {
      filed: 5,
      approved: 3,
      rejected: 1,
      expired: 1,
      medianMs: 12 * 60_000,
      slowestMs: 125 * 60_000,
      perApprover: [
        { user: 'UAPPROVERA', count: 2 },
        { user: 'UAPPROVERB', count: 1 },
      ],
    },
  };
}

export interface FixedReportSource extends ReportSource {
  periods: ReportPeriod[];
  /** The deadline each build was given. */
  deadlines: (number | undefined)[];
  charts: ChartInput[];
  /** Set to make build() fail with it. */
  failWith?: Error | undefined;
}

export function fixedReportSource(): FixedReportSource {
  const source: FixedReportSource = {
    periods: [],
    deadlines: [],
    charts: [],
    async build(period, options) {
      source.periods.push(period);
      source.deadlines.push(options?.deadline);
      if (source.failWith) throw source.failWith;
      return fixedReport(period);
    },
    async chart(input): Promise<ChartImage> {
      source.charts.push(input);
      return { png: new Uint8Array(CHART_PNG), width: 240, height: 120, alt: CHART_ALT };
    },
  };
  return source;
}
