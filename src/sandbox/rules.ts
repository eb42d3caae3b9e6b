// Request rules of the service: strict zod schemas (unknown fields refused) whose messages read like
// the service's own (`"<field>: <reason>"`, zod 3 wording), and the error the routes throw.
import { z } from 'zod';
import { Money } from '../format/money.js';

/** An error answered as `{status, message}`; `status:false` + HTTP 403 for permission errors. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  readonly code = 'sandbox_refused' as const;
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly bodyStatus: number | false = httpStatus,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SandboxError(400, message);

function typeName(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  if (typeof input === 'number' && Number.isNaN(input)) return 'nan';
  return typeof input;
}

/** zod 3 wording for type errors, which is what the service answers with. */
function typed(expected: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? 'Required' : `Expected ${expected}, received ${typeName(issue.input)}`,
  };
}

const text = () => z.string(typed('string'));
const bool = () => z.boolean(typed('boolean'));
const number = () => z.number(typed('number'));

/** True when the JSON number is an exact Naira amount (at most 2 decimals; we never compute on floats). */
function isExactNaira(value: number): boolean {
  try {
    Money.fromService(value);
    return true;
  } catch {
    return false;
  }
}

const TWO_DECIMALS = 'Amount must have at most 2 decimal places';

/** A Naira amount as a JSON number with at most 2 decimals, at least `min`. */
const amount = (min: number, minMessage: string) =>
  number().min(min, minMessage).refine(isExactNaira, TWO_DECIMALS);

const positiveAmount = () =>
  number().gt(0, 'Number must be greater than 0').refine(isExactNaira, TWO_DECIMALS);

const accountNumber = () => text().regex(/^\d{10}$/, 'Account number must be 10 digits');
const evmAddress = () => text().regex(/^0x[0-9a-fA-F]{40}$/, 'Invalid address');
const id = () => text().min(1, 'Required');

function strict<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? 'Unrecognized key(s) in object'
        : issue.input === undefined
          ? 'Required'
          : `Expected object, received ${typeName(issue.input)}`,
  });
}

export const temporaryAccountBody = strict({
  amount: amount(100, 'Minimum amount is 100 NGN'),
  customer: strict({
    email: text().pipe(z.email('Invalid email')),
    name: text().min(1, 'Name is required').optional(),
  }),
  accountName: text()
    .min(3, 'Account name must be at least 3 characters')
    .max(50, 'Account name must be at most 50 characters')
    .optional(),
  narration: text().max(100, 'Narration must be at most 100 characters').optional(),
});

export const withdrawBody = strict({
  amount: positiveAmount(),
  address: evmAddress(),
  networkId: id(),
  shouldSaveAddress: bool().optional(),
});

export const redeemBody = strict({
  amount: amount(1, 'Number must be greater than or equal to 1'),
  bankCode: text().min(1, 'Required').optional(),
  accountNumber: accountNumber(),
  saveDetails: bool().optional(),
});

export const bridgeQuoteBody = strict({
  amount: positiveAmount(),
  originNetworkId: id(),
  destinationNetworkId: id(),
  destinationAddress: evmAddress(),
});

export const bridgeBody = strict({
  originNetworkId: id(),
  destinationNetworkId: id(),
  destinationAddress: evmAddress(),
  senderAddress: evmAddress().optional(),
  callbackUrl: text().pipe(z.url('Invalid url')).optional(),
});

export const whitelistBody = strict({ networkId: id(), address: evmAddress() });

export const bankAccountBody = strict({
  bankName: text().min(1, 'Required'),
  bankAccountName: text().min(3, 'Account name must be at least 3 characters'),
  bankAccountNumber: accountNumber(),
});

// The specification leaves `bankCode` open here (as on redemptions); without one the account is
// looked up at the settlement bank.
export const accountVerifyBody = strict({
  accountNumber: accountNumber(),
  bankCode: text().min(1, 'Required').optional(),
});

/** `"<field>: <reason>"`, joined when several fields are wrong. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const path = [...issue.path.map(String), ...(keys.length ? [keys.join(', ')] : [])].join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join(', ');
}

/** Validate a plain body; a failure is the service's 400 with the field and reason. */
export function validate<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) throw badRequest(formatIssues(result.error));
  return result.data;
}

/** Query numbers (`page`, `limit`): positive integers or the default. */
export function queryInteger(value: string | null, name: string, fallback: number, max: number): number {
  if (value === null || value === '') return fallback;
  if (!/^\d+$/.test(value)) throw badRequest(`${name}: Expected number, received string`);
  const parsed = Number(value);
  if (parsed < 1) throw badRequest(`${name}: Number must be greater than or equal to 1`);
  if (parsed > max) throw badRequest(`${name}: Number must be less than or equal to ${max}`);
  return parsed;
}

export function queryBoolean(value: string | null): boolean {
  return value === 'true' || value === '1';
}
