// The service client as the approval engine's custody gateway: the engine's calls mapped to endpoints
// and priorities, the service's transactions and webhook events put in the engine's words, and a
// failed money call explained as what it proves (not done, or may have been done).

import {
  type BalanceFigure,
  type CachedRead,
  type CallFailureKind,
  CustodyCallError,
  type CustodyGateway,
  type CustodyReport,
  type CustodyTransaction,
  type ServiceReadOptions,
} from '../approvals/ports.js';
import { Money } from '../format/money.js';
import type { CngnApi, Priority } from './api.js';
import { CngnErrorCode, cngnCallError } from './errors.js';
import {
  type BalanceEntry,
  classifyStatus,
  cngnEntry,
  invalidAmountOf,
  type Transaction,
  type WebhookEvent,
} from './schemas.js';

/**
 * What a failed money call proves, for the errors the client throws; undefined for any other error
 * (the engine then counts it as may have been done).
 */
export function classifyFailure(error: unknown): CustodyCallError | undefined {
  const failure = (kind: CallFailureKind, note: string) => new CustodyCallError(kind, note, { cause: error });
  const known = cngnCallError(error);
  switch (known?.code) {
    case CngnErrorCode.Transport:
      return known.mayHaveBeenSent
        ? failure('may-have-been-done', 'the service may have received it, but no answer arrived')
        : failure('not-done', 'the service could not be reached; nothing was sent');
    case CngnErrorCode.RateBudget:
      return failure('not-done', 'the request budget was spent; nothing was sent');
    case CngnErrorCode.Refused:
      // A refusal the service makes before acting (service-answers.ts): the service's own words.
      if (known.answer.provesNothingDone) return failure('not-done', known.serviceMessage);
      return failure(
        'may-have-been-done',
        `the service answered ${known.httpStatus} "${known.serviceMessage}", which does not show whether it acted`,
      );
    case CngnErrorCode.UnreadableAnswer:
      return failure('may-have-been-done', 'the answer could not be read');
    default:
      return undefined;
  }
}

/** A money call, its failure explained; never retried here. */
async function moneyCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw classifyFailure(error) ?? error;
  }
}

// The trx_type each request kind shows in the transaction list, in both vocabularies the sources use.
const KIND_OF_TYPE: Readonly<Record<string, CustodyTransaction['kind']>> = {
  withdraw: 'withdraw',
  withdrawal: 'withdraw',
  fiat_redeem: 'redeem',
  redeem: 'redeem',
  enaira_redeem: 'redeem',
  swap: 'bridge',
  bridge: 'bridge',
};

/** A listed transaction in the engine's words. */
export function custodyTransaction(tx: Transaction): CustodyTransaction {
  const receiver = tx.receiver;
  const address = typeof receiver === 'string' ? receiver : receiver?.address;
  const accountNumber = typeof receiver === 'string' ? receiver.split(':')[1] : receiver?.accountNumber;
  const bankCode = bankCodeOf(receiver);
  const type = (tx.trx_type ?? '').toLowerCase();
  const kind = Object.hasOwn(KIND_OF_TYPE, type) ? KIND_OF_TYPE[type] : undefined;
  return {
    reference: tx.trx_ref,
    ...(tx.id ? { id: tx.id } : {}),
    ...(kind ? { kind } : {}),
    status: tx.status,
    result: classifyStatus(tx.status),
    ...(tx.createdAt ? { createdAt: tx.createdAt } : {}),
    amount: tx.amount,
    destination: {
      ...(address ? { address } : {}),
      ...(accountNumber ? { accountNumber } : {}),
      ...(bankCode ? { bankCode } : {}),
    },
    ...(tx.network ? { network: tx.network } : {}),
    ...(tx.explorer_link ? { explorerLink: tx.explorer_link } : {}),
    ...(tx.extl_trx_hash || tx.base_trx_hash
      ? { hash: tx.extl_trx_hash ?? tx.base_trx_hash ?? undefined }
      : {}),
  };
}

/** A redemption's bank code: `bankCode:accountNumber:name`, or the receiver's bank object or text. */
function bankCodeOf(receiver: Transaction['receiver']): string | undefined {
  if (typeof receiver === 'string')
    return receiver.includes(':') ? receiver.split(':')[0] || undefined : undefined;
  const bank = receiver?.bank;
  // A bank given as text may be its name or its code: only digits read as a code.
  if (typeof bank === 'string') return /^\d{3,6}$/.test(bank) ? bank : undefined;
  return bank?.code ?? undefined;
}

/** The cNGN entry of the balance list, as the engine's figure; none listed reads as zero. */
function cngnBalance(entries: readonly BalanceEntry[], asOf: Date): BalanceFigure {
  const entry = cngnEntry(entries);
  return { amount: entry ? Money.fromService(entry.balance).toString() : '0.00', asOf: asOf.toISOString() };
}

