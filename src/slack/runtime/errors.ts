// One function from any error to the sentence a treasury operator reads. Never a stack, never a secret.
// The sentence is mrkdwn: the bot's own markup kept, whatever came from outside (the service's message,
// a person's input quoted back, field names) escaped where it enters.
import { randomBytes } from 'node:crypto';
import { ZodError } from 'zod';
import { CredentialsError } from '../../cngn/credentials.js';
import { CngnError, CngnResponseError, CngnTransportError, RateBudgetError } from '../../cngn/errors.js';
import { MoneyFormatError } from '../../format/money.js';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { Logger } from '../../log.js';
import { StoreUnavailableError } from '../../store/index.js';

/** Calls whose outcome matters when their answer cannot be read: where to look before retrying. */
const CHECK_BEFORE_RETRY: Array<[RegExp, string]> = [
  [/^POST \/v1\/api\/(withdraw|redeemAsset|bridge)$/, 'check `/cngn tx` before trying again'],
  [/^POST \/v1\/api\/whitelist$/, 'check `/cngn whitelist` before trying again'],
  [/^PUT \/v1\/api\/bank-account$/, 'check the settlement account in the cNGN dashboard before trying again'],
];

/**
 * The service answered, but not in a form we can read (keys mismatch, changed shape). For a call
 * that moves or routes money the outcome is unknown, so never suggest a blind retry; a read or a
 * check changed nothing and can simply be asked again.
 */
function unreadableAnswer(endpoint: string, quote: string): string {
  const check = CHECK_BEFORE_RETRY.find(([pattern]) => pattern.test(endpoint))?.[1];
  return check
    ? `The service answered in a form the bot could not read, so the outcome is unknown — ${check}. ${quote}`
    : `The service's answer could not be read. Try again shortly. ${quote}`;
}

export interface UserError {
  /** mrkdwn, its outside parts escaped: put it in a mrkdwn text as it is. */
  text: string;
  /** Set for errors we did not expect: quoted to the user and written to the log. */
  correlationId?: string;
}

/** The plain sentence for an error; unexpected ones get a correlation id and are logged (redacted). */
export function describeError(error: unknown, logger?: Pick<Logger, 'error'>, context?: string): UserError {
  if (error instanceof RateBudgetError) {
    return { text: `The service is busy — try again in ${error.retryInSeconds} s.` };
  }
  if (error instanceof CngnError) {
    // The words of its row in the service-answers table; they quote the service: escaped whole.
    return { text: escapeMrkdwn(error.answer.words(error)) };
  }
  if (error instanceof CngnTransportError) {
    return {
      text: error.mayHaveBeenSent
        ? 'The service did not answer in time. The outcome is unknown; nothing will be resent automatically.'
        : 'The service could not be reached. Nothing was sent; try again shortly.',
    };
  }
  if (error instanceof MoneyFormatError) return { text: escapeMrkdwn(error.message) };
  if (error instanceof CredentialsError) return { text: escapeMrkdwn(error.message) };
  const correlationId = randomBytes(4).toString('hex');
  const kind =
    error instanceof CngnResponseError
      ? 'response'
      : error instanceof ZodError
        ? 'validation'
        : error instanceof StoreUnavailableError
          ? 'store'
          : 'other';
  logger?.error('unexpected error', {
    correlationId,
    context,
    kind,
    error,
  });
  const quote = `If it keeps happening, quote reference \`${correlationId}\`.`;
  if (error instanceof CngnResponseError)
    return { text: unreadableAnswer(error.endpoint, quote), correlationId };
  if (error instanceof StoreUnavailableError) {
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
