// The one place an error becomes what a treasury operator reads, chosen by its `code`: describeError's
// sentence, or plainError's short clause for a form. Never a stack, never a secret.
// The sentence is mrkdwn: the bot's own markup kept, whatever came from outside (the service's message,
// a person's input quoted back, field names) escaped where it enters.
import { randomBytes } from 'node:crypto';
import { ZodError } from 'zod';
import { ApprovalErrorCode, type InvalidDraftError as DraftRefusal } from '../../approvals/index.js';
import type { CredentialsError } from '../../cngn/credentials.js';
import {
  type CallEffect,
  type CngnError,
  CngnErrorCode,
  type CngnResponseError,
  type CngnTransportError,
  type RateBudgetError,
} from '../../cngn/errors.js';
import type { MoneyFormatError } from '../../format/money.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { StoreErrorCode, type StoreUnavailableError } from '../../store/index.js';

/** The errors this edge has words for, told apart by their `code`. */
type CodedError =
  | DraftRefusal
  | CngnError
  | CngnTransportError
  | CngnResponseError
  | RateBudgetError
  | CredentialsError
  | MoneyFormatError
  | StoreUnavailableError;

const KNOWN_CODES: ReadonlySet<string> = new Set<CodedError['code']>([
  ApprovalErrorCode.InvalidDraft,
  ApprovalErrorCode.LimitExceeded,
  ApprovalErrorCode.SameRequest,
  ApprovalErrorCode.UnfreezeRefused,
  CngnErrorCode.Refused,
  CngnErrorCode.Transport,
  CngnErrorCode.UnreadableAnswer,
  CngnErrorCode.RateBudget,
  CngnErrorCode.Credentials,
  'money_format',
  StoreErrorCode.Unavailable,
]);

/** The error as one of those, by its code (each code belongs to one class); otherwise undefined. */
function codedError(error: unknown): CodedError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'string' && KNOWN_CODES.has(code) ? (error as CodedError) : undefined;
}

/** For a call that changed something, where to look before retrying once its answer could not be read. */
const CHECK_BEFORE_RETRY: Readonly<Record<Exclude<CallEffect, 'none'>, string>> = {
  'moves-money': 'check `/cngn tx` before trying again',
  whitelist: 'check `/cngn whitelist` before trying again',
  'settlement-account': 'check the settlement account in the cNGN dashboard before trying again',
};

/**
 * The service answered, but not in a form we can read (keys mismatch, changed shape). For a call
 * that moves or routes money the outcome is unknown, so never suggest a blind retry; a read or a
 * check changed nothing and can simply be asked again.
 */
function unreadableAnswer(error: CngnResponseError, quote: string): string {
  return error.effect === 'none'
    ? `The service's answer could not be read. Try again shortly. ${quote}`
    : `The service answered in a form the bot could not read, so the outcome is unknown — ${CHECK_BEFORE_RETRY[error.effect]}. ${quote}`;
}

/** The sentence for an error we expect; undefined for one that needs a reference and a log line. */
function expectedSentence(error: CodedError): string | undefined {
  switch (error.code) {
    case CngnErrorCode.RateBudget:
      return `The service is busy — try again in ${error.retryInSeconds} s.`;
    case CngnErrorCode.Refused:
      // The words of its row in the service-answers table; they quote the service: escaped whole.
      return escapeMrkdwn(error.answer.words(error));
    case CngnErrorCode.Transport:
      return error.mayHaveBeenSent
        ? 'The service did not answer in time. The outcome is unknown; nothing will be resent automatically.'
        : 'The service could not be reached. Nothing was sent; try again shortly.';
    case 'money_format':
    case CngnErrorCode.Credentials:
      return escapeMrkdwn(error.message);
    case CngnErrorCode.UnreadableAnswer:
    case StoreErrorCode.Unavailable:
    case ApprovalErrorCode.InvalidDraft:
    case ApprovalErrorCode.LimitExceeded:
    case ApprovalErrorCode.SameRequest:
    case ApprovalErrorCode.UnfreezeRefused:
      return undefined;
  }
}

export interface UserError {
  /** mrkdwn, its outside parts escaped: put it in a mrkdwn text as it is. */
  text: string;
  /** Set for errors we did not expect: quoted to the user and written to the log. */
  correlationId?: string;
}

/** The plain sentence for an error; unexpected ones get a correlation id and are logged (redacted). */
export function describeError(error: unknown, logger?: Pick<Logger, 'error'>, context?: string): UserError {
  const coded = codedError(error);
  const expected = coded && expectedSentence(coded);
  if (expected !== undefined) return { text: expected };
  const correlationId = randomBytes(4).toString('hex');
  const kind =
    coded?.code === CngnErrorCode.UnreadableAnswer
      ? 'response'
      : error instanceof ZodError
        ? 'validation'
        : coded?.code === StoreErrorCode.Unavailable
          ? 'store'
          : 'other';
  logger?.error('unexpected error', {
    correlationId,
    context,
    kind,
    error,
  });
  const quote = `If it keeps happening, quote reference \`${correlationId}\`.`;
  if (coded?.code === CngnErrorCode.UnreadableAnswer)
    return { text: unreadableAnswer(coded, quote), correlationId };
  if (coded?.code === StoreErrorCode.Unavailable) {
    return {
      text: `The bot could not reach its database just now; try again shortly. ${quote}`,
      correlationId,
    };
  }
  if (error instanceof ZodError) {
    const fields = error.issues.map((i) => i.path.join('.') || 'value').slice(0, 3);
    return {
      text: `Some data did not have the expected form (${escapeMrkdwn(fields.join(', '))}). ${quote}`,
      correlationId,
    };
  }
  return { text: `Sorry — something went wrong on our side. ${quote}`, correlationId };
}

/**
 * A short, secret-free sentence for an error while filing from a form, put after a field's name or
 * "Nothing was filed:" (plain text: escape it for mrkdwn). A refused draft says why in its own words.
 */
export function plainError(error: unknown): string {
  const coded = codedError(error);
  switch (coded?.code) {
    case ApprovalErrorCode.InvalidDraft:
    case ApprovalErrorCode.LimitExceeded:
    case ApprovalErrorCode.SameRequest:
      return coded.message;
    case CngnErrorCode.Refused:
      return coded.serviceMessage;
    case CngnErrorCode.RateBudget:
      return `the service is busy; try again in ${String(coded.retryInSeconds)} s.`;
    default:
      return 'the service could not be reached. Try again shortly.';
  }
}
