// Typed errors at the service boundary. What an error answer means (its kind, its words, whether it
// proves nothing was done) is read from the one table in service-answers.ts.
import { type CngnErrorKind, type ServiceAnswer, serviceAnswer } from './service-answers.js';

export type { CngnErrorKind } from './service-answers.js';

/**
 * The stable codes of the service client's errors: a caller switches on `error.code`, never on a
 * class name or a message. (`CngnError.kind` says further which answer the service gave.)
 */
export const CngnErrorCode = {
  /** The service answered with an error. */
  Refused: 'cngn_refused',
  /** No answer arrived; whether the request did is in `mayHaveBeenSent`. */
  Transport: 'cngn_transport',
  /** An answer arrived but could not be opened or read. */
  UnreadableAnswer: 'cngn_unreadable_answer',
  /** Our own limiter refused: nothing was sent. */
  RateBudget: 'cngn_rate_budget',
  /** The configured keys are not usable. */
  Credentials: 'cngn_credentials',
  /** A sealed body could not be opened. */
  Wire: 'cngn_wire',
  /** A private key is not in the expected form. */
  KeyFormat: 'cngn_key_format',
  /** The HTTP layer's own failure, before it becomes a transport error. */
  TransportFailure: 'cngn_transport_failure',
} as const;
export type CngnErrorCode = (typeof CngnErrorCode)[keyof typeof CngnErrorCode];

/** The service answered with an error envelope (or a non-2xx HTTP status). */
export class CngnError extends Error {
  override name = 'CngnError';
  readonly code = CngnErrorCode.Refused;
  constructor(
    /** The service's own message, e.g. `Permission denied`. Never contains our secrets. */
    readonly serviceMessage: string,
    readonly httpStatus: number,
    /** `METHOD /path` without query or reference values that could identify a customer. */
    readonly endpoint: string,
  ) {
    super(`${endpoint} failed (HTTP ${httpStatus}): ${serviceMessage}`);
  }

  /** The row of the service-answers table this answer matches. */
  get answer(): ServiceAnswer {
    return serviceAnswer(this.serviceMessage, this.httpStatus);
  }

  get kind(): CngnErrorKind {
    return this.answer.kind;
  }
}

/** The request may or may not have reached the service: timeout, reset, 5xx after sending. */
export class CngnTransportError extends Error {
  override name = 'CngnTransportError';
  readonly code = CngnErrorCode.Transport;
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

/**
 * What a call changes at the service when it is carried out, as the client that made it knows:
 * `none` for reads and checks, which can simply be asked again.
 */
export type CallEffect = 'none' | 'moves-money' | 'whitelist' | 'settlement-account';

/** A response that arrived but could not be opened or did not have the documented shape. */
export class CngnResponseError extends Error {
  override name = 'CngnResponseError';
  readonly code = CngnErrorCode.UnreadableAnswer;
  /** The call moves money, so its outcome is unknown rather than simply unread. */
  readonly movesMoney: boolean;
  constructor(
    message: string,
    readonly endpoint: string,
    /** Set by the client from the call it made, never read back from the endpoint's path. */
    readonly effect: CallEffect = 'none',
  ) {
    super(`${endpoint}: ${message}`);
    this.movesMoney = effect === 'moves-money';
  }
}

/** Our own limiter refused a read because the shared request budget is spent. Nothing was sent. */
export class RateBudgetError extends Error {
  override name = 'RateBudgetError';
  readonly code = CngnErrorCode.RateBudget;
  constructor(readonly retryInSeconds: number) {
    super(`The service's request budget is spent; try again in ${retryInSeconds} s`);
  }
}

/** The errors a call through the client ends in, told apart by their `code`. */
export type CngnCallError = CngnError | CngnTransportError | CngnResponseError | RateBudgetError;

const CALL_ERROR_CODES: ReadonlySet<string> = new Set<CngnCallError['code']>([
  CngnErrorCode.Refused,
  CngnErrorCode.Transport,
  CngnErrorCode.UnreadableAnswer,
  CngnErrorCode.RateBudget,
]);

/** The error as one a call through the client ends in, by its code (one class each); else undefined. */
export function cngnCallError(error: unknown): CngnCallError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'string' && CALL_ERROR_CODES.has(code) ? (error as CngnCallError) : undefined;
}
