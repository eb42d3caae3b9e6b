// Filing as every caller does it: the pre-flight checks run here, always, and the requester's
// confirmations (they compared a look-alike address, they mean to file the same payment again) count
// only for what they were shown. What stops the filing comes back as typed problems for the caller to
// show, never as a decision the caller makes: a form, a web page and a test get the same rules.

import { LimitExceededError } from './limits.js';
import { type Preflight, type PreflightRefusal, preflightRefusals } from './preflight.js';
import { SameRequestError } from './same-request.js';
import type {
  ApprovalRequest,
  LimitFigures,
  RequestChecks,
  RequestDraft,
  RequestKind,
  SameRequestMark,
} from './types.js';

/** What the requester confirmed, each for the one thing they were shown. */
export interface FileConfirmations {
  /** The look-alike address they said they compared in full (LookAlikeMark.candidate). */
  lookAlikeConfirmedFor?: string | undefined;
  /** The earlier request they were shown as the same payment and said to file again (its id). */
  sameConfirmedFor?: string | undefined;
}

/** Why a filing was refused (nothing filed). */
export type FilingProblem =
  /** The balance does not cover the amount, or a look-alike was not confirmed (see preflight.ts). */
  | PreflightRefusal
  /** The same payment was filed before, and the requester did not say to file it again. */
  | { kind: 'same-request'; sameAs: SameRequestMark }
  /** It would pass the daily limit. */
  | { kind: 'daily-limit'; figures: LimitFigures };

/** Filed, or refused with its problems; with the checks made either way (the confirmations applied). */
export type FileResult =
  | { ok: true; request: ApprovalRequest; checks?: RequestChecks }
  | { ok: false; problems: FilingProblem[]; checks?: RequestChecks };

/** The kinds filed with pre-flight checks (a balance, a destination, the same payment); others have none. */
const CHECKED_KINDS: ReadonlySet<RequestKind> = new Set(['withdraw', 'redeem', 'bridge', 'whitelist']);

interface FileCheckedDeps {
  preflight: Pick<Preflight, 'check'>;
  file: (draft: RequestDraft, options: { preflight?: RequestChecks }) => Promise<ApprovalRequest>;
}

/**
 * The pre-flight with the confirmations applied, and what would stop the filing now; nothing is filed.
 * For a form that must ask the service something more before filing (a bridge's quote).
 */
export async function filingProblems(
  deps: Pick<FileCheckedDeps, 'preflight'>,
  draft: RequestDraft,
  confirmations: FileConfirmations = {},
): Promise<{ problems: FilingProblem[]; checks?: RequestChecks }> {
  const checks = CHECKED_KINDS.has(draft.kind) ? await deps.preflight.check(draft) : undefined;
  return checks ? { problems: confirm(checks, confirmations), checks } : { problems: [] };
}

/** Run the pre-flight, apply the confirmations, and file when nothing stops it. */
export async function fileChecked(
  deps: FileCheckedDeps,
  draft: RequestDraft,
  confirmations: FileConfirmations = {},
): Promise<FileResult> {
  const { problems, checks } = await filingProblems(deps, draft, confirmations);
  const withChecks = checks ? { checks } : {};
  if (problems.length > 0) return { ok: false, problems, ...withChecks };
  try {
    const request = await deps.file(draft, checks ? { preflight: checks } : {});
    return { ok: true, request, ...withChecks };
  } catch (error) {
    const problem = problemUnderLock(error);
    if (!problem) throw error;
    return { ok: false, problems: [problem], ...withChecks };
  }
}

/**
 * Found under the limits lock, after the pre-flight: the same payment filed meanwhile, or the limit.
 * Anything else is no filing problem.
 */
function problemUnderLock(error: unknown): FilingProblem | undefined {
  if (error instanceof SameRequestError) return { kind: 'same-request', sameAs: error.mark };
  if (error instanceof LimitExceededError) return { kind: 'daily-limit', figures: error.figures };
  return undefined;
}

/** Mark what the requester confirmed on `checks` (in place), and say what still stops the filing. */
function confirm(checks: RequestChecks, confirmations: FileConfirmations): FilingProblem[] {
  const mark = checks.lookAlike;
  if (mark && confirmations.lookAlikeConfirmedFor === mark.candidate)
    checks.lookAlike = { ...mark, compared: true };
  // The balance and the look-alike are judged where filing.ts judges them (preflight.ts).
  const problems: FilingProblem[] = preflightRefusals(checks);
  const same = checks.sameAs;
  if (same) {
    if (confirmations.sameConfirmedFor === same.id) checks.sameAs = { ...same, confirmed: true };
    else problems.push({ kind: 'same-request', sameAs: same });
  }
  return problems;
}
