// The one service call an approved request makes, by kind, and what its answer or its failure makes
// of the request. Called once per claim; never retried here or anywhere.
import { Money } from '../format/money.js';
import type { DelegationBook } from './delegation-requests.js';
import type { FreezeSwitch } from './freeze.js';
import { type PasskeyWrite, writePasskey } from './passkey-requests.js';
import { CustodyCallError, type CustodyGateway } from './ports.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

/** The service took the call: the request is sent (to be tracked) or already completed. */
export type CallResult = { to: 'sent' | 'completed'; outcome: ExecutionOutcome };

export type CallFailure = { to: 'failed' | 'outcome-unknown'; note: string };

/**
 * Where a failed call leaves the request: failed only when the gateway says it was certainly not
 * done; anything else may have been done, so its outcome is unknown (reconciled, never resent).
 */
export function failedCallOutcome(error: unknown): CallFailure {
  if (error instanceof CustodyCallError) {
    return { to: error.kind === 'not-done' ? 'failed' : 'outcome-unknown', note: error.note };
  }
  return { to: 'outcome-unknown', note: 'an unexpected error happened during the call' };
}

/** The kinds whose execution is a write to the bot's own store (nothing goes to the service). */
export const OWN_STORE_KINDS: ReadonlySet<ApprovalRequest['kind']> = new Set([
  'delegation',
  'unfreeze',
  'passkey',
]);

const OWN_STORE_WORDS: Partial<Record<ApprovalRequest['kind'], string>> = {
  delegation: 'the delegation',
  unfreeze: 'the lifting of the freeze',
  passkey: 'the passkey',
};

/**
 * A delegation's, an unfreeze's or a passkey registration's "call" is a write to the bot's own store, which says afterwards
 * whether it was made: a failed write is looked up there, never made twice. Undefined for other kinds.
 */
export function ownStoreFailure(request: ApprovalRequest, error: unknown): CallFailure | undefined {
  if (!OWN_STORE_KINDS.has(request.kind)) return undefined;
  if (error instanceof CustodyCallError) return failedCallOutcome(error);
  const what = OWN_STORE_WORDS[request.kind] ?? 'it';
  return {
    to: 'outcome-unknown',
    note: `writing ${what} to the bot's store failed or went unanswered; the store is checked for it, and it is never written twice`,
  };
}

/**
 * Make the request's one call, with the figures it carries. A delegation goes to the store instead, an
 * unfreeze lifts the freeze of sends there, and a passkey registration is written to the passkey book.
 */
export async function callService(
  custody: CustodyGateway,
  delegations: Pick<DelegationBook, 'record'>,
  request: ApprovalRequest,
  freeze: Pick<FreezeSwitch, 'lift'>,
  passkeys: PasskeyWrite,
): Promise<CallResult> {
  const sentAt = request.outcome?.sentAt;
  const base = sentAt ? { sentAt } : {};
  switch (request.kind) {
    case 'withdraw': {
      const p = request.payload;
      const result = await custody.withdraw({
        amount: Money.parseDecimal(p.amount),
        address: p.address,
        networkId: p.networkId,
        shouldSaveAddress: p.shouldSaveAddress,
      });
      return { to: 'sent', outcome: { ...base, reference: result.reference } };
    }
    case 'redeem': {
      const p = request.payload;
      const result = await custody.redeem({
        amount: Money.parseDecimal(p.amount),
        accountNumber: p.accountNumber,
        bankCode: p.bankCode,
      });
      return { to: 'sent', outcome: { ...base, reference: result.reference } };
    }
    case 'bridge': {
      const result = await custody.bridge({ ...request.payload });
      return {
        to: 'sent',
        outcome: {
          ...base,
          reference: result.reference,
          receivableAddress: result.receivableAddress,
          ...(result.transactionId ? { transactionId: result.transactionId } : {}),
        },
      };
    }
    case 'whitelist':
      await custody.addToWhitelist({ ...request.payload });
      return { to: 'completed', outcome: { ...base, status: 'completed' } };
    case 'settlement':
      await custody.updateSettlementAccount({ ...request.payload });
      return { to: 'completed', outcome: { ...base, status: 'completed' } };
    case 'delegation':
      // Nothing goes to the service: the delegation is written to the store, where it takes effect.
      await delegations.record(request);
      return { to: 'completed', outcome: { ...base, status: 'completed' } };
    case 'unfreeze':
      // Nothing goes to the service: the freeze is lifted in the store, and held sends go out after.
      await freeze.lift(request);
      return { to: 'completed', outcome: { ...base, status: 'completed' } };
    case 'passkey':
      // Nothing goes to the service: the passkey is written to the book, where it counts from now.
      await writePasskey(passkeys, request, sentAt ?? new Date().toISOString());
      return { to: 'completed', outcome: { ...base, status: 'completed' } };
  }
}
