// zod schemas for every resource the service returns. Liberal in what they accept (every documented
// shape, open vocabularies, extra fields kept), normalising to one shape the rest of the code uses.
import { z } from 'zod';
import { isPlainAmount, Money } from '../format/money.js';

/** A decimal amount as the service sends it (string, sometimes a number). Kept as canonical text. */
const amountText = z.union([z.string(), z.number()]).transform((value) => {
  try {
    return Money.fromService(value).toString();
  } catch {
    return String(value); // more than 2 decimals (raw chain amounts): shown as sent, never computed on
  }
});

const optionalText = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined ? undefined : String(v)));

export const networkSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  short_name: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  isDisabled: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false),
  // Documented as an object, typed as a string by one official library: never let it fail the list.
  blockchain: z.unknown(),
});
export type Network = z.infer<typeof networkSchema>;

export const balanceEntrySchema = z.looseObject({
  asset_type: z.string().nullish(),
  asset_code: z.string(),
  balance: amountText,
});
export type BalanceEntry = z.infer<typeof balanceEntrySchema>;

/**
 * The cNGN entry of a balance list, the one every figure of "our balance" reads (the approval
 * checks, reports); a list naming no cNGN entry gives its first, an empty one none.
 */
export function cngnEntry(entries: readonly BalanceEntry[]): BalanceEntry | undefined {
  return entries.find((e) => e.asset_code.toUpperCase() === 'CNGN') ?? entries[0];
}

