// Typed errors at the service boundary. One function elsewhere maps these to what a user reads.

/** The service answered with an error envelope (or a non-2xx HTTP status). */
export class CngnError extends Error {
  override name = 'CngnError';
  constructor(
    /** The service's own message, e.g. `Permission denied`. Never contains our secrets. */
    readonly serviceMessage: string,
    readonly httpStatus: number,
    /** `METHOD /path` without query or reference values that could identify a customer. */
    readonly endpoint: string,
  ) {
    super(`${endpoint} failed (HTTP ${httpStatus}): ${serviceMessage}`);
  }

  get kind(): CngnErrorKind {
    return classifyServiceMessage(this.serviceMessage, this.httpStatus);
  }
}

/** The request may or may not have reached the service: timeout, reset, 5xx after sending. */
export class CngnTransportError extends Error {
  override name = 'CngnTransportError';
  constructor(
    message: string,
    readonly endpoint: string,
    /** True when the body may have been received and acted on (the outcome is unknown). */
    readonly mayHaveBeenSent: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

/** A response that arrived but could not be opened or did not have the documented shape. */
export class CngnResponseError extends Error {
  override name = 'CngnResponseError';
  constructor(
    message: string,
    readonly endpoint: string,
  ) {
    super(`${endpoint}: ${message}`);
  }
}

/** Our own limiter refused a read because the shared request budget is spent. Nothing was sent. */
export class RateBudgetError extends Error {
  override name = 'RateBudgetError';
  constructor(readonly retryInSeconds: number) {
    super(`The service's request budget is spent; try again in ${retryInSeconds} s`);
  }
}

export type CngnErrorKind =
  | 'permission-denied'
  | 'ip-not-allowed'
  | 'invalid-key'
  | 'no-ssh-key'
  | 'decryption-failed'
  | 'validation'
  | 'service-unavailable'
  | 'account-unresolvable'
  | 'not-found'
  | 'merchant-not-found'
  | 'rate-limited'
  | 'server-error'
  | 'other';

/** Every field name our request bodies carry (and legacy names), as validation answers name them. */
const REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'accountName',
  'accountNumber',
  'address',
  'amount',
  'bank',
  'bankAccountName',
  'bankAccountNumber',
  'bankCode',
  'bankName',
  'callbackUrl',
  'customer',
  'destinationAddress',
  'destinationNetwork',
  'destinationNetworkId',
  'email',
  'name',
  'narration',
  'network',
  'networkId',
  'originNetwork',
  'originNetworkId',
  'saveDetails',
  'senderAddress',
  'shouldSaveAddress',
]);

export function classifyServiceMessage(message: string, httpStatus: number): CngnErrorKind {
  const m = message.toLowerCase();
  if (m.includes('permission denied')) return 'permission-denied';
  if (m.includes('ip address') || m.includes('client ip') || m.includes('security context'))
    return 'ip-not-allowed';
  if (m.includes('too many requests') || httpStatus === 429) return 'rate-limited';
  if (m.includes('merchant not found')) return 'merchant-not-found';
  if (m.includes('no token') || m.includes('token prefix') || m.includes('invalid api key'))
    return 'invalid-key';
  if (m.includes('ssh key')) return 'no-ssh-key';
  if (m.includes('decryption failed') || m.includes('missing encryption')) return 'decryption-failed';
  if (m.includes('currently unavailable')) return 'service-unavailable';
  if (m.includes('could not resolve account')) return 'account-unresolvable';
  if (m.includes('not found')) return 'not-found';
  // Validation answers are 400 "<field>: <reason>" naming a field we send; "Error: …" or
  // "TypeError: …" from a crash is not one, and must not pass for "refused before acting".
  const field = /^([a-z][\w]*)(?:\.[\w.]+)?: /i.exec(message)?.[1];
  if (httpStatus === 400 && field && REQUEST_FIELDS.has(field)) return 'validation';
  if (httpStatus >= 500) return 'server-error';
  return 'other';
}