const FINAL_EVENT: Readonly<Record<string, 'completed' | 'failed'>> = {
  'withdrawal.completed': 'completed',
  'redemption.completed': 'completed',
  'bridge.completed': 'completed',
  'transaction.failed': 'failed',
};

/**
 * The final result a webhook event reports: by its name, else by its own status. A name and an own
 * status that disagree (a completion whose status says failed, or the reverse) give no result: the
 * report contradicts itself. A status that is no final word (`processing`) leaves the name to decide.
 */
function reportedResult(event: WebhookEvent): { result?: 'completed' | 'failed'; contradicts: boolean } {
  const byStatus = classifyStatus(event.data.status);
  const statusSays = byStatus === 'succeeded' ? 'completed' : byStatus === 'failed' ? 'failed' : undefined;
  const nameSays = Object.hasOwn(FINAL_EVENT, event.event) ? FINAL_EVENT[event.event] : undefined;
  if (nameSays && statusSays && nameSays !== statusSays) return { contradicts: true };
  const result = nameSays ?? statusSays;
  return { ...(result ? { result } : {}), contradicts: false };
}

/**
 * A webhook event in the engine's words. `unreadable` names the fields reading left out: an amount
 * among them was sent but is no amount.
 */
export function custodyReport(
  event: WebhookEvent,
  unreadable: readonly string[] = [],
  delivery?: string,
): CustodyReport {
  const data = event.data;
  const { result, contradicts } = reportedResult(event);
  const invalid = invalidAmountOf(data) !== undefined || unreadable.includes('amount');
  return {
    name: event.event,
    key: [event.event, data.transactionId, data.trx_ref, data.status, data.amount]
      .map((part) => part ?? '')
      .join('|'),
    ...(invalid ? { amountInvalid: true as const } : data.amount ? { amount: data.amount } : {}),
    references: [data.trx_ref, data.transactionId].filter((k): k is string => !!k),
    ...(delivery ? { delivery } : {}),
    ...(result ? { result } : {}),
    ...(contradicts ? { contradictsItself: true as const } : {}),
    ...(data.status != null ? { status: data.status } : {}),
    ...(data.reason ? { reason: data.reason } : {}),
    ...(data.explorer_link ? { explorerLink: data.explorer_link } : {}),
    ...(data.base_trx_hash || data.extl_trx_hash
      ? { hash: data.extl_trx_hash ?? data.base_trx_hash ?? undefined }
      : {}),
  };
}

/** A read the next money call waits on goes with it; other tracking reads stay in the background. */
const readPriority = (options?: ServiceReadOptions): Priority =>
  options?.beforeSending ? 'money' : 'background';

/** A list read's options for the client: its priority, and how old a cached answer may be. */
const cachedRead = (options: CachedRead & ServiceReadOptions) => ({
  priority: readPriority(options),
  ...(options.maxAgeMs !== undefined ? { maxAgeMs: options.maxAgeMs } : {}),
});

/** The client as the engine's custody gateway. */
export function custodyGateway(api: CngnApi): CustodyGateway {
  return {
    environment: api.environment,
    withdraw: (order) => moneyCall(async () => ({ reference: (await api.withdraw(order)).trxRef })),
    redeem: (order) => moneyCall(async () => ({ reference: (await api.redeem(order)).trxRef })),
    bridge: (order) =>
      moneyCall(async () => {
        const result = await api.bridge(order);
        return {
          reference: result.reference,
          receivableAddress: result.receivableAddress,
          ...(result.transactionId ? { transactionId: result.transactionId } : {}),
        };
      }),
    addToWhitelist: (entry) =>
      moneyCall(async () => {
        await api.addWhitelist(entry);
      }),
    updateSettlementAccount: (account) =>
      moneyCall(async () => {
        await api.updateSettlementAccount(account);
      }),
    bridgeQuote: (ask) => api.bridgeQuote(ask, { priority: 'money' }),
    accountName: async (account) => (await api.resolveAccount(account, { priority: 'money' })).accountName,
    withdrawal: async (reference) =>
      custodyTransaction(await api.verifyWithdrawal(reference, { priority: 'background' })),
    transaction: async (reference) =>
      custodyTransaction(await api.getTransaction(reference, { priority: 'background' })),
    transactions: async (page, limit, options = {}) => {
      const result = await api.getTransactions({ page, limit, ...cachedRead(options) });
      return {
        transactions: result.data.map(custodyTransaction),
        ...(result.pagination ? { lastPage: result.pagination.isLastPage } : {}),
      };
    },
    whitelist: async (options = {}) =>
      (await api.getWhitelisted(cachedRead(options))).map((w) => ({
        networkId: w.networkId,
        address: w.publicKey,
      })),
    balance: async (options = {}) => {
      const read = options.stored ? await api.lastBalance() : await api.getBalanceWithTime();
      return read ? cngnBalance(read.entries, read.asOf) : undefined;
    },
    networks: async () =>
      (await api.getNetworks()).map((n) => ({
        id: n.id,
        name: n.name,
        shortName: n.short_name,
        enabled: !n.isDisabled,
      })),
  };
}
