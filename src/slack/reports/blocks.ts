// The treasury report's summary as Block Kit: balances, flows by kind, fees, the largest movements,
// failures and the approval figures, with the environment in the header and, before any figure, what
// the figures rest on when it is less than a whole read at one moment. Every value from outside (a
// reference, the service's reason) is escaped; amounts go through naira().
import type { ContextBlock, KnownBlock } from '@slack/types';
import { environmentMarker, lagosTime, naira } from '../../format/display.js';
import { Money } from '../../format/money.js';
import { clipMrkdwn, clipPlain, escapeMrkdwn, MAX_MRKDWN_TEXT, mentionUser } from '../../format/mrkdwn.js';
import { withCaveat } from '../../reports/chart-text.js';
import type { ApprovalFigures, Movement, MovementKind, Report } from '../../reports/types.js';
import type { SlackMessage } from '../types.js';
import { section } from '../ui/messages.js';

/**
 * Outside text escaped, then cut to `max` characters (an escape or a hidden-character marker makes a
 * value longer), so ten failures fit one section; the CSV has it whole.
 */
const shown = (text: string, max: number) => clipMrkdwn(escapeMrkdwn(text), max);

/** Slack refuses a header's text longer than 150 characters. */
const HEADER_CHARS = 150;

/** A reference is cut only past this (escaped): one with an `&` in it is still shown whole. */
const REFERENCE_SHOWN = 200;

/** How many failures the summary lists; the CSV has them all. */
const FAILURES_SHOWN = 10;

const KIND_WORDS: Record<MovementKind, string> = {
  deposit: 'Deposits',
  withdrawal: 'Withdrawals',
  redemption: 'Redemptions',
  bridge: 'Bridges',
  other: 'Other',
};
const KINDS = Object.keys(KIND_WORDS) as MovementKind[];

/** Slack refuses a context text past 3,000 characters: a note too long is cut rather than the summary refused. */
const context = (text: string): ContextBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clipMrkdwn(text) }],
});

/** `cNGN treasury — last 7 days (sandbox)`: the chart's title and the summary's header. */
export function reportTitle(report: Report): string {
  return `cNGN treasury — ${report.period.label} (${report.treasury.environment})`;
}

/** `12 min`, `2 h 5 min`, `40 s`, `3 d 4 h`. */
function durationWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

function sum(amounts: Iterable<string>): string {
  let total = Money.zero();
  for (const amount of amounts) total = total.plus(Money.parseDecimal(amount));
  return total.toString();
}

/** `*Inflows* ₦…` then one line per kind that moved anything. */
function flows(title: string, byKind: Readonly<Record<MovementKind, string>>): string {
  const lines = KINDS.filter((kind) => !Money.parseDecimal(byKind[kind] ?? '0').equals(Money.zero())).map(
    (kind) => `${KIND_WORDS[kind]} ${naira(byKind[kind])}`,
  );
  return [
    `*${title}*  ${naira(sum(KINDS.map((k) => byKind[k] ?? '0')))}`,
    ...(lines.length ? lines : ['none']),
  ].join('\n');
}

/** `deposit`, `withdrawal`, `redemption`; bridges and other movements go either way: `bridge in`. */
const kindWord = (m: Movement) =>
  m.kind === 'bridge' || m.kind === 'other' ? `${m.kind} ${m.direction}` : m.kind;

function largest(movements: readonly Movement[]): string {
  if (movements.length === 0) return '*Largest movements*\nnone';
  const lines = movements.map(
    (m) =>
      `• ${naira(m.amount)} · ${kindWord(m)} · \`${shown(m.reference, REFERENCE_SHOWN)}\` · ${lagosTime(m.at)}`,
  );
  return [`*Largest movements*`, ...lines].join('\n');
}

function failures(failed: readonly Movement[]): string {
  if (failed.length === 0) return '*Failures*  none';
  const lines = failed
    .slice(0, FAILURES_SHOWN)
    .map(
      (m) =>
        `• \`${shown(m.reference, REFERENCE_SHOWN)}\` ${kindWord(m)} ${naira(m.amount)} — ${shown(m.reason ?? 'no reason given', 150)}`,
    );
  const more = failed.length - FAILURES_SHOWN;
  return [
    `*Failures*  ${failed.length}`,
    ...lines,
    ...(more > 0 ? [`…and ${more} more, all in the CSV`] : []),
  ].join('\n');
}

function approvals(figures: ApprovalFigures): string {
  const counts = `Filed ${figures.filed} · approved ${figures.approved} · rejected ${figures.rejected} · expired ${figures.expired}`;
  const times =
    figures.medianMs === undefined
      ? 'No request was approved in the period.'
      : `Time to approve: median ${durationWords(figures.medianMs)}, slowest ${durationWords(figures.slowestMs ?? figures.medianMs)}`;
  const by = figures.perApprover.length
    ? `By approver: ${figures.perApprover.map((a) => `${mentionUser(a.user)} ${a.count}`).join(', ')}`
    : undefined;
  return ['*Approvals*', counts, times, ...(by ? [by] : [])].join('\n');
}

