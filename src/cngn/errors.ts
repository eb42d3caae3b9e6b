// Typed errors at the service boundary. What an error answer means (its kind, its words, whether it
// proves nothing was done) is read from the one table in service-answers.ts.
import { type CngnErrorKind, type ServiceAnswer, serviceAnswer } from './service-answers.js';

export type { CngnErrorKind } from './service-answers.js';

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
