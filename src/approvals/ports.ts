// What the approval engine needs from the custody service, in its own words: the calls it makes for
// an approved request, the reads that re-check figures and follow a sent request, and what a failed
// call means for the money. The service client adapts to this; nothing here knows its wire.

import type { ActorDirectory, ServiceEnvironment } from '../audit/index.js';
import type { Money } from '../format/money.js';
import { ApprovalErrorCode } from './error-codes.js';

export type { ActorDirectory, ServiceEnvironment };

/**
 * What a failed money call proves: `not-done` when the service certainly did not act on it (refused
 * before acting, or never reached); `may-have-been-done` when it may have, so the request is looked
 * up in the transaction list and never sent again.
 */
export type CallFailureKind = 'not-done' | 'may-have-been-done';

/** A money call that failed, as the gateway explains it; `note` says why in a person's words. */
export class CustodyCallError extends Error {
  override name = 'CustodyCallError';
  readonly code = ApprovalErrorCode.CustodyCallFailed;

  constructor(
    readonly kind: CallFailureKind,
    readonly note: string,
    options?: { cause?: unknown },
  ) {
    super(note, options);
  }
}

interface WithdrawOrder {
  amount: Money;
  address: string;
  networkId: string;
  shouldSaveAddress?: boolean;
}

interface RedeemOrder {
  amount: Money;
  accountNumber: string;
  bankCode?: string;
}

interface BridgeOrder {
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
  senderAddress?: string;
  callbackUrl?: string;
}

interface SettlementAccountOrder {
  bankName: string;
  bankAccountName: string;
  bankAccountNumber: string;
}

interface BridgeQuoteAsk {
  amount: Money;
  originNetworkId: string;
  destinationNetworkId: string;
  destinationAddress: string;
}

/** Amounts as canonical decimal text. */
interface BridgeQuote {
  amountReceivable: string;
  networkFee: string;
  bridgeFee: string;
}

/** How a transaction stands, whatever words the service used for it. */
type TransactionResult = 'succeeded' | 'failed' | 'pending' | 'unknown';

/** A transaction as the service lists it. */
export interface CustodyTransaction {
  reference: string;
  /** The service's own id of it, when it gave one. */
  id?: string;
  /** Which kind of request made it, when the service's type says so. */
  kind?: 'withdraw' | 'redeem' | 'bridge';
  /** The service's status word, kept for the record. */
  status: string;
  result: TransactionResult;
  createdAt?: string;
  /** As the service stated it: canonical decimal text unless it had more than two decimals. */
  amount: string;
  /** Where it went: a wallet address, or a bank account number (with its bank's code when given). */
  destination: { address?: string; accountNumber?: string; bankCode?: string };
  /** The network as the service names it (`BASE`, `bsc`, an id), when it gives one. */
  network?: string;
  explorerLink?: string;
  hash?: string;
}

/** The cNGN balance as read from the service, and when (ISO). */
export interface BalanceFigure {
  /** Canonical decimal text. */
  amount: string;
  asOf: string;
}

/** A network as the service lists it. */
export interface CustodyNetwork {
  id: string;
  name: string;
  shortName: string;
  enabled: boolean;
}

/** For reads that may come from the shared cache: at most this old (ms); absent: read the service. */
export interface CachedRead {
  maxAgeMs?: number;
}

/** One page of the transaction list, newest first; `lastPage` when the service says so. */
interface TransactionListPage {
  transactions: CustodyTransaction[];
  lastPage?: boolean;
}

/**
 * What the service reported on its own about a transaction (a webhook): the references it names,
 * and, when it reports one, the final result.
 */
export interface CustodyReport {
  /** The report's name (`withdrawal.completed`), for the request's history. */
  name: string;
  /** The transaction reference and the service's transaction id, those it gave. */
  references: string[];
  result?: 'completed' | 'failed';
  /** Its name says one final result and its own status the other: it settles nothing. */
  contradictsItself?: true;
  status?: string;
  reason?: string;
  explorerLink?: string;
  hash?: string;
  /** The amount the report names, as a plain decimal (absent when it names none or an invalid one). */
  amount?: string;
  /** The report has an amount that is no amount (`1e309`, `-500`, null, an object): it settles nothing. */
  amountInvalid?: true;
  /** The same report delivered again (a replay, a subscriber run again at start) has the same key. */
  key: string;
  /** The delivery it came in (a webhook's id), when it came in one. */
  delivery?: string;
}

/**
 * A read that stands between an approved request and its call (the lookup before a late send) waits
 * for the request budget as the call itself would; other tracking reads run in the background.
 */
export interface ServiceReadOptions {
  beforeSending?: boolean;
}

/**
 * The custody service as the approval engine uses it. Money calls (withdraw, redeem, bridge,
 * addToWhitelist, updateSettlementAccount) are made once and never retried; a failure rejects with
 * CustodyCallError when the gateway can tell what it proves, anything else counts as may have been
 * done. Re-checks run at money priority (an approver is waiting), tracking reads in the background.
 */
export interface CustodyGateway {
  readonly environment: ServiceEnvironment;

  withdraw(order: WithdrawOrder): Promise<{ reference: string }>;
  redeem(order: RedeemOrder): Promise<{ reference: string }>;
  /** `receivableAddress`: where the quoted amount has to be sent on the origin network. */
  bridge(
    order: BridgeOrder,
  ): Promise<{ reference: string; receivableAddress: string; transactionId?: string }>;
  addToWhitelist(entry: { networkId: string; address: string }): Promise<void>;
  updateSettlementAccount(account: SettlementAccountOrder): Promise<void>;

  /** Re-checks of figures that go stale. */
  bridgeQuote(ask: BridgeQuoteAsk): Promise<BridgeQuote>;
  accountName(account: { accountNumber: string; bankCode?: string }): Promise<string>;

  /** Tracking reads. */
  withdrawal(reference: string): Promise<CustodyTransaction>;
  transaction(reference: string): Promise<CustodyTransaction>;
  transactions(
    page: number,
    limit: number,
    options?: CachedRead & ServiceReadOptions,
  ): Promise<TransactionListPage>;
  /** The whitelisted addresses, by network. */
  whitelist(
    options?: CachedRead & ServiceReadOptions,
  ): Promise<Array<{ networkId: string; address: string }>>;

  /**
   * Pre-flight reads (nothing moves). The balance through the shared cache; with `stored`, the last
   * figure read, from the store only (never the service), undefined when none was read yet.
   */
  balance(options?: { stored?: boolean }): Promise<BalanceFigure | undefined>;
  /** Every network the service lists, enabled or not (cached). */
  networks(): Promise<CustodyNetwork[]>;
}