const CUT_SHORT =
  "the read of the service's transactions was cut short to keep within its request budget; the next report continues where this one stopped";

/** How many references the note on unreadable amounts names; the CSV has the period's all. */
const UNREADABLE_SHOWN = 10;

const UNREADABLE_TAIL =
  '. They are counted in no figure, so the figures are incomplete: the opening, the closing and the flows may be off by them.';

/**
 * `2 transactions with amounts that could not be read: `REF` ("100.505"), …`, when any. References are
 * named while the note stays within Slack's limit for a context text (the service's references and
 * amounts can be long); the rest are counted, and the CSV has them all.
 */
function unreadableNote(unreadable: readonly Movement[]): string {
  const count = unreadable.length === 1 ? '1 transaction' : `${unreadable.length} transactions`;
  const note = (named: readonly string[]) => {
    const more = unreadable.length - named.length;
    const rest = more > 0 ? `${named.length ? ' and ' : ''}${more} more, all in the CSV` : '';
    return `:warning: ${count} with amounts that could not be read: ${named.join(', ')}${rest}${UNREADABLE_TAIL}`;
  };
  const named: string[] = [];
  for (const m of unreadable.slice(0, UNREADABLE_SHOWN)) {
    const item = `\`${shown(m.reference, REFERENCE_SHOWN)}\` ("${shown(m.unreadableAmount ?? '', 80)}")`;
    if (note([...named, item]).length > MAX_MRKDWN_TEXT) break;
    named.push(item);
  }
  return note(named);
}

/** What the figures rest on, when it is less than the whole period read at one moment. */
function readingNotes(report: Report): string[] {
  const t = report.treasury;
  const notes: string[] = [];
  if (t.snapshotUnconfirmed) {
    notes.push(
      ':warning: Money moved while this report was read (or no request budget was left to check): the balance and the transactions could not be confirmed as of one moment, so the opening, closing and daily figures may be off by the latest movements. Run the report again for confirmed figures.',
    );
  }
  if (t.completeFrom) {
    const why = t.interrupted ? CUT_SHORT : "the service's history does not reach further back";
    notes.push(`:information_source: Figures complete from ${lagosTime(t.completeFrom)}: ${why}.`);
  } else if (t.interrupted) {
    notes.push(`:information_source: Outcomes of older pending movements may be out of date: ${CUT_SHORT}.`);
  }
  if (t.unreadable?.length) notes.push(unreadableNote(t.unreadable));
  return notes;
}

export interface SummaryOptions {
  /** Set when the schedule posts a run after its time: what the note says. */
  lateNote?: string | undefined;
  /** When the report was made. */
  madeAt: Date;
}

/** The report's summary message. */
export function reportSummary(report: Report, options: SummaryOptions): SlackMessage {
  const t = report.treasury;
  const change = Money.parseDecimal(t.closing).minus(Money.parseDecimal(t.opening)).toString();
  const sign = change.startsWith('-') ? '' : '+';
  // Unconfirmed or cut short is said in the header and the notes come first, before any figure, as
  // on the chart: a reader who stops at the balance has seen them.
  const title = withCaveat(reportTitle(report), {
    unconfirmed: t.snapshotUnconfirmed,
    cutShort: t.interrupted,
    unreadable: t.unreadable?.length,
  });
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clipPlain(title, HEADER_CHARS), emoji: true } },
    context(
      `${environmentMarker(t.environment)} · ${lagosTime(report.period.from)} to ${lagosTime(report.period.to)}`,
    ),
    ...readingNotes(report).map(context),
    section(`*Balance*  ${naira(t.opening)} → ${naira(t.closing)}  (${sign}${naira(change)})`),
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: flows('Inflows', t.inflows) },
        { type: 'mrkdwn', text: flows('Outflows', t.outflows) },
      ],
    },
    section(`*Fees*  ${naira(t.fees)}`),
    { type: 'divider' },
    section(largest(t.largest)),
    section(failures(t.failures)),
    { type: 'divider' },
    section(approvals(report.approvals)),
  ];
  const made = `Made ${lagosTime(options.madeAt)} · the transactions are in the CSV below`;
  blocks.push(context(options.lateNote ? `${escapeMrkdwn(options.lateNote)} · ${made}` : made));
  const text = `${title}: ${naira(t.opening)} → ${naira(t.closing)}, fees ${naira(t.fees)}, ${t.failures.length} failed, ${report.approvals.approved} approved`;
  return { text, blocks };
}
