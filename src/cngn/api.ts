// What the rest of the bot may ask of the custody service: one method per endpoint, plus the
// environment it talks to. CngnClient implements it over HTTP; nothing else does.

import type { CngnEnvironment } from '../format/environment.js';
import type { Money } from '../format/money.js';
import type { Priority, RateBudget } from './limiter.js';
import type {
  BalanceEntry,
  Bank,
  BridgeQuote,
  BridgeResult,
  DedicatedAccount,
  Network,
  RedeemResult,
  ResolvedAccount,
  SettlementAccount,
  TemporaryAccount,
  Transaction,
  TransactionPage,
  WhitelistedAddress,
  WithdrawResult,
} from './schemas.js';

export type { CngnEnvironment } from '../format/environment.js';

export type { Priority } from './limiter.js';

export interface CallOptions {
  priority?: Priority;
}

export interface ReadCallOptions extends CallOptions {
  /** Ends the read at once, its wait for budget or its request (reads only: a write is never cut). */
  signal?: AbortSignal | undefined;
}

export interface ReadOptions extends ReadCallOptions {
  /** Skip the cache and read the service (still within the budget). */
  fresh?: boolean;
}

export interface MaybeCachedOptions extends ReadCallOptions {
  /** Take the answer from the shared cache when it is at most this old (ms); absent: read the service. */
  maxAgeMs?: number;
}

export interface TemporaryAccountRequest {
  amount: Money;
  customer: { email: string; name?: string };
  accountName?: string;
  narration?: string;
}

export interface WithdrawRequest {
  amount: Money;
  address: string;
  networkId: string;
  shouldSaveAddress?: boolean;
}

export interface RedeemRequest {
  amount: Money;
  accountNumber: string;
  bankCode?: string;
  saveDetails?: boolean;
}

export interface BridgeQuoteRequest {
  amount: Money;
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
}

export interface BridgeRequest {
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
  senderAddress?: string;
  callbackUrl?: string;
}

export interface SettlementAccountRequest {
  bankName: string;
  bankAccountName: string;
  bankAccountNumber: string;
}

export interface CngnApi {
  readonly environment: CngnEnvironment;

  // Reads (GET): retried on 429/5xx/connection errors, served from caches where it is safe.
  // Default priority of reads: interactive.
  getBalance(options?: ReadOptions): Promise<BalanceEntry[]>;
  /** The balance with the time it was read from the service (cached for seconds): "as of HH:mm". */
  getBalanceWithTime(options?: ReadOptions): Promise<{ entries: BalanceEntry[]; asOf: Date }>;
  /** The last balance read, however old, from the store only (no service call); undefined if none yet. */
  lastBalance(): Promise<{ entries: BalanceEntry[]; asOf: Date } | undefined>;
  getNetworks(options?: { includeBlockchain?: boolean } & ReadOptions): Promise<Network[]>;
  getBanks(options?: ReadOptions): Promise<Bank[]>;
  getDedicatedAccounts(options?: CallOptions): Promise<DedicatedAccount[]>;
  getWhitelisted(options?: { includeNetwork?: boolean } & MaybeCachedOptions): Promise<WhitelistedAddress[]>;
  getTransactions(options?: { page?: number; limit?: number } & MaybeCachedOptions): Promise<TransactionPage>;
  getTransaction(reference: string, options?: CallOptions): Promise<Transaction>;
  verifyWithdrawal(reference: string, options?: CallOptions): Promise<Transaction>;

  // Writes (POST/PUT): never retried. Money-moving ones always run at `money` priority; the
  // checks (resolveAccount, bridgeQuote) default to interactive and take `money` at approval.
  createTemporaryAccount(request: TemporaryAccountRequest, options?: CallOptions): Promise<TemporaryAccount>;
  resolveAccount(
    request: { accountNumber: string; bankCode?: string },
    options?: CallOptions,
  ): Promise<ResolvedAccount>;
  bridgeQuote(request: BridgeQuoteRequest, options?: CallOptions): Promise<BridgeQuote>;
  withdraw(request: WithdrawRequest): Promise<WithdrawResult>;
  redeem(request: RedeemRequest): Promise<RedeemResult>;
  bridge(request: BridgeRequest): Promise<BridgeResult>;
  addWhitelist(request: { networkId: string; address: string }): Promise<WhitelistedAddress[]>;
  updateSettlementAccount(request: SettlementAccountRequest): Promise<SettlementAccount>;

  /** The shared request budget right now, for status displays. */
  budget(): Promise<RateBudget>;

  /** A network by id, name or short code (case-insensitive), from the cached list. */
  resolveNetwork(nameOrCode: string, options?: CallOptions): Promise<Network | undefined>;
}
