// How many approvals a request needs is kept on it (`requiredApprovals`), in the store and outside the
// signed bytes: a store writer could lower it, and a withdrawal its tier asks two approvals for would go
// out on one. Just before the call the count is worked out again from the configured tiers (the
// policy's, from the environment, never the store) for the request's kind and amount, with the function
// filing uses, signed approvals or not. What only raises the count at filing (a total in the limit
// window, a look-alike destination) rests on store-held usage and checks and is not worked out again:
// where approvals are signed, the request's filing seal holds the count as filed (request-seal.ts).
import type { ApprovalPolicy } from '../access/index.js';
import { Money } from '../format/money.js';
import { movesAmount } from './limits.js';
import type { ApprovalRequest } from './types.js';

/** The note a request fails with when it counts fewer approvals than the tiers ask for. */
export const TOO_FEW_APPROVALS = 'fewer approvals than the approval tiers ask for its kind and amount';

/**
 * The approvals the request needs now: the more of its stored count and the tiers' count for its kind
 * and amount. The engine approves a request at this count too (approval-core.ts, recheck.ts), so tiers
 * raised after filing keep it waiting for the extra approval instead of failing it at the send. Undefined when that cannot be known: a stored count that is not a whole number of at
 * least one (missing, or written by hand), or a kind that moves money with no amount to read.
 */
export function approvalsNeeded(
  request: ApprovalRequest,
  policy: Pick<ApprovalPolicy, 'requiredFor'>,
): number | undefined {
  const stored: unknown = request.requiredApprovals;
  if (typeof stored !== 'number' || !Number.isSafeInteger(stored) || stored < 1) return undefined;
  let amount: Money | undefined;
  try {
    amount = request.amount === undefined ? undefined : Money.parseDecimal(request.amount);
  } catch {
    return undefined;
  }
  if (!amount && movesAmount(request.kind)) return undefined;
  return Math.max(stored, policy.requiredFor(amount, request.kind));
}

/**
 * How many approvals to show the request needs: approvalsNeeded under `tiers`, or its stored count when
 * that cannot be known (the send then fails it: approvalsShort). Worked out at each reading, so it follows
 * tiers raised since filing before anyone approves, and never carries one round's figure into the next.
 */
export function approvalsShown(request: ApprovalRequest, tiers: Pick<ApprovalPolicy, 'requiredFor'>): number {
  return approvalsNeeded(request, tiers) ?? request.requiredApprovals;
}

/**
 * TOO_FEW_APPROVALS when the request counts fewer distinct people besides its requester (a delegate's
 * approval counts for the approver in whose place it was given) than it needs now (approvalsNeeded),
 * or when that cannot be known: the tiers' count is then still compared on its own, but fails it either way.
 */
export function approvalsShort(
  request: ApprovalRequest,
  policy: Pick<ApprovalPolicy, 'requiredFor'>,
): string | undefined {
  const needed = approvalsNeeded(request, policy);
  if (needed === undefined) return TOO_FEW_APPROVALS;
  return approversCounted(request) < needed ? TOO_FEW_APPROVALS : undefined;
}

/** The distinct people whose approval counts, the requester aside (a delegate's counts for its approver). */
export function approversCounted(request: ApprovalRequest): number {
  const people = new Set(request.approvals.map((a) => a.onBehalfOf ?? a.user));
  people.delete(request.requester);
  return people.size;
}
