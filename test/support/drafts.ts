// Requests as the engine files them, for tests that file directly instead of through a modal.
import type { RequestDraft } from '../../src/approvals/index.js';

/** ₦`amount` (5,000) to account 0123456789 at GTBank, whose name was shown to the requester as `accountName`. */
export function redemptionDraft(requester: string, accountName = 'ADA OBI', amount = '5000'): RequestDraft {
  return {
    kind: 'redeem',
    amount,
    payload: { amount, bankCode: '058', accountNumber: '0123456789' },
    display: { bankName: 'GTBank', accountName },
    purpose: 'Refund to customer',
    requester,
  };
}
