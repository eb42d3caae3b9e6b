// The sandbox business's books: balance, transactions, whitelist, accounts, and the few primitives
// every operation shares (record a transaction, debit, credit). The operations themselves live in
// outgoing.ts, deposits.ts and whitelist.ts; timers and webhooks in timeline.ts.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { Money } from '../format/money.js';
import { BUSINESS_NAME, type NetworkRecord, networksFor, type SandboxMode, stableUuid } from './catalog.js';
import { type HistoryShape, type SeedIdentity, seedHistory, seedWhitelist } from './history.js';
import { newEvmAddress, newId, newReference } from './names.js';
import { badRequest } from './rules.js';
import type { PendingPlan } from './settlement.js';
import type { Permission, Receiver, TransactionRecord, TxType, WhitelistRecord } from './types.js';

export const UNAVAILABLE = 'Service is currently unavailable. Please try again later.';

export type Body<T extends z.ZodType> = z.infer<T>;

/** Rounded half-up integer arithmetic on kobo: kobo × numerator / denominator. */
export const HALF_UP = (kobo: bigint, numerator: bigint, denominator: bigint) =>
  (kobo * numerator + denominator / 2n) / denominator;

export interface StateOptions {
  mode: SandboxMode;
  now: () => number;
  temporaryAccountTtlMs: number;
  whitelistTimelockMs: number;
  requireWhitelistedAddress: boolean;
  permissions: Record<Permission, boolean>;
  /** How much history is seeded (default: 36 transactions over the last days). */
  history?: HistoryShape | undefined;
}

export interface TemporaryAccountRecord {
  view: Record<string, unknown> & { reference: string; expiresAt: string };
  amount: Money;
  expected: Money;
  expiresAtMs: number;
  paidRef?: string;
}

export interface QuoteRecord {
  origin: string;
  destination: string;
  address: string;
  amount: Money;
}

export class SandboxState {
  readonly networks: NetworkRecord[];
  readonly identity: SeedIdentity;
  balance = Money.parseDecimal('1250000.00');
  serviceAvailable = true;
  /** The next redemption's payout fails (whatever the account), once; then this resets. */
  failNextRedemption = false;
  ipAllowed = true;
  sshKeyUploaded = true;
  readonly permissions: Record<Permission, boolean>;
  /** Newest first, like the service lists them. */
  readonly transactions: TransactionRecord[];
  /** How each pending transaction will end. */
  readonly plans = new Map<string, PendingPlan>();
  readonly whitelist: WhitelistRecord[];
  lastWhitelistAddAt: number | undefined;
  readonly temporaryAccounts = new Map<string, TemporaryAccountRecord>();
  /** Tests: the text given as each new temporary account's expiry instead of its time. */
  expiryText: string | undefined;
  /** Latest first; a bridge assumes the amount of its route's latest quote. */
  readonly quotes: QuoteRecord[] = [];
  settlement = {
    bankName: 'Guaranty Trust Bank',
    bankAccountName: BUSINESS_NAME,
    bankAccountNumber: '0123456789',
  };
  readonly savedRedeemAccounts: Array<{ bankCode: string; accountNumber: string }> = [];
  /** Tests: names the bank returns for these account numbers instead of the generated one. */
  readonly accountNames = new Map<string, string>();

  constructor(readonly config: StateOptions) {
    const now = config.now();
    this.networks = networksFor(config.mode);
    this.permissions = { ...config.permissions };
    const wallet = createHash('sha256').update(`cngn-sandbox:${config.mode}:wallet`).digest('hex');
    this.identity = {
      businessId: stableUuid(`${config.mode}:business`),
      initiatorId: stableUuid(`${config.mode}:initiator`),
      businessAddress: `0x${wallet.slice(0, 40)}`,
    };
    this.whitelist = seedWhitelist(this.networks, now);
    this.transactions = seedHistory(this.networks, this.whitelist, this.identity, now, config.history);
  }

  nowIso(): string {
    return new Date(this.config.now()).toISOString();
  }

  networkById(id: string, field: string): NetworkRecord {
    const network = this.networks.find((n) => n.id === id);
    if (!network) throw badRequest(`${field}: Network not found`);
    if (network.isDisabled) throw badRequest(`${field}: Network ${network.name} is currently disabled`);
    return network;
  }

  /** For the control routes: `base`, `Base` or an ID; default Base. */
  networkByShortName(short: string | undefined): NetworkRecord {
    const wanted = (short ?? 'base').toLowerCase();
    const network = this.networks.find(
      (n) => !n.isDisabled && (n.short_name === wanted || n.name.toLowerCase() === wanted || n.id === short),
    );
    if (!network) throw badRequest(`network: Unknown network ${short}`);
    return network;
  }

  find(reference: string): TransactionRecord | undefined {
    return this.transactions.find((tx) => tx.trx_ref === reference);
  }

  debit(amount: Money): void {
    if (amount.compare(this.balance) > 0) throw badRequest('Insufficient balance');
    this.balance = this.balance.minus(amount);
  }

  credit(amount: Money): void {
    this.balance = this.balance.plus(amount);
  }

  record(input: {
    kind: string;
    type: TxType;
    amount: Money;
    from: string;
    receiver: Receiver;
    description: string;
    network: string;
    status?: TransactionRecord['status'];
    callbackUrl?: string;
  }): TransactionRecord {
    const at = this.nowIso();
    const tx: TransactionRecord = {
      id: newId(),
      from: input.from,
      receiver: input.receiver,
      amount: input.amount.toString(),
      description: input.description,
      createdAt: at,
      updatedAt: at,
      trx_ref: newReference(input.kind),
      trx_type: input.type,
      network: input.network,
      asset_type: 'wrapped',
      asset_symbol: 'CNGN',
      base_trx_hash: null,
      extl_trx_hash: null,
      explorer_link: null,
      status: input.status ?? 'pending',
      initiatorId: this.identity.initiatorId,
      businessId: this.identity.businessId,
      requires_multi_sig: false,
      total_sigs_required: 0,
      callback_url: input.callbackUrl ?? null,
    };
    this.transactions.unshift(tx);
    return tx;
  }

  appendWhitelist(network: NetworkRecord, address: string): void {
    const at = this.nowIso();
    this.whitelist.push({
      id: newId(),
      networkId: network.id,
      publicKey: address,
      internalPublicKey: newEvmAddress(),
      created_at: at,
      updated_at: at,
    });
  }

  transactionsPage(page: number, limit: number) {
    const count = this.transactions.length;
    const pages = Math.ceil(count / limit);
    return {
      data: this.transactions.slice((page - 1) * limit, page * limit),
      pagination: {
        count,
        pages,
        isLastPage: page >= pages,
        nextPage: page < pages ? page + 1 : null,
        previousPage: page > 1 ? Math.min(page - 1, Math.max(pages, 1)) : null,
      },
    };
  }
}
