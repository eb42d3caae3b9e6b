// The amount approvers are shown (request.amount) is the amount the service call sends (the payload's
// own, for the kinds that carry one). Filing compares them (draft.ts); this compares them again just
// before the call, and before a signature is re-checked, so a payload amount edited in the store is
// never sent, signed or not.
import { Money } from '../format/money.js';
import type { ApprovalRequest } from './types.js';

/** The note a request fails with when its payload's amount is not the amount shown. */
export const AMOUNT_DIFFERS =
  'the amount to be sent differs from the amount approvers were shown; nothing was sent';

/** Does the payload's amount (where the kind has one) equal request.amount, decimal-exact? */
export function amountsAgree(request: ApprovalRequest): boolean {
  if (request.kind !== 'withdraw' && request.kind !== 'redeem') return true;
  try {
    const shown = request.amount;
    return (
      shown !== undefined && Money.parseDecimal(shown).equals(Money.parseDecimal(request.payload.amount))
    );
  } catch {
    return false;
  }
}
