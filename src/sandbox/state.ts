// The sandbox business's books: balance, transactions, whitelist, accounts. Every rule that moves
// money or changes state lives here; timers and webhooks are in life.ts.
import type { z } from 'zod';
import { Money } from '../format/money.js';
import {
  BUSINESS_NAME,
  bankByCode,
  bankByName,
  FAILING_PAYOUT_ACCOUNT,
  FAILING_WITHDRAWAL_ADDRESS,
  type NetworkRecord,
  networksFor,
  networkView,
  type SandboxMode,
  stableUuid,
  TEMPORARY_ACCOUNT_BANK,
  UNRESOLVABLE_ACCOUNT,
} from './catalog.js';
import { type SeedIdentity, seedHistory, seedWhitelist } from './history.js';
import {
  accountHolderName,
  newAccountNumber,
  newEvmAddress,
  newId,
  newReference,
  newTxHash,
} from './names.js';
import {
  badRequest,
  type bankAccountBody,
  type bridgeBody,
  type bridgeQuoteBody,
  type redeemBody,
  type temporaryAccountBody,
  type whitelistBody,
  type withdrawBody,
} from './rules.js';
import { type PendingPlan, planFor } from './settlement.js';
import type { Permission, Receiver, TransactionRecord, TxType, WhitelistRecord } from './types.js';

export const UNAVAILABLE = 'Service is currently unavailable. Please try again later.';
const UNRESOLVABLE = 'Could not resolve account details';

export interface StateOptions {
  mode: SandboxMode;
  now: () => number;
  temporaryAccountTtlMs: number;
  whitelistTimelockMs: number;
  requireWhitelistedAddress: boolean;
  permissions: Record<Permission, boolean>;
}

export interface TemporaryAccountRecord {
  view: Record<string, unknown> & { reference: string; expiresAt: string };
  amount: Money;
  expected: Money;
  expiresAtMs: number;
  paidRef?: string;
}

interface QuoteRecord {
  origin: string;
  destination: string;
  address: string;
  amount: Money;
}

type Body<T extends z.ZodType> = z.infer<T>;

const money = (value: number) => Money.fromService(value);
const HALF_UP = (kobo: bigint, numerator: bigint, denominator: bigint) =>
  (kobo * numerator + denominator / 2n) / denominator;

export class SandboxState {
  readonly networks: NetworkRecord[];
  readonly identity: SeedIdentity;
  balance = Money.parseDecimal('1250000.00');
  serviceAvailable = true;
  ipAllowed = true;
  readonly permissions: Record<Permission, boolean>;
  /** Newest first, like the service lists them. */
  readonly transactions: TransactionRecord[];
  readonly plans = new Map<string, PendingPlan>();
  readonly whitelist: WhitelistRecord[];
  readonly temporaryAccounts = new Map<string, TemporaryAccountRecord>();
  settlement = {
    bankName: 'Guaranty Trust Bank',
    bankAccountName: BUSINESS_NAME,
    bankAccountNumber: '0123456789',
  };
  savedRedeemAccounts: Array<{ bankCode: string; accountNumber: string }> = [];
  private lastWhitelistAddAt: number | undefined;
  private readonly quotes: QuoteRecord[] = [];

  constructor(private readonly options: StateOptions) {
    const now = options.now();
    this.networks = networksFor(options.mode);
    this.permissions = { ...options.permissions };
    this.identity = {
      businessId: stableUuid(`${options.mode}:business`),
      initiatorId: stableUuid(`${options.mode}:initiator`),
      businessAddress: `0x${stableUuid(`${options.mode}:wallet`).replace(/-/g, '').slice(0, 40).padEnd(40, '7')}`,
    };
    this.whitelist = seedWhitelist(this.networks, now);
    this.transactions = seedHistory(this.networks, this.whitelist, this.identity, now);
  }

  private nowIso(): string {
    return new Date(this.options.now()).toISOString();
  }

