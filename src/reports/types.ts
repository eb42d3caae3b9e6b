// What a treasury report is made of: the period it covers (in Lagos days), the treasury's figures read
// from the service's transactions, the approval figures from the bot's own records, and the chart.
// Amounts are canonical decimal strings in naira, as everywhere else.
import type { CngnEnvironment } from '../format/environment.js';

/** `/cngn report` words: today, yesterday, 7d, 30d or a month (YYYY-MM); the schedule uses day/week. */
export interface ReportPeriod {
  /** What the person asked for, as the title says it: "last 7 days", "November 2026". */
  label: string;
  /** Start of the first Lagos day, inclusive. */
  from: Date;
  /** End of the period, exclusive (now, for a period still running). */
  to: Date;
  /** Each Lagos day of the period, YYYY-MM-DD, in order. */
  days: readonly string[];
}

export type MovementKind = 'deposit' | 'withdrawal' | 'redemption' | 'bridge' | 'other';

/** One transaction as the report counts it. */
export interface Movement {
  reference: string;
  /** The service's own id for the transaction, when it sends one. */
  id?: string | undefined;
  kind: MovementKind;
  direction: 'in' | 'out';
  amount: string;
  fee: string;
  /** ISO time. */
  at: string;
  status: 'succeeded' | 'pending' | 'failed';
  /** The service's words, for failures. */
  reason?: string | undefined;
  network?: string | undefined;
  /**
   * The service's amount as it came, when it could not be read exactly: `amount` is then zero and the
   * movement counts in no figure; the report lists it as missing.
   */
  unreadableAmount?: string | undefined;
  /**
   * The service gave no creation time: `at` is its update time or when it was read, and may differ
   * from one read to the next (the book files it under the time it was first given).
   */
  undated?: boolean | undefined;
}

/** One Lagos day of the chart: the closing balance, and the day's inflows and outflows. */
export interface DayFigures {
  day: string;
  closing: string;
  inflow: string;
  outflow: string;
}

export interface TreasuryFigures {
  environment: CngnEnvironment;
  opening: string;
  closing: string;
  inflows: Readonly<Record<MovementKind, string>>;
  outflows: Readonly<Record<MovementKind, string>>;
  fees: string;
  /** The five largest succeeded movements, largest first. */
  largest: readonly Movement[];
  failures: readonly Movement[];
  days: readonly DayFigures[];
  /**
   * Set when the service's history does not reach back to the period's start: the ISO time from
   * which the figures are complete. The chart and summary say so.
   */
  completeFrom?: string | undefined;
  /**
   * Set when the request budget cut the read of the service's list short: completeFrom (if set) is
   * where the read stopped, not where the history ends, and pending outcomes may be out of date.
   * The book keeps what was read, so the next report goes on from there.
   */
  interrupted?: boolean | undefined;
  /**
   * Set when the balance and the transaction list could not be confirmed as read at one moment
   * (money kept moving while they were read, or no budget was left to check): the figures may be off
   * by the latest movements.
   */
  snapshotUnconfirmed?: boolean | undefined;
  /**
   * Movements whose amount could not be read (Movement.unreadableAmount), from the period's start to
   * the balance's read: left out of every figure, so the figures are incomplete by them. Set when any.
   */
  unreadable?: readonly Movement[] | undefined;
  /** Every movement of the period, oldest first, for the CSV. */
  movements: readonly Movement[];
}

export interface ApprovalFigures {
  filed: number;
  approved: number;
  rejected: number;
  expired: number;
  /** Filing to final approval, over the requests approved in the period. */
  medianMs?: number | undefined;
  slowestMs?: number | undefined;
  /** Approvals given per approver (Slack IDs), most first. */
  perApprover: readonly { user: string; count: number }[];
}

export interface Report {
  period: ReportPeriod;
  treasury: TreasuryFigures;
  approvals: ApprovalFigures;
}

/** What the chart is drawn from. */
export interface ChartInput {
  /** "cNGN treasury — last 7 days (sandbox)". */
  title: string;
  environment: CngnEnvironment;
  days: readonly DayFigures[];
  /** The balance at the period's start, as the summary gives it. */
  opening?: string | undefined;
  completeFrom?: string | undefined;
  /** The figures could not be confirmed as of one moment (TreasuryFigures.snapshotUnconfirmed). */
  unconfirmed?: boolean | undefined;
  /** The read of the service's list was cut short by the request budget (TreasuryFigures.interrupted). */
  cutShort?: boolean | undefined;
  /** How many movements' amounts could not be read, so are in no figure (TreasuryFigures.unreadable). */
  unreadable?: number | undefined;
  /** Device pixels per CSS pixel (1 or 2). */
  scale?: number;
}

export interface ChartImage {
  png: Uint8Array;
  width: number;
  height: number;
  /** The period's figures in words, for the image's alt text and file title. */
  alt: string;
}

export interface BuildOptions {
  /**
   * Epoch ms by which the reads of the service are done, however busy the request budget: past it
   * the report is made from what was read, said to be cut short or unconfirmed.
   */
  deadline?: number | undefined;
  /** The build's cut: once it fires, no further read of the service is made and the build fails. */
  signal?: AbortSignal | undefined;
}

/** The two parts a report's delivery needs, built elsewhere and passed in. */
export interface ReportSource {
  build(period: ReportPeriod, options?: BuildOptions): Promise<Report>;
  chart(input: ChartInput): Promise<ChartImage>;
}
