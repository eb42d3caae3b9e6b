// A report delivered into one conversation (a person's DM, or the report channel): the chart as a PNG
// with the period's figures in its title and alt text, the summary in Block Kit, then the period's
// transactions as a formula-safe CSV. Uploads use files.uploadV2 as the audit export does. Each part is
// posted on its own so the schedule can record which ones Slack accepted.
import { setImmediate } from 'node:timers/promises';
import type { App } from '@slack/bolt';
import { ErrorCode, WebClient } from '@slack/web-api';
import { csvLine } from '../../format/csv.js';
import { naira } from '../../format/display.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { withCaveat } from '../../reports/chart-text.js';
import type { ChartImage, Movement, Report, ReportSource } from '../../reports/types.js';
import { describeError } from '../runtime/errors.js';
import { SlackUploadError } from '../runtime/files.js';
import { reportSummary, reportTitle } from './blocks.js';

/**
 * The client a report's parts are posted with: Slack's own retries off. A call whose answer was lost
 * may have been accepted, and the client's retry of it would post that part a second time; a failed
 * part is tried again only by the schedule's next attempt, which posts the parts not recorded as
 * accepted. Bolt's options are kept (Slack's URL, the transport every Slack call of the bot shares).
 */
export function reportClient(app: App): WebClient {
  return new WebClient(app.client.token, {
    ...app.webClientOptions,
    logger: app.logger,
    retryConfig: { retries: 0 },
    // A 429 fails at once, rather than after waiting out its Retry-After for no further try.
    rejectRateLimitedCalls: true,
  });
}

/** Slack refuses longer alt text (alt_txt_too_large). */
const ALT_TEXT_MAX = 1000;

const CSV_HEADER = [
  'at',
  'reference',
  'kind',
  'direction',
  'amount',
  'fee',
  'status',
  'reason',
  'network',
  'note',
];

/** A movement whose amount could not be read has an empty amount, and the note says why. */
const unreadableNote = (amount: string) =>
  `amount could not be read (the service sent "${amount}"); left out of the report's figures`;

/** Rows made into CSV lines in one turn of the event loop (a few ms on a loaded machine). */
const CSV_ROWS_A_TURN = 500;

/**
 * The period's movements, oldest first, one row each; cells that look like formulas are made inert.
 * A month's rows are made a slice at a time, a turn of the event loop before each, so the bot's
 * answers to others are not held behind the whole file.
 */
async function reportCsv(report: Report): Promise<string> {
  const movements = report.treasury.movements;
  const lines = [csvLine(CSV_HEADER)];
  for (let start = 0; start < movements.length; start += CSV_ROWS_A_TURN) {
    await setImmediate();
    const slice = movements.slice(start, start + CSV_ROWS_A_TURN);
    lines.push(slice.map((m) => csvLine(csvRowOf(m))).join(''));
  }
  return lines.join('');
}

function csvRowOf(m: Movement): string[] {
  return [
    m.at,
    m.reference,
    m.kind,
    m.direction,
    m.unreadableAmount === undefined ? m.amount : '',
    m.fee,
    m.status,
    m.reason ?? '',
    m.network ?? '',
    m.unreadableAmount === undefined ? '' : unreadableNote(m.unreadableAmount),
  ];
}

/** `cngn-report-sandbox-2026-11-20-to-2026-11-26`. */
function reportFileName(report: Report): string {
  const days = report.period.days;
  const first = days[0] ?? 'start';
  const last = days[days.length - 1] ?? first;
  return `cngn-report-${report.treasury.environment}-${first === last ? first : `${first}-to-${last}`}`;
}

/** The chart file's title: the report's title, unconfirmed or cut short when it is, and its balances. */
function chartTitle(report: Report): string {
  const t = report.treasury;
  const flags = {
    unconfirmed: t.snapshotUnconfirmed,
    cutShort: t.interrupted,
    unreadable: t.unreadable?.length,
  };
  return `${withCaveat(reportTitle(report), flags)}: ${naira(t.opening)} → ${naira(t.closing)}`;
}

