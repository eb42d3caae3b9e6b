// Figures that can go stale between filing and approval are read again at the final approval: the
// bridge quote (receivable may drop) and the resolved account name (the account may have changed).
import { Money } from '../format/money.js';
import type { CustodyGateway } from './ports.js';
import type { ApprovalRequest } from './types.js';

export type RecheckResult =
  | { material: false; request: ApprovalRequest }
  | { material: true; request: ApprovalRequest; reason: string };

export function needsRecheck(request: ApprovalRequest): boolean {
  return request.kind === 'bridge' || request.kind === 'redeem' || request.kind === 'settlement';
}

const sameName = (a: string | undefined, b: string) =>
  (a ?? '').trim().replace(/\s+/g, ' ').toLowerCase() === b.trim().replace(/\s+/g, ' ').toLowerCase();

/** Read the figures again (an approval is waiting) and say whether they changed materially. */
export async function recheckFigures(
  custody: CustodyGateway,
  request: ApprovalRequest,
): Promise<RecheckResult> {
  switch (request.kind) {
    case 'bridge': {
      if (!request.amount) return { material: false, request };
      const quote = await custody.bridgeQuote({
        amount: Money.parseDecimal(request.amount),
        originNetworkId: request.payload.originNetworkId,
        destinationNetworkId: request.payload.destinationNetworkId,
        destinationAddress: request.payload.destinationAddress,
      });
      const fresh = {
        amountReceivable: quote.amountReceivable,
        networkFee: quote.networkFee,
        bridgeFee: quote.bridgeFee,
      };
      const before = request.display.quote?.amountReceivable;
      const updated = { ...request, display: { ...request.display, quote: fresh } };
      if (before && Money.parseDecimal(fresh.amountReceivable).compare(Money.parseDecimal(before)) < 0) {
        return {
          material: true,
          request: updated,
          reason: `the quote changed: ₦${fresh.amountReceivable} would arrive instead of ₦${before}`,
        };
      }
      return { material: false, request: updated };
    }
    case 'redeem': {
      const accountName = await custody.accountName({
        accountNumber: request.payload.accountNumber,
        bankCode: request.payload.bankCode,
      });
      if (sameName(request.display.accountName, accountName)) return { material: false, request };
      return {
        material: true,
        request: { ...request, display: { ...request.display, accountName } },
        reason: `the account name is now "${accountName}" (was "${request.display.accountName ?? ''}")`,
      };
    }
    case 'settlement': {
      const accountName = await custody.accountName({
        accountNumber: request.payload.bankAccountNumber,
        ...(request.display.bankCode ? { bankCode: request.display.bankCode } : {}),
      });
      if (sameName(request.payload.bankAccountName, accountName)) return { material: false, request };
      return {
        material: true,
        request: {
          ...request,
          payload: { ...request.payload, bankAccountName: accountName },
          display: { ...request.display, accountName },
        },
        reason: `the account name is now "${accountName}" (was "${request.payload.bankAccountName}")`,
      };
    }
    default:
      return { material: false, request };
  }
}
