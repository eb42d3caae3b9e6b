// The checks a filing form runs before it files (approvals/preflight.ts), in the form's terms: a
// balance that does not cover the request is an error under the amount, with the figures; a look-alike
// destination is shown under the address with a box the requester must tick, and a tick counts only
// for the address the form showed it for. The same payment filed before is shown the same way, with a
// "file it again" box that counts only for the request it was shown for.
import type {
  LookAlikeMark,
  RequestChecks,
  RequestDraft,
  SameRequestMark,
} from '../../../approvals/types.js';
import { withinDeadline } from '../../../store/index.js';
import { REVIEW_BALANCE_FRESH_MS } from '../actions/review-balance.js';
import { shortfallText } from '../blocks/checks.js';
import type { ApprovalSlackDeps, FieldErrors } from '../types.js';

export type FilingCheck =
  | { ok: true; checks: RequestChecks }
  | {
      ok: false;
      errors: FieldErrors;
      lookAlike?: LookAlikeMark | undefined;
      sameAs?: SameRequestMark | undefined;
    };

/** The form's block ids for the figures a check speaks of. */
export interface CheckedFields {
  amount?: string;
  address?: string;
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

/** Every check of the draft, and what the form must show again before it can be filed. */
export async function checkBeforeFiling(
  deps: ApprovalSlackDeps,
  draft: RequestDraft,
  fields: CheckedFields,
  comparison: Comparison,
): Promise<FilingCheck> {
  const now = deps.now?.() ?? new Date();
  const checks = await deps.engine.preflight(draft);
  const errors: FieldErrors = {};
  if (checks.balance && !checks.balance.enough && fields.amount) {
    errors[fields.amount] = `Amount: ${shortfallText(checks.balance, now)}`;
  }
  const mark = checks.lookAlike;
  if (mark) {
    const compared = comparison.ticked && comparison.shownFor === mark.candidate;
    if (compared) checks.lookAlike = { ...mark, compared: true };
    else if (fields.address) {
      const known = mark.knownAs === 'paid' ? 'an address paid before' : 'a whitelisted address';
      errors[fields.address] =
        `Address: it looks like ${known} but is not the same: compare the whole address below`;
    }
  }
  const same = checks.sameAs;
  const again = comparison.again;
  if (same && again?.ticked && again.shownFor === same.id) checks.sameAs = { ...same, confirmed: true };
  if (Object.keys(errors).length > 0 || (same && !checks.sameAs?.confirmed)) {
    return { ok: false, errors, lookAlike: checks.lookAlike, sameAs: checks.sameAs };
  }
  return { ok: true, checks };
}
