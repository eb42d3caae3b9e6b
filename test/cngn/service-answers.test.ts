// The one table of the service's error answers: each row read from the answers the service gives, with
// its kind, the words people read and whether it proves nothing was done; and the crash texts and
// other answers that must never pass for a refusal.
import { describe, expect, it } from 'vitest';
import { OTHER_ANSWER, SERVICE_ANSWERS, serviceAnswer } from '../../src/cngn/service-answers.js';

const WITHDRAW = 'POST /v1/api/withdraw';

/** message, HTTP status, kind, proves nothing was done, words people read. */
type Case = [string, number, string, boolean, RegExp];

const REFUSALS: Case[] = [
  ['Too many requests. Please try again later.', 429, 'rate-limited', true, /about a minute/],
  ['No token provided', 400, 'invalid-key', true, /did not accept the API key/],
  ['Invalid token prefix', 400, 'invalid-key', true, /did not accept the API key/],
  ['Invalid api key', 400, 'invalid-key', true, /did not accept the API key/],
  ['Merchant not found', 400, 'merchant-not-found', true, /does not know this business/],
  ['Merchant not found', 404, 'merchant-not-found', true, /does not know this business/],
  ['IP address not whitelisted', 403, 'ip-not-allowed', true, /allowlist in the cNGN dashboard/],
  ['Could not determine client IP address', 403, 'ip-not-allowed', true, /allowlist/],
  ['Security context not found', 403, 'ip-not-allowed', true, /allowlist/],
  ['Permission denied', 403, 'permission-denied', true, /lacks the Send Crypto permission/],
  ['Missing encryption data, key, or IV', 400, 'decryption-failed', true, /could not decrypt our request/],
  ['Decryption failed', 400, 'decryption-failed', true, /could not decrypt our request/],
  [
    'amount: Minimum amount is 100 NGN',
    400,
    'validation',
    true,
    /^The service refused the request: amount: Minimum amount is 100 NGN$/,
  ],
  [
    'amount: Number must be greater than or equal to 1',
    400,
    'validation',
    true,
    /greater than or equal to 1/,
  ],
  ['customer.email: Required', 400, 'validation', true, /customer\.email: Required/],
  ['networkId: Network not found', 400, 'validation', true, /networkId: Network not found/],
  [
    'Service is currently unavailable. Please try again later.',
    400,
    'service-unavailable',
    true,
    /^The service is currently unavailable\. Please try again later\.$/,
  ],
  ['Insufficient balance', 400, 'insufficient-balance', true, /Insufficient balance/],
  ['insufficient balance.', 400, 'insufficient-balance', true, /Insufficient balance/],
  ['Could not resolve account details', 400, 'account-unresolvable', true, /check the account number/],
];

const NOT_PROOF: Case[] = [
  ['No Test SSH Key found', 400, 'no-ssh-key', false, /^No Test SSH Key found: upload the bot's Ed25519/],
  ['No Live SSH Key found', 400, 'no-ssh-key', false, /upload the bot's Ed25519 public key/],
  ['Transaction not found', 400, 'not-found', false, /^Transaction not found: check the reference\.$/],
  ['Transaction not found.', 404, 'not-found', false, /check the reference/],
  ['Internal server error', 500, 'server-error', false, /internal error/],
  // Crash texts and refusal words at the wrong status: none of them shows the service did nothing.
  ['Insufficient balance', 500, 'server-error', false, /internal error/],
  ['amount: looks fine but the answer was a 500', 500, 'server-error', false, /internal error/],
  ['TypeError: Cannot read properties of undefined', 500, 'server-error', false, /internal error/],
  ['Error: upstream timeout', 400, 'other', false, /^The service said: Error: upstream timeout$/],
  ['Error: Permission denied', 403, 'other', false, /The service said/],
  ['TypeError: Insufficient balance', 400, 'other', false, /The service said/],
  ['Permission denied after the transfer was queued', 403, 'other', false, /The service said/],
  ['Insufficient balance', 200, 'other', false, /The service said/],
  ['Number must be greater than or equal to 1', 400, 'other', false, /The service said/],
  ['Withdrawal: queued for processing', 400, 'other', false, /The service said/],
  ['amount: Minimum amount is 100 NGN', 422, 'other', false, /The service said/],
  ['Address is not whitelisted', 400, 'other', false, /The service said/],
  ['Bad Request Error', 400, 'other', false, /^The service said: Bad Request Error$/],
];

describe('the service-answers table', () => {
  it.each(REFUSALS)(
    'reads "%s" (%i) as %s, a refusal before acting',
    (message, status, kind, proves, words) => {
      const answer = serviceAnswer(message, status);
      expect(answer.kind).toBe(kind);
      expect(answer.provesNothingDone).toBe(proves);
      expect(answer.words({ serviceMessage: message, httpStatus: status, endpoint: WITHDRAW })).toMatch(
        words,
      );
    },
  );

  it.each(NOT_PROOF)(
    'reads "%s" (%i) as %s, which does not prove nothing was done',
    (message, status, kind, proves, words) => {
      const answer = serviceAnswer(message, status);
      expect(answer.kind).toBe(kind);
      expect(answer.provesNothingDone).toBe(proves);
      expect(answer.words({ serviceMessage: message, httpStatus: status, endpoint: WITHDRAW })).toMatch(
        words,
      );
    },
  );

  it('has every row exercised by the answers above', () => {
    const hit = new Set(
      [...REFUSALS, ...NOT_PROOF].map(([message, status]) => serviceAnswer(message, status)),
    );
    for (const row of [...SERVICE_ANSWERS, OTHER_ANSWER]) expect(hit.has(row), row.kind).toBe(true);
  });

  it('names the permission the endpoint needs, and says so in general for any other', () => {
    const denied = serviceAnswer('Permission denied', 403);
    const words = (endpoint: string) =>
      denied.words({ serviceMessage: 'Permission denied', httpStatus: 403, endpoint });
    expect(words('POST /v1/api/redeemAsset')).toMatch(/lacks the Redeem permission/);
    expect(words('POST /v1/api/bridge')).toMatch(/lacks the Swap permission/);
    expect(words('POST /v1/api/virtual-account/temporary')).toMatch(/lacks the Fiat Deposit permission/);
    expect(words('POST /v1/api/whitelist')).toBe('Permission denied: the API key is not allowed to do this.');
  });
});
