// Reports from the service that cannot all be true: a failure after a completion (or the reverse), a
// completion of another amount than the request's, or a report whose name and own status disagree.
// None settles anything: the request is marked for a person to check with the service. Webhooks and
// status polls alike are judged here. Pure: the tracker records the mark under the request's lock.
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';
import type { CustodyReport, CustodyTransaction } from './ports.js';
import type { ApprovalRequest } from './types.js';

/** The history step (a notice) that records a conflict. */
export const CONFLICT_ACTION = 'conflicting-reports';

/**
 * Kinds whose request carries the amount the service moves, so a completion of another amount
 * contradicts it. A bridge's amount travels on-chain and arrives less its fees: not compared.
 */
const AMOUNT_BOUND: ReadonlySet<ApprovalRequest['kind']> = new Set(['withdraw', 'redeem']);

/** Text from outside in a note: a reason is a few words, not a page. */
const REASON_SHOWN = 200;

/**
 * The sentence for a report that contradicts itself or the request as it stands, or undefined when it
 * does not. `report.result` is what the report says became of the request.
 */
export function conflictNote(request: ApprovalRequest, report: CustodyReport): string | undefined {
  const what = conflictWords(request, report);
  return what ? `Conflicting reports from the service: ${what} — check with the service` : undefined;
}

/** A status poll's answer as a report, so it is judged like a webhook. */
export function reportOfTransaction(tx: CustodyTransaction): CustodyReport {
  return {
    name: 'the status check',
    key: ['checked', tx.reference, tx.status, tx.amount].join('|'),
    references: [tx.reference],
    ...(tx.result === 'succeeded' ? { result: 'completed' as const } : {}),
    ...(tx.result === 'failed' ? { result: 'failed' as const } : {}),
    status: tx.status,
    amount: tx.amount,
  };
}

function conflictWords(request: ApprovalRequest, report: CustodyReport): string | undefined {
  if (report.contradictsItself) {
    const reason = report.reason ? ` (${cut(report.reason)})` : '';
    return `${report.name} gives its own status as ${cut(report.status ?? '')}${reason}`;
  }
  const to = report.result;
  if (
    (request.state === 'completed' && to === 'failed') ||
    (request.state === 'failed' && to === 'completed')
  ) {
    const reason = report.reason ? `: ${cut(report.reason)}` : '';
    return `the request was recorded ${request.state} (${howSettled(request)}), then ${report.name} reported it ${to}${reason}`;
  }
  const reported = report.amount;
  if (to !== 'completed' || !AMOUNT_BOUND.has(request.kind) || !request.amount || !reported) return undefined;
  if (sameAmount(request.amount, reported)) return undefined;
  return `${report.name} reports ${naira(reported)}, but the request was for ${naira(request.amount)}`;
}

/** The step that settled the request, in its own words (`webhook withdrawal.completed`, `checked`). */
function howSettled(request: ApprovalRequest): string {
  const step = request.history.findLast((s) => s.state === request.state && s.action === request.state);
  return cut(step?.note ?? step?.action ?? 'earlier');
}

/** Equal amounts, however many trailing zeros the service wrote (a raw chain amount has six places). */
function sameAmount(a: string, b: string): boolean {
  const trimmed = (amount: string) => amount.replace(/^(-?\d+\.\d{2})0+$/, '$1');
  try {
    return Money.parseDecimal(trimmed(a)).equals(Money.parseDecimal(trimmed(b)));
  } catch {
    return false;
  }
}

function cut(text: string): string {
  return text.length > REASON_SHOWN ? `${text.slice(0, REASON_SHOWN)}…` : text;
}
