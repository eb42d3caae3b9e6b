// How a pending transaction ends: the final status, the hashes it gains, the event it emits, and
// whether the token goes back to the balance.
import { Money } from '../format/money.js';
import type { NetworkRecord } from './catalog.js';
import { newTxHash } from './names.js';
import type { TransactionRecord, TxType, WebhookEventName } from './types.js';

export const PAYOUT_FAILED = 'Provider failed to process payout';
const WITHDRAWAL_REVERTED = 'Transaction reverted on chain';

export interface PendingPlan {
  type: TxType;
  fails: boolean;
  reason?: string;
  network?: NetworkRecord;
  /** Bridge only: the URL told once on completion. */
  callbackUrl?: string | undefined;
  /** Bridge only: what arrives on the destination chain. */
  receivable?: Money;
}

export function planFor(type: TxType, network: NetworkRecord | undefined, fails: boolean): PendingPlan {
  const reason = !fails ? undefined : type === 'fiat_redeem' ? PAYOUT_FAILED : WITHDRAWAL_REVERTED;
  return { type, fails, ...(reason ? { reason } : {}), ...(network ? { network } : {}) };
}

const COMPLETED_EVENT: Record<TxType, WebhookEventName> = {
  withdraw: 'withdrawal.completed',
  fiat_redeem: 'redemption.completed',
  swap: 'bridge.completed',
  fiat_buy: 'deposit.completed',
  crypto_deposit: 'deposit.completed',
};

export interface Settled {
  tx: TransactionRecord;
  event: WebhookEventName;
  reason?: string;
  /** Token to put back on the balance (failed outgoing) or to credit (completed deposit). */
  credit?: Money;
}

/** Move a pending transaction to its final status (mutates `tx`). */
export function settleTransaction(tx: TransactionRecord, plan: PendingPlan, nowIso: string): Settled {
  tx.updatedAt = nowIso;
  const amount = Money.parseDecimal(tx.amount);
  if (plan.fails) {
    tx.status = 'failed';
    return { tx, event: 'transaction.failed', reason: plan.reason ?? 'Transaction failed', credit: amount };
  }
  tx.status = 'completed';
  const hash = newTxHash();
  tx.base_trx_hash = hash;
  if (plan.type === 'swap') tx.extl_trx_hash = newTxHash();
  if (plan.network) tx.explorer_link = `${plan.network.explorerTx}${tx.extl_trx_hash ?? hash}`;
  const isDeposit = plan.type === 'fiat_buy' || plan.type === 'crypto_deposit';
  return { tx, event: COMPLETED_EVENT[plan.type], ...(isDeposit ? { credit: amount } : {}) };
}
