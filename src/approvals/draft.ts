// The engine's boundary: a draft is checked with zod before it is filed, so what approvers see and
// what will be sent is well-formed whoever built it (a modal, a script, a future command).
import { z } from 'zod';
import { visibleLength } from '../format/hidden-characters.js';
import { Money } from '../format/money.js';
import { ADDRESS_FAMILIES, checkWalletAddress } from '../format/wallet-address.js';
import { ApprovalErrorCode, type DraftRefusalCode } from './error-codes.js';
import type { RequestDraft } from './types.js';

const amount = z.string().refine((text) => {
  try {
    const money = Money.parseDecimal(text);
    money.toWireNumber();
    return money.isPositive();
  } catch {
    return false;
  }
}, 'must be a positive amount with at most 2 decimals');

// The form checked the address by its network's family; here it must be valid in at least one (an
// EVM one with a valid checksum), so nothing malformed is ever filed.
const wallet = z
  .string()
  .refine(
    (text) => text === text.trim() && ADDRESS_FAMILIES.some((family) => checkWalletAddress(family, text).ok),
    'must be a valid wallet address',
  );
const account = z.string().regex(/^\d{10}$/, 'must be 10 digits');
const id = z.string().min(1).max(200);
const text = z.string().min(1).max(200);

const display = z.strictObject({
  networkName: text.optional(),
  originNetworkName: text.optional(),
  destinationNetworkName: text.optional(),
  bankName: text.optional(),
  bankCode: text.optional(),
  accountName: text.optional(),
  quote: z
    .strictObject({ amountReceivable: amount, networkFee: z.string(), bridgeFee: z.string() })
    .optional(),
});

/** A purpose is said in 3 to 140 characters (code points), on one line. */
const PURPOSE_MIN = 3;
const PURPOSE_MAX = 140;

/**
 * Why a purpose (trimmed) cannot be filed, in words for "Purpose: …"; undefined when it can. Hidden
 * characters other than controls (a bidi override, a zero-width space) are let through and shown
 * marked, as in any text from outside; a line break or other control character is not. Either way at
 * least 3 characters must be visible: approvers read what the payment is for, not markers.
 */
export function purposeProblem(text: string): string | undefined {
  const length = [...text].length;
  if (length < PURPOSE_MIN) return `at least ${PURPOSE_MIN} characters, say what the payment is for`;
  if (length > PURPOSE_MAX) return `at most ${PURPOSE_MAX} characters (this one has ${length})`;
  if (/\p{Cc}/u.test(text)) return 'one line, without line breaks, tabs or control characters';
  if (visibleLength(text) < PURPOSE_MIN) {
    return `at least ${PURPOSE_MIN} visible characters, say what the payment is for (invisible characters and spaces do not count)`;
  }
  return undefined;
}

const purpose = z
  .string({ error: `required: say in ${PURPOSE_MIN} to ${PURPOSE_MAX} characters what the payment is for` })
  .trim()
  .superRefine((text, context) => {
    const problem = purposeProblem(text);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const base = { display, requester: z.string().min(1) };
const payment = { ...base, purpose };

/** Why sends are frozen: said in every message while they are, so a sentence, not an essay. */
export const FREEZE_REASON_MIN = 3;
export const FREEZE_REASON_MAX = 300;
export const freezeReason = z
  .string()
  .trim()
  .min(FREEZE_REASON_MIN, `must say why, in ${FREEZE_REASON_MIN} to ${FREEZE_REASON_MAX} characters`)
  .max(FREEZE_REASON_MAX, `must say why, in ${FREEZE_REASON_MIN} to ${FREEZE_REASON_MAX} characters`);

/** A passkey's name ("Bola's MacBook"): one line, said by its owner. */
const PASSKEY_NAME_MAX = 64;
const passkeyName = z
  .string()
  .trim()
  .min(1, 'must be named')
  .max(PASSKEY_NAME_MAX, `at most ${PASSKEY_NAME_MAX} characters`)
  .refine((name) => !/\p{Cc}/u.test(name), 'one line, without control characters');
const base64url = z.string().regex(/^[A-Za-z0-9_-]{1,2048}$/, 'must be base64url');
/** A WebAuthn credential id is at most 1023 bytes: 1364 characters of base64url. */
const credentialIdText = z.string().regex(/^[A-Za-z0-9_-]{1,1364}$/, 'must be base64url, at most 1023 bytes');

const requestDraftSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('withdraw'),
    amount,
    payload: z.strictObject({ amount, address: wallet, networkId: id, shouldSaveAddress: z.boolean() }),
    ...payment,
  }),
  z.strictObject({
    kind: z.literal('redeem'),
    amount,
    payload: z.strictObject({ amount, bankCode: text, accountNumber: account }),
    ...payment,
  }),
  z.strictObject({
    kind: z.literal('bridge'),
    amount,
    payload: z.strictObject({
      originNetworkId: id,
      destinationNetworkId: id,
      destinationAddress: wallet,
      senderAddress: wallet.optional(),
    }),
    ...payment,
  }),
  z.strictObject({
    kind: z.literal('whitelist'),
    payload: z.strictObject({ networkId: id, address: wallet }),
    ...base,
  }),
  z.strictObject({
    kind: z.literal('delegation'),
    payload: z.strictObject({
      delegator: id,
      delegate: id,
      until: z.iso.datetime({ offset: true }),
      max: amount.optional(),
    }),
    ...base,
  }),
  z.strictObject({
    kind: z.literal('unfreeze'),
    payload: z.strictObject({
      frozenBy: id,
      frozenAt: z.iso.datetime({ offset: true }),
      reason: freezeReason,
    }),
    ...base,
  }),
  z.strictObject({
    kind: z.literal('passkey'),
    payload: z.strictObject({
      user: id,
      name: passkeyName,
      credentialId: credentialIdText,
      publicKey: base64url,
      counter: z.number().int().min(0),
      aaguid: z.string().max(64).optional(),
      transports: z.array(z.string().max(32)).max(10).optional(),
    }),
    ...base,
  }),
  z.strictObject({
    kind: z.literal('settlement'),
    payload: z.strictObject({
      bankName: text,
      bankAccountName: z.string().min(3).max(50),
      bankAccountNumber: account,
    }),
    ...base,
  }),
]);

export class InvalidDraftError extends Error {
  override name = 'InvalidDraftError';
  readonly code: DraftRefusalCode = ApprovalErrorCode.InvalidDraft;
}

/** The draft, checked; the amount shown to approvers must be the amount that will be sent. */
export function checkDraft(draft: RequestDraft): RequestDraft {
  const parsed = requestDraftSchema.safeParse(draft);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidDraftError(`${issue?.path.join('.') ?? 'draft'}: ${issue?.message ?? 'invalid'}`);
  }
  const checked = parsed.data as RequestDraft;
  if ((checked.kind === 'withdraw' || checked.kind === 'redeem') && checked.amount) {
    if (!Money.parseDecimal(checked.amount).equals(Money.parseDecimal(checked.payload.amount))) {
      throw new InvalidDraftError('amount: differs from the amount in the payload');
    }
  }
  return checked;
}
