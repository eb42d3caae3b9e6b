// Reports from the service that cannot all be true: a failure after a completion (or the reverse), or a
// completion of another amount than the request's. Neither settles anything: the request is marked for
// a person to check with the service. Pure: the tracker records the mark under the request's lock.
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';
import type { CustodyReport } from './ports.js';
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
 * The sentence for a report that contradicts the request as it stands, or undefined when it does not.
 * `to` is what the report says became of the request.
 */
export function conflictNote(
  request: ApprovalRequest,
  to: 'completed' | 'failed',
  report: CustodyReport,
): string | undefined {
  const what = conflictWords(request, to, report);
  return what ? `Conflicting reports from the service: ${what} — check with the service` : undefined;
}

function conflictWords(
  request: ApprovalRequest,
  to: 'completed' | 'failed',
  report: CustodyReport,
): string | undefined {
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

function sameAmount(a: string, b: string): boolean {
  try {
    return Money.parseDecimal(a).equals(Money.parseDecimal(b));
  } catch {
    return false;
  }
}

function cut(text: string): string {
  return text.length > REASON_SHOWN ? `${text.slice(0, REASON_SHOWN)}…` : text;
}
