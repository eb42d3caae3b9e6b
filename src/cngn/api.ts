// What the rest of the bot may ask of the custody service: one method per endpoint, plus the
// environment it talks to. CngnClient implements it over HTTP; nothing else does.
import type { Money } from '../format/money.js';
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

/** `sandbox` is the embedded fake; `test`/`live` come from the API key prefix. */
export type CngnEnvironment = 'sandbox' | 'test' | 'live';

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
  getBalance(): Promise<BalanceEntry[]>;
  getNetworks(options?: { includeBlockchain?: boolean }): Promise<Network[]>;
  getBanks(): Promise<Bank[]>;
  getDedicatedAccounts(): Promise<DedicatedAccount[]>;
  getWhitelisted(options?: { includeNetwork?: boolean }): Promise<WhitelistedAddress[]>;
  getTransactions(options?: { page?: number; limit?: number }): Promise<TransactionPage>;
  getTransaction(reference: string): Promise<Transaction>;
  verifyWithdrawal(reference: string): Promise<Transaction>;

  // Writes (POST/PUT): never retried. Money-moving ones take priority in the rate budget.
  createTemporaryAccount(request: TemporaryAccountRequest): Promise<TemporaryAccount>;
  resolveAccount(request: { accountNumber: string; bankCode?: string }): Promise<ResolvedAccount>;
  bridgeQuote(request: BridgeQuoteRequest): Promise<BridgeQuote>;
  withdraw(request: WithdrawRequest): Promise<WithdrawResult>;
  redeem(request: RedeemRequest): Promise<RedeemResult>;
  bridge(request: BridgeRequest): Promise<BridgeResult>;
  addWhitelist(request: { networkId: string; address: string }): Promise<WhitelistedAddress[]>;
  updateSettlementAccount(request: SettlementAccountRequest): Promise<SettlementAccount>;

  /** A network by id, name or short code (case-insensitive), from the cached list. */
  resolveNetwork(nameOrCode: string): Promise<Network | undefined>;
}
