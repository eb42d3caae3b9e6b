// Shapes the sandbox keeps and serves, as the service's real captures show them.
import type { BankRecord } from './catalog.js';

export type TxStatus = 'pending' | 'completed' | 'failed';
export type TxType = 'withdraw' | 'fiat_redeem' | 'fiat_buy' | 'crypto_deposit' | 'swap';

export type Receiver = { address: string } | { bank: BankRecord; accountNumber: string; accountName: string };

/** A transaction exactly as `/transactions` returns it (camelCase dates, snake_case hashes). */
export interface TransactionRecord {
  id: string;
  from: string;
  receiver: Receiver;
  amount: string;
  description: string;
  createdAt: string;
  updatedAt: string;
  trx_ref: string;
  trx_type: TxType;
  network: string;
  asset_type: string;
  asset_symbol: string;
  base_trx_hash: string | null;
  extl_trx_hash: string | null;
  explorer_link: string | null;
  status: TxStatus;
  initiatorId: string;
  businessId: string;
  requires_multi_sig: boolean;
  total_sigs_required: number;
  callback_url: string | null;
}

export interface WhitelistRecord {
  id: string;
  networkId: string;
  publicKey: string;
  internalPublicKey: string;
  created_at: string;
  updated_at: string;
}

export type WebhookEventName =
  | 'deposit.received'
  | 'deposit.completed'
  | 'withdrawal.completed'
  | 'redemption.completed'
  | 'bridge.completed'
  | 'transaction.failed';

export type Permission = 'swap' | 'fiatDeposit' | 'sendCrypto' | 'redeem';