export const whitelistedAddressSchema = z.looseObject({
  id: z.string(),
  networkId: z.string(),
  publicKey: z.string(),
  internalPublicKey: z.string().nullish(),
  network: z.looseObject({ id: z.string(), name: z.string(), short_name: z.string().nullish() }).nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type WhitelistedAddress = z.infer<typeof whitelistedAddressSchema>;

export const dedicatedAccountSchema = z.looseObject({
  accountNumber: z.string(),
  accountName: z.string(),
  bankName: z.string(),
  bankCode: z.string().nullish(),
});
export type DedicatedAccount = z.infer<typeof dedicatedAccountSchema>;

/** Documented as an array; one SDK types it as a single object. Both become an array. */
export const dedicatedAccountsSchema = z
  .union([z.array(dedicatedAccountSchema), dedicatedAccountSchema])
  .transform((v) => (Array.isArray(v) ? v : [v]));

export const temporaryAccountSchema = z.looseObject({
  reference: z.string(),
  paymentReference: z.string().nullish(),
  amount: amountText,
  amountExpected: amountText,
  fee: amountText.nullish(),
  vat: amountText.nullish(),
  currency: z.string().nullish(),
  status: z.string().nullish(),
  narration: z.string().nullish(),
  accountNumber: z.string(),
  accountName: z.string(),
  bankName: z.string(),
  bankCode: z.string().nullish(),
  expiresAt: z.string(),
});
export type TemporaryAccount = z.infer<typeof temporaryAccountSchema>;

export const bankSchema = z.looseObject({
  name: z.string(),
  code: z.string(),
  slug: z.string().nullish(),
  nibss_bank_code: z.string().nullish(),
});
export type Bank = z.infer<typeof bankSchema>;

/** camelCase (docs, .NET, Python) or snake_case (TS and Go SDKs); one shape out. */
export const resolvedAccountSchema = z
  .looseObject({
    accountNumber: z.string().optional(),
    account_number: z.string().optional(),
    accountName: z.string().optional(),
    account_name: z.string().optional(),
    bankCode: z.string().optional(),
    bank_code: z.string().optional(),
    bankName: z.string().optional(),
    bank_name: z.string().optional(),
  })
  .transform((v, ctx) => {
    const accountName = v.accountName ?? v.account_name;
    const accountNumber = v.accountNumber ?? v.account_number;
    if (!accountName || !accountNumber) {
      ctx.addIssue({ code: 'custom', message: 'account name or number missing' });
      return z.NEVER;
    }
    return {
      accountNumber,
      accountName,
      bankCode: v.bankCode ?? v.bank_code,
      bankName: v.bankName ?? v.bank_name,
    };
  });
export type ResolvedAccount = z.infer<typeof resolvedAccountSchema>;

export const settlementAccountSchema = z.looseObject({
  bankName: z.string(),
  bankAccountName: z.string(),
  bankAccountNumber: z.string(),
});
export type SettlementAccount = z.infer<typeof settlementAccountSchema>;

const bankObjectSchema = z.looseObject({ name: z.string().nullish(), code: z.string().nullish() });

/** `{address}`, `{bank (text or object), accountNumber}`, or a bare string (old API, webhooks). */
const receiverSchema = z.union([
  z.string(),
  z.looseObject({
    address: z.string().nullish(),
    bank: z.union([z.string(), bankObjectSchema]).nullish(),
    accountNumber: z.string().nullish(),
    accountName: z.string().nullish(),
  }),
]);

export const transactionSchema = z.looseObject({
  id: optionalText,
  from: z.string().nullish(),
  receiver: receiverSchema.nullish(),
  amount: amountText,
  description: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
  trx_ref: z.string(),
  trx_type: z.string().nullish(),
  network: z.string().nullish(),
  asset_type: z.string().nullish(),
  asset_symbol: z.string().nullish(),
  base_trx_hash: z.string().nullish(),
  extl_trx_hash: z.string().nullish(),
  explorer_link: z.string().nullish(),
  status: z
    .string()
    .nullish()
    .transform((v) => v ?? 'unknown'),
});
export type Transaction = z.infer<typeof transactionSchema>;

export const paginationSchema = z.looseObject({
  count: z.number(),
  pages: z.number(),
  isLastPage: z.boolean(),
  nextPage: z.number().nullish(),
  previousPage: z.number().nullish(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** Since 2025 `{data, pagination}`; in 2024 a bare array. */
export const transactionPageSchema = z
  .union([
    z.looseObject({ data: z.array(transactionSchema), pagination: paginationSchema.nullish() }),
    z.array(transactionSchema),
  ])
  .transform((v) => {
    const data = Array.isArray(v) ? v : v.data;
    const pagination = (!Array.isArray(v) && v.pagination) || null;
    return { data, pagination };
  });
export type TransactionPage = z.infer<typeof transactionPageSchema>;

/** The same page's frame, its transactions not yet checked (the client checks them a slice at a time). */
export const transactionFrameSchema = z.union([
  z.looseObject({ data: z.array(z.unknown()), pagination: paginationSchema.nullish() }),
  z.array(z.unknown()),
]);

export const withdrawResultSchema = z.looseObject({ trxRef: z.string(), address: z.string().nullish() });
export type WithdrawResult = z.infer<typeof withdrawResultSchema>;

/** Docs say `{trxRef, address}`; every GitBook revision shows a full transaction. One shape out. */
export const redeemResultSchema = z
  .looseObject({
    trxRef: z.string().optional(),
    trx_ref: z.string().optional(),
    address: z.string().nullish(),
  })
  .transform((v, ctx) => {
    const trxRef = v.trxRef ?? v.trx_ref;
    if (!trxRef) {
      ctx.addIssue({ code: 'custom', message: 'no trxRef or trx_ref' });
      return z.NEVER;
    }
    const transaction = v.trx_ref ? transactionSchema.safeParse(v).data : undefined;
    return { trxRef, address: v.address ?? undefined, transaction };
  });
export type RedeemResult = z.infer<typeof redeemResultSchema>;

export const bridgeQuoteSchema = z.looseObject({
  amountReceivable: amountText,
  networkFee: amountText,
  bridgeFee: amountText,
});
export type BridgeQuote = z.infer<typeof bridgeQuoteSchema>;

export const bridgeResultSchema = z.looseObject({
  receivableAddress: z.string(),
  transactionId: optionalText,
  reference: z.string(),
});
export type BridgeResult = z.infer<typeof bridgeResultSchema>;

/** The envelope as it arrives, before `data` is opened. Error shapes included. */
export const envelopeSchema = z.looseObject({
  status: z.union([z.number(), z.boolean(), z.string()]).optional(),
  message: z.unknown().optional(),
  error: z.unknown().optional(),
  data: z.unknown().optional(),
});

// ---- Webhooks -------------------------------------------------------------------------------------

/**
 * A webhook amount: a plain amount (see isPlainAmount) as canonical text; anything else kept exactly as
 * it came, so it can be shown as sent and is never read as a figure (see invalidAmountOf).
 */
const webhookAmountText = z.union([z.string(), z.number()]).transform((value) => {
  const text = String(value);
  return isPlainAmount(text) ? Money.parseDecimal(text).toString() : text;
});

/** The amount as it came when it is present and no plain amount; undefined otherwise. */
export function invalidAmountOf(data: { amount?: string | null }): string | undefined {
  const { amount } = data;
  if (amount === undefined || amount === null) return undefined;
  return isPlainAmount(amount) ? undefined : amount;
}

const webhookDataSchema = z.looseObject({
  transactionId: optionalText,
  trx_ref: z.string().nullish(),
  businessId: z.string().nullish(),
  initiatorId: z.string().nullish(),
  status: z.string().nullish(),
  trx_type: z.string().nullish(),
  network: z.string().nullish(),
  base_trx_hash: z.string().nullish(),
  extl_trx_hash: z.string().nullish(),
  explorer_link: z.string().nullish(),
  amount: webhookAmountText.nullish(),
  asset_symbol: z.string().nullish(),
  receiver: receiverSchema.nullish(),
  reason: z.string().nullish(),
  occurredAt: z.string().nullish(),
});
export type WebhookData = z.infer<typeof webhookDataSchema>;

/** `data` may arrive sealed like response data; the receiver opens it before this schema runs. */
export const webhookEventSchema = z.looseObject({
  event: z.string().min(1),
  data: webhookDataSchema,
  timestamp: z.string().nullish(),
});
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

export const bridgeCallbackSchema = z.looseObject({
  explorerLink: z.string().nullish(),
  hash: z.string().nullish(),
  transactionId: optionalText,
  status: z.string().nullish(),
  amount: amountText.nullish(),
});

// ---- Vocabularies ---------------------------------------------------------------------------------

export type StatusClass = 'pending' | 'succeeded' | 'failed' | 'unknown';

/** Open status vocabulary mapped to a class: `completed` and `success` are both final-good. */
export function classifyStatus(status: string | null | undefined): StatusClass {
  const s = (status ?? '').toLowerCase();
  if (['completed', 'success', 'successful', 'succeeded', 'settled'].includes(s)) return 'succeeded';
  if (['failed', 'rejected', 'cancelled', 'canceled', 'reversed', 'expired', 'declined'].includes(s))
    return 'failed';
  if (s.startsWith('pending') || ['processing', 'initiated', 'queued', 'submitted'].includes(s))
    return 'pending';
  return 'unknown';
}