async function upload(
  client: WebClient,
  channel: string,
  file: { content: Buffer; filename: string; title: string; altText?: string; comment?: string },
): Promise<void> {
  try {
    await client.files.uploadV2({
      channel_id: channel,
      ...(file.comment ? { initial_comment: file.comment } : {}),
      file_uploads: [
        {
          file: file.content,
          filename: file.filename,
          title: file.title,
          ...(file.altText ? { alt_text: file.altText.slice(0, ALT_TEXT_MAX) } : {}),
        },
      ],
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === ErrorCode.RateLimitedError) {
      throw new SlackUploadError('ratelimited');
    }
    const code = (error as { data?: { error?: unknown } }).data?.error;
    throw new SlackUploadError(typeof code === 'string' ? code : 'no answer');
  }
}

export interface DeliveryOptions {
  /** The schedule's note when it posts a run late. */
  lateNote?: string | undefined;
  madeAt: Date;
}

/** The parts of a delivered report, in the order they are posted. */
export const REPORT_PARTS = ['chart', 'summary', 'csv'] as const;
export type ReportPart = (typeof REPORT_PARTS)[number];

/** Chart, summary, CSV, in that order, into `channel`. */
export async function deliverReport(
  client: WebClient,
  channel: string,
  report: Report,
  chart: ChartImage,
  options: DeliveryOptions,
): Promise<void> {
  for (const part of REPORT_PARTS) {
    // The late note is said once, in the summary.
    const note = part === 'summary' ? options.lateNote : undefined;
    await postReportPart(client, channel, report, part, { ...options, lateNote: note, chart });
  }
}

/**
 * One part of a report into `channel`; resolves once Slack accepted it. A late note goes in the
 * summary, or is the CSV's comment (for a CSV posted late on its own).
 */
export async function postReportPart(
  client: WebClient,
  channel: string,
  report: Report,
  part: ReportPart,
  options: DeliveryOptions & { chart?: ChartImage | undefined },
): Promise<void> {
  const name = reportFileName(report);
  if (part === 'chart') {
    if (!options.chart) throw new Error('the chart part needs the chart');
    await upload(client, channel, {
      content: Buffer.from(options.chart.png),
      filename: `${name}.png`,
      title: chartTitle(report),
      altText: options.chart.alt,
    });
  } else if (part === 'summary') {
    const summary = reportSummary(report, options);
    await client.chat.postMessage({ channel, text: summary.text, blocks: summary.blocks });
  } else {
    await upload(client, channel, {
      content: Buffer.from(await reportCsv(report), 'utf8'),
      filename: `${name}.csv`,
      title: `${report.treasury.movements.length} transactions — ${report.period.label} (CSV)`,
      ...(options.lateNote ? { comment: options.lateNote } : {}),
    });
  }
}

/** The chart of a report, as the chart maker is asked for it. */
export function chartOf(report: Report, source: Pick<ReportSource, 'chart'>): Promise<ChartImage> {
  return source.chart({
    title: reportTitle(report),
    environment: report.treasury.environment,
    days: report.treasury.days,
    opening: report.treasury.opening,
    completeFrom: report.treasury.completeFrom,
    unconfirmed: report.treasury.snapshotUnconfirmed,
    cutShort: report.treasury.interrupted,
    unreadable: report.treasury.unreadable?.length,
    // Twice the pixels: sharp on the high-density screens most people read Slack on.
    scale: 2,
  });
}

/** The one sentence told where the report was to go (a DM, the report channel) when it did not come. */
export function failureSentence(error: unknown, label: string, logger: Logger): string {
  const period = escapeMrkdwn(label);
  if (error instanceof SlackUploadError) {
    return `Your report for ${period} could not be delivered: ${escapeMrkdwn(error.message)}.`;
  }
  const said = describeError(error, logger, 'report');
  return said.correlationId
    ? `Your report for ${period} could not be made; try again shortly, quoting reference \`${said.correlationId}\` if it keeps happening.`
    : `Your report for ${period} could not be made: ${said.text}`;
}
