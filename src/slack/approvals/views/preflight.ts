// The checks a filing form runs before it files (approvals/preflight.ts), in the form's terms: a
// balance that does not cover the request is an error under the amount, with the figures; a look-alike
// destination is shown under the address with a box the requester must tick, and a tick counts only
// for the address the form showed it for. The same payment filed before is shown the same way, with a
// "file it again" box that counts only for the request it was shown for.
import type {
  ApprovalRequest,
  FileConfirmations,
  FilingProblem,
  LookAlikeMark,
  RequestChecks,
  RequestDraft,
  SameRequestMark,
} from '../../../approvals/index.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps, FieldErrors } from '../../types.js';
import { REVIEW_BALANCE_FRESH_MS } from '../actions/review-balance.js';
import { shortfallText } from '../blocks/checks.js';
import { dailyLimitText } from '../blocks/limits.js';

/** What the form shows again when filing was refused: reasons under fields, the marks it asks about. */
export interface FormRefusal {
  errors: FieldErrors;
  lookAlike?: LookAlikeMark | undefined;
  sameAs?: SameRequestMark | undefined;
}

export type FormFiling = { ok: true; request: ApprovalRequest } | ({ ok: false } & FormRefusal);

/** The form's block ids for the figures a check speaks of (`limit`: where the daily limit is said). */
export interface CheckedFields {
  amount?: string;
  address?: string;
  limit?: string;
}

/** The requester's tick, and the look-alike address the form showed it for (its metadata). */
export interface Comparison {
  ticked: boolean;
  shownFor?: string | undefined;
  /** The "file it again" tick, and the request the form showed as the same payment. */
  again?: { ticked: boolean; shownFor?: string | undefined };
}

/** How long the pre-ack look at the stored balance may take (the ack must stay within 3 s). */
const QUICK_CHECK_DEADLINE_MS = 300;

/**
 * Before the ack, from the store only: an amount the balance last read (within the cache's life)
 * cannot cover, as a field error to answer at once. Undefined when there is nothing to say yet.
 */
export async function quickBalanceErrors(
  deps: ApprovalSlackDeps,
  draft: RequestDraft,
  fields: CheckedFields,
): Promise<FieldErrors | undefined> {
  if (!fields.amount) return undefined;
  const now = deps.now?.() ?? new Date();
  try {
    const check = await withinDeadline(
      deps.engine.balanceFor(draft, { stored: true, maxAgeMs: REVIEW_BALANCE_FRESH_MS }),
      QUICK_CHECK_DEADLINE_MS,
      'store',
    );
    if (!check || check.enough) return undefined;
    return { [fields.amount]: `Amount: ${shortfallText(check, now)}` };
  } catch {
    return undefined; // the full check after the ack decides
  }
}

/** The confirmations the form's ticks give, each for what the form showed it for (its metadata). */
function confirmationsOf(comparison: Comparison): FileConfirmations {
  const again = comparison.again;
  return {
    lookAlikeConfirmedFor: comparison.ticked ? comparison.shownFor : undefined,
    sameConfirmedFor: again?.ticked ? again.shownFor : undefined,
  };
}

/** File the draft from the form (the engine runs every check); refused, what the form shows again. */
export async function fileFromForm(
  deps: ApprovalSlackDeps,
  draft: RequestDraft,
  fields: CheckedFields,
  comparison: Comparison,
): Promise<FormFiling> {
  const filed = await deps.engine.file(draft, confirmationsOf(comparison));
  if (filed.ok) return { ok: true, request: filed.request };
  return { ok: false, ...formRefusal(deps, filed.problems, filed.checks, fields) };
}

/**
 * What would stop filing the draft (nothing is filed), and the marks the form shows again either way:
 * for a form that asks the service something more before it files (a bridge's quote).
 */
export async function problemsBeforeFiling(
  deps: ApprovalSlackDeps,
  draft: RequestDraft,
  fields: CheckedFields,
  comparison: Comparison,
): Promise<{ ok: boolean } & FormRefusal> {
  const found = await deps.engine.filingProblems(draft, confirmationsOf(comparison));
  return { ok: found.problems.length === 0, ...formRefusal(deps, found.problems, found.checks, fields) };
}

/** The engine's problems in the form's words, under the fields they speak of. */
function formRefusal(
  deps: ApprovalSlackDeps,
  problems: readonly FilingProblem[],
  checks: RequestChecks | undefined,
  fields: CheckedFields,
): FormRefusal {
  const now = deps.now?.() ?? new Date();
  const errors: FieldErrors = {};
  let sameAs = checks?.sameAs;
  for (const problem of problems) {
    if (problem.kind === 'same-request') sameAs = problem.sameAs;
    const error = fieldError(problem, fields, now);
    if (error) errors[error.field] = error.text;
  }
  return { errors, lookAlike: checks?.lookAlike, sameAs };
}

/** A problem said under its field, if the form has that field (a same request is said apart). */
function fieldError(
  problem: FilingProblem,
  fields: CheckedFields,
  now: Date,
): { field: string; text: string } | undefined {
  if (problem.kind === 'balance' && fields.amount) {
    return { field: fields.amount, text: `Amount: ${shortfallText(problem.balance, now)}` };
  }
  if (problem.kind === 'look-alike' && fields.address) {
    return { field: fields.address, text: lookAlikeFieldText(problem.lookAlike) };
  }
  if (problem.kind === 'daily-limit') {
    const field = fields.limit ?? fields.amount;
    if (field) return { field, text: `Daily limit: ${dailyLimitText(problem.figures)}.` };
  }
  return undefined;
}

/** Under the address: it looks like a known one, and how to settle it. */
function lookAlikeFieldText(mark: LookAlikeMark): string {
  const known = mark.knownAs === 'paid' ? 'an address paid before' : 'a whitelisted address';
  return `Address: it looks like ${known} but is not the same: compare the whole address below`;
}
