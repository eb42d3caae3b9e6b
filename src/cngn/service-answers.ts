// What each error answer of the service means, in one table: what it matches, its kind, the words
// people read, and whether it proves the service did nothing. The service checks the key, then the IP
// allowlist, then decrypts the body, then validates it, then acts; an answer from those checks (or a
// documented refusal such as an insufficient balance) proves nothing was done, so a money call so
// answered has failed with nothing sent. Any other answer to a money call leaves its outcome unknown.

export type CngnErrorKind =
  | 'permission-denied'
  | 'ip-not-allowed'
  | 'invalid-key'
  | 'no-ssh-key'
  | 'decryption-failed'
  | 'validation'
  | 'service-unavailable'
  | 'insufficient-balance'
  | 'account-unresolvable'
  | 'not-found'
  | 'merchant-not-found'
  | 'rate-limited'
  | 'server-error'
  | 'other';

/** The parts of an error answer a row reads. */
interface AnswerText {
  serviceMessage: string;
  httpStatus: number;
  /** `METHOD /path`, e.g. `POST /v1/api/withdraw`. */
  endpoint: string;
}

export interface ServiceAnswer {
  kind: CngnErrorKind;
  /** The message (trimmed) and HTTP status this row stands for. */
  matches: (message: string, httpStatus: number) => boolean;
  /** True only when the service gives this answer before acting: nothing was done. */
  provesNothingDone: boolean;
  /** What a person reads, as plain text (escaped wherever it enters mrkdwn). */
  words: (answer: AnswerText) => string;
}

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

const PERMISSION_BY_ENDPOINT: Array<[RegExp, string]> = [
  [/bridge/, 'Swap'],
  [/virtual-account/, 'Fiat Deposit'],
  [/withdraw/, 'Send Crypto'],
  [/redeemAsset/, 'Redeem'],
];

const isClientError = (status: number) => status >= 400 && status < 500;

/**
 * One of the service's own sentences, whole: case and a final full stop aside. A text that only
 * contains it ("Error: Permission denied at …", a crash) is not it.
 */
function says(...sentences: string[]): ServiceAnswer['matches'] {
  const wanted = new Set(sentences.map(normalise));
  return (message, status) => isClientError(status) && wanted.has(normalise(message));
}

function normalise(sentence: string): string {
  return sentence.trim().replace(/\.$/, '').toLowerCase();
}

/**
 * A validation answer is HTTP 400 "<field>: <reason>" naming a field we send (`amount: Minimum amount
 * is 100 NGN`); "Error: …" or "TypeError: …" from a crash names no such field.
 */
function namesOurField(message: string, status: number): boolean {
  const field = /^([a-z]\w*)(?:\.[\w.]+)?: \S/i.exec(message)?.[1];
  return status === 400 && field !== undefined && REQUEST_FIELDS.has(field);
}

/** Read top to bottom; the first row that matches is the answer. */
export const SERVICE_ANSWERS: readonly ServiceAnswer[] = [
  {
    kind: 'rate-limited',
    matches: (message, status) =>
      status === 429 || says('Too many requests. Please try again later.')(message, status),
    provesNothingDone: true,
    words: () => 'The service is rate limiting this key; try again in about a minute.',
  },
  {
    kind: 'invalid-key',
    matches: says('No token provided', 'Invalid token prefix', 'Invalid api key'),
    provesNothingDone: true,
    words: () =>
      'The service did not accept the API key (check CNGN_API_KEY and that it is for this environment).',
  },
  {
    kind: 'merchant-not-found',
    matches: says('Merchant not found'),
    provesNothingDone: true,
    words: () => 'The service does not know this business (Merchant not found): check the API key.',
  },
  {
    kind: 'ip-not-allowed',
    matches: says(
      'IP address not whitelisted',
      'Could not determine client IP address',
      'Security context not found',
    ),
    provesNothingDone: true,
    words: () =>
      "The service refused this server's IP address. Add the bot's outgoing IP to the allowlist in the cNGN dashboard.",
  },
  {
    kind: 'permission-denied',
    matches: says('Permission denied'),
    provesNothingDone: true,
    words: ({ endpoint }) => {
      const permission = PERMISSION_BY_ENDPOINT.find(([pattern]) => pattern.test(endpoint))?.[1];
      return permission
        ? `Permission denied: the API key lacks the ${permission} permission. An admin can grant it in the cNGN dashboard.`
        : 'Permission denied: the API key is not allowed to do this.';
    },
  },
  {
    kind: 'decryption-failed',
    matches: says('Missing encryption data, key, or IV', 'Decryption failed'),
    provesNothingDone: true,
    words: () =>
      'The service could not decrypt our request: CNGN_ENCRYPTION_KEY does not match the key in the dashboard.',
  },
  {
    kind: 'validation',
    matches: namesOurField,
    provesNothingDone: true,
    words: ({ serviceMessage }) => `The service refused the request: ${serviceMessage}`,
  },
  {
    kind: 'service-unavailable',
    matches: says(
      'Service is currently unavailable. Please try again later.',
      'Service is currently unavailable',
    ),
    provesNothingDone: true,
    words: () => 'The service is currently unavailable. Please try again later.',
  },
  {
    kind: 'insufficient-balance',
    matches: says('Insufficient balance'),
    provesNothingDone: true,
    words: () => 'The service refused the request: Insufficient balance (the balance does not cover it).',
  },
  {
    kind: 'account-unresolvable',
    matches: says('Could not resolve account details'),
    provesNothingDone: true,
    words: () => 'Could not resolve account details: check the account number and the bank.',
  },
  {
    // The key is needed to seal the answer, so the service may look for it only after acting.
    kind: 'no-ssh-key',
    matches: says('No Test SSH Key found', 'No Live SSH Key found'),
    provesNothingDone: false,
    words: ({ serviceMessage }) =>
      `${serviceMessage}: upload the bot's Ed25519 public key in the cNGN dashboard.`,
  },
  {
    kind: 'not-found',
    matches: says('Transaction not found'),
    provesNothingDone: false,
    words: () => 'Transaction not found: check the reference.',
  },
  {
    kind: 'server-error',
    matches: (_message, status) => status >= 500,
    provesNothingDone: false,
    words: () => 'The service had an internal error. Nothing was retried; try again shortly.',
  },
];

/** Any answer no row matches: it proves nothing either way. */
export const OTHER_ANSWER: ServiceAnswer = {
  kind: 'other',
  matches: () => true,
  provesNothingDone: false,
  words: ({ serviceMessage }) => `The service said: ${serviceMessage}`,
};

/** The row of the table an error answer matches, or OTHER_ANSWER. */
export function serviceAnswer(message: string, httpStatus: number): ServiceAnswer {
  const trimmed = message.trim();
  return SERVICE_ANSWERS.find((row) => row.matches(trimmed, httpStatus)) ?? OTHER_ANSWER;
}