  networkById(id: string, field: string): NetworkRecord {
    const network = this.networks.find((n) => n.id === id);
    if (!network) throw badRequest(`${field}: Network not found`);
    if (network.isDisabled) throw badRequest(`${field}: Network ${network.name} is currently disabled`);
    return network;
  }

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

  private debit(amount: Money): void {
    if (amount.compare(this.balance) > 0) throw badRequest('Insufficient balance');
    this.balance = this.balance.minus(amount);
  }

  credit(amount: Money): void {
    this.balance = this.balance.plus(amount);
  }

  private record(input: {
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

  withdraw(body: Body<typeof withdrawBody>): {
    tx: TransactionRecord;
    result: { trxRef: string; address: string };
  } {
    if (!this.serviceAvailable) throw badRequest(UNAVAILABLE);
    const network = this.networkById(body.networkId, 'networkId');
    const listed = this.whitelist.some(
      (w) => w.networkId === network.id && w.publicKey.toLowerCase() === body.address.toLowerCase(),
    );
    if (this.options.requireWhitelistedAddress && !listed && !body.shouldSaveAddress) {
      throw badRequest('Address is not whitelisted');
    }
    const amount = money(body.amount);
    this.debit(amount);
    if (body.shouldSaveAddress && !listed) this.appendWhitelist(network, body.address);
    const tx = this.record({
      kind: 'WD',
      type: 'withdraw',
      amount,
      from: this.identity.businessAddress,
      receiver: { address: body.address },
      description: `Withdrawal to ${body.address}`,
      network: network.short_name,
    });
    const fails = body.address.toLowerCase() === FAILING_WITHDRAWAL_ADDRESS.toLowerCase();
    this.plans.set(tx.trx_ref, planFor('withdraw', network, fails));
    return { tx, result: { trxRef: tx.trx_ref, address: body.address } };
  }

  verifyAccount(accountNumber: string, bankCode: string | undefined) {
    const bank = bankCode ? bankByCode(bankCode) : bankByName(this.settlement.bankName);
    if (!bank || accountNumber === UNRESOLVABLE_ACCOUNT) throw badRequest(UNRESOLVABLE);
    return {
      bank,
      view: {
        accountNumber,
        accountName: accountHolderName(bank.code, accountNumber),
        bankCode: bank.code,
        bankName: bank.name,
      },
    };
  }

  redeem(body: Body<typeof redeemBody>): {
    tx: TransactionRecord;
    result: { trxRef: string; address: string };
  } {
    if (!this.serviceAvailable) throw badRequest(UNAVAILABLE);
    const { bank, view } = this.verifyAccount(body.accountNumber, body.bankCode);
    const amount = money(body.amount);
    this.debit(amount);
    if (body.saveDetails)
      this.savedRedeemAccounts.push({ bankCode: bank.code, accountNumber: body.accountNumber });
    const tx = this.record({
      kind: 'RD',
      type: 'fiat_redeem',
      amount,
      from: this.identity.businessAddress,
      receiver: { bank, accountNumber: body.accountNumber, accountName: view.accountName },
      description: `Redemption to ${bank.name} ${body.accountNumber}`,
      network: 'xbn',
    });
    this.plans.set(
      tx.trx_ref,
      planFor('fiat_redeem', undefined, body.accountNumber === FAILING_PAYOUT_ACCOUNT),
    );
    return { tx, result: { trxRef: tx.trx_ref, address: newEvmAddress() } };
  }

  quote(body: Body<typeof bridgeQuoteBody>) {
    const origin = this.networkById(body.originNetworkId, 'originNetworkId');
    const destination = this.networkById(body.destinationNetworkId, 'destinationNetworkId');
    if (origin.id === destination.id) {
      throw badRequest('destinationNetworkId: Origin and destination networks must differ');
    }
    const amount = money(body.amount);
    const networkFee = Money.fromKobo(destination.networkFeeKobo);
    // 0.5% service fee, at least ₦10.
    const bridgeFee = Money.fromKobo(
      [HALF_UP(amount.kobo, 5n, 1000n), 1_000n].reduce((a, b) => (a > b ? a : b)),
    );
    const receivable = amount.minus(networkFee).minus(bridgeFee);
    if (!receivable.isPositive()) throw badRequest('amount: Amount is too small to cover the bridge fees');
    this.quotes.unshift({
      origin: origin.id,
      destination: destination.id,
      address: body.destinationAddress,
      amount,
    });
    return {
      amountReceivable: receivable.toString(),
      networkFee: networkFee.toString(),
      bridgeFee: bridgeFee.toString(),
    };
  }

  bridge(body: Body<typeof bridgeBody>) {
    const origin = this.networkById(body.originNetworkId, 'originNetworkId');
    const destination = this.networkById(body.destinationNetworkId, 'destinationNetworkId');
    if (origin.id === destination.id) {
      throw badRequest('destinationNetworkId: Origin and destination networks must differ');
    }
    // The bridge body carries no amount: the business sends the quoted amount to receivableAddress.
    // The sandbox assumes the latest matching quote was sent (₦1,000 when none was asked for).
    const sameRoute = (q: QuoteRecord) => q.origin === origin.id && q.destination === destination.id;
    const quoted =
      this.quotes.find(
        (q) => sameRoute(q) && q.address.toLowerCase() === body.destinationAddress.toLowerCase(),
      ) ?? this.quotes.find(sameRoute);
    const amount = quoted?.amount ?? Money.parseDecimal('1000');
    this.debit(amount);
    const tx = this.record({
      kind: 'BR',
      type: 'swap',
      amount,
      from: body.senderAddress ?? this.identity.businessAddress,
      receiver: { address: body.destinationAddress },
      description: `Bridge from ${origin.name} to ${destination.name}`,
      network: destination.short_name,
      ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
    });
    const plan = planFor('swap', destination, false);
    plan.callbackUrl = body.callbackUrl;
    const networkFee = Money.fromKobo(destination.networkFeeKobo);
    const bridgeFee = Money.fromKobo(
      [HALF_UP(amount.kobo, 5n, 1000n), 1_000n].reduce((a, b) => (a > b ? a : b)),
    );
    const receivable = amount.minus(networkFee).minus(bridgeFee);
    plan.receivable = receivable.isPositive() ? receivable : amount;
    this.plans.set(tx.trx_ref, plan);
    return {
      tx,
      result: { receivableAddress: newEvmAddress(), transactionId: tx.id, reference: tx.trx_ref },
    };
  }

  private appendWhitelist(network: NetworkRecord, address: string): void {
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

  addWhitelist(body: Body<typeof whitelistBody>) {
    const network = this.networkById(body.networkId, 'networkId');
    const exists = this.whitelist.some(
      (w) => w.networkId === network.id && w.publicKey.toLowerCase() === body.address.toLowerCase(),
    );
    if (exists) throw badRequest(`Address is already whitelisted on ${network.name}`);
    const now = this.options.now();
    if (this.lastWhitelistAddAt !== undefined) {
      const opensAt = this.lastWhitelistAddAt + this.options.whitelistTimelockMs;
      if (now < opensAt) {
        throw badRequest(
          `Whitelist timelock active: another address can be added after ${new Date(opensAt).toISOString()}`,
        );
      }
    }
    this.appendWhitelist(network, body.address);
    this.lastWhitelistAddAt = now;
    return this.whitelistView(false);
  }

  whitelistView(includeNetwork: boolean) {
    return this.whitelist.map((entry) => {
      const network = this.networks.find((n) => n.id === entry.networkId);
      const view = networkView(network as NetworkRecord, false);
      return includeNetwork
        ? { ...entry, network: { id: view.id, name: view.name, short_name: view.short_name } }
        : { ...entry };
    });
  }

  createTemporaryAccount(body: Body<typeof temporaryAccountBody>) {
    const amount = money(body.amount);
    // 1% processing fee capped at ₦2,000; VAT 7.5% of the fee; both rounded half-up to the kobo.
    const feeKobo = [HALF_UP(amount.kobo, 1n, 100n), 200_000n].reduce((a, b) => (a < b ? a : b));
    const vatKobo = HALF_UP(feeKobo, 75n, 1000n);
    const expected = amount.plus(Money.fromKobo(feeKobo)).plus(Money.fromKobo(vatKobo));
    const expiresAtMs = this.options.now() + this.options.temporaryAccountTtlMs;
    const reference = newReference('VA');
    const view = {
      reference,
      paymentReference: `KPY-${newId().replace(/-/g, '').slice(0, 20).toUpperCase()}`,
      amount: amount.toWireNumber(),
      amountExpected: expected.toWireNumber(),
      fee: Money.fromKobo(feeKobo).toWireNumber(),
      vat: Money.fromKobo(vatKobo).toWireNumber(),
      currency: 'NGN',
      status: 'pending',
      narration: body.narration ?? `Deposit for ${BUSINESS_NAME}`,
      accountNumber: newAccountNumber(),
      accountName: body.accountName ?? `${BUSINESS_NAME} CHECKOUT`,
      bankName: TEMPORARY_ACCOUNT_BANK.bankName,
      bankCode: TEMPORARY_ACCOUNT_BANK.bankCode,
      expiresAt: new Date(expiresAtMs).toISOString(),
    };
    this.temporaryAccounts.set(reference, { view, amount, expected, expiresAtMs });
    return view;
  }

  /** A payment into a temporary account: a pending `fiat_buy` that life.ts completes at once. */
  payTemporaryAccount(reference: string, paid?: string): TransactionRecord {
    const account = this.temporaryAccounts.get(reference);
    if (!account) throw new Error(`No temporary virtual account with reference ${reference}`);
    if (account.paidRef) throw new Error(`Temporary virtual account ${reference} was already paid`);
    if (this.options.now() > account.expiresAtMs) {
      throw new Error(
        `Temporary virtual account ${reference} expired at ${account.view.expiresAt}; not credited`,
      );
    }
    const amount = paid === undefined ? account.expected : Money.parse(paid);
    if (!amount.equals(account.expected)) {
      throw new Error(
        `Temporary virtual account ${reference} expects exactly ${account.expected.toString()}`,
      );
    }
    const tx = this.record({
      kind: 'DP',
      type: 'fiat_buy',
      amount: account.amount,
      from: 'Virtual account deposit',
      receiver: { address: this.identity.businessAddress },
      description: `Naira deposit via ${account.view.bankName} ${String(account.view.accountNumber)}`,
      network: 'xbn',
    });
    account.paidRef = tx.trx_ref;
    account.view.status = 'completed';
    this.plans.set(tx.trx_ref, planFor('fiat_buy', undefined, false));
    return tx;
  }

  cryptoDeposit(amountText: string, networkShort: string | undefined): TransactionRecord {
    const network = this.networkByShortName(networkShort);
    const amount = Money.parse(amountText);
    if (!amount.isPositive()) throw badRequest('amount: Number must be greater than 0');
    const mint = newTxHash();
    const tx = this.record({
      kind: 'CD',
      type: 'crypto_deposit',
      amount,
      from: newEvmAddress(),
      receiver: { address: this.identity.businessAddress },
      description: `On-chain deposit on ${network.name}`,
      network: network.short_name,
      status: 'completed',
    });
    tx.base_trx_hash = mint;
    tx.extl_trx_hash = newTxHash();
    tx.explorer_link = `${network.explorerTx}${mint}`;
    this.credit(amount);
    return tx;
  }

  updateSettlement(body: Body<typeof bankAccountBody>) {
    this.settlement = { ...body };
    return { ...this.settlement };
  }

  transactionsPage(page: number, limit: number) {
    const count = this.transactions.length;
    const pages = Math.ceil(count / limit);
    const data = this.transactions.slice((page - 1) * limit, page * limit);
    return {
      data,
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
