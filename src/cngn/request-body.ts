// What goes on the wire for each Encrypted endpoint, before sealing. Strict sending: the service
// rejects unknown fields, so each body names only its documented fields; absent or empty optional
// values are left out, null never appears, and Money becomes a JSON number only here.
import type { Money } from '../format/money.js';
import type {
  BridgeQuoteRequest,
  BridgeRequest,
  RedeemRequest,
  SettlementAccountRequest,
  TemporaryAccountRequest,
  WithdrawRequest,
} from './api.js';

type Field = string | number | boolean | undefined | { [name: string]: Field };

/** JSON text with undefined members dropped; null is refused rather than sent. */
export function wireJson(fields: Record<string, Field>): string {
  const strict = (value: Record<string, Field>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      if (field === undefined) continue;
      if (field === null) throw new TypeError(`${name} must not be null on the wire`);
      out[name] = typeof field === 'object' ? strict(field) : field;
    }
    return out;
  };
  return JSON.stringify(strict(fields));
}

/** An amount to send: positive, and exact as a JSON number (Money checks the latter). */
function amount(value: Money): number {
  if (!value.isPositive()) throw new RangeError('The amount must be more than zero');
  return value.toWireNumber();
}

/** Optional text: blank means "not given", never an empty string the service may refuse. */
function optional(value: string | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}

export const requestBodies = {
  temporaryAccount: (r: TemporaryAccountRequest) =>
    wireJson({
      amount: amount(r.amount),
      customer: { email: r.customer.email, name: optional(r.customer.name) },
      accountName: optional(r.accountName),
      narration: optional(r.narration),
    }),

  resolveAccount: (r: { accountNumber: string; bankCode?: string }) =>
    wireJson({ accountNumber: r.accountNumber, bankCode: optional(r.bankCode) }),

  bridgeQuote: (r: BridgeQuoteRequest) =>
    wireJson({
      amount: amount(r.amount),
      originNetworkId: r.originNetworkId,
      destinationNetworkId: r.destinationNetworkId,
      destinationAddress: r.destinationAddress,
    }),

  withdraw: (r: WithdrawRequest) =>
    wireJson({
      amount: amount(r.amount),
      address: r.address,
      networkId: r.networkId,
      shouldSaveAddress: r.shouldSaveAddress,
    }),

  redeem: (r: RedeemRequest) =>
    wireJson({
      amount: amount(r.amount),
      bankCode: optional(r.bankCode),
      accountNumber: r.accountNumber,
      saveDetails: r.saveDetails,
    }),

  bridge: (r: BridgeRequest) =>
    wireJson({
      originNetworkId: r.originNetworkId,
      destinationNetworkId: r.destinationNetworkId,
      destinationAddress: r.destinationAddress,
      senderAddress: optional(r.senderAddress),
      callbackUrl: optional(r.callbackUrl),
    }),

  whitelist: (r: { networkId: string; address: string }) =>
    wireJson({ networkId: r.networkId, address: r.address }),

  settlementAccount: (r: SettlementAccountRequest) =>
    wireJson({
      bankName: r.bankName,
      bankAccountName: r.bankAccountName,
      bankAccountNumber: r.bankAccountNumber,
    }),
};
