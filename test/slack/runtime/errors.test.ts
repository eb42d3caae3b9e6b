import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidDraftError } from '../../../src/approvals/draft.js';
import {
  CngnError,
  CngnResponseError,
  CngnTransportError,
  RateBudgetError,
} from '../../../src/cngn/errors.js';
import { describeError, plainError } from '../../../src/slack/runtime/errors.js';
import { StoreUnavailableError } from '../../../src/store/index.js';
import { capturedLog } from '../../support/captured-log.js';

/** Service messages from the interface's Errors table, as the service words them. */
const SERVICE_ANSWERS: Array<[string, number, string, RegExp]> = [
  ['Permission denied', 403, 'POST /v1/api/redeemAsset', /lacks the Redeem permission/],
  ['Permission denied', 403, 'POST /v1/api/virtual-account/temporary', /Fiat Deposit/],
  ['Permission denied', 403, 'POST /v1/api/withdraw', /Send Crypto/],
  ['Permission denied', 403, 'POST /v1/api/bridge', /Swap/],
  ['Could not resolve account details', 400, 'POST /v1/api/account/verify', /check the account number/],
  ['Transaction not found', 404, 'GET /v1/api/transactions/:ref', /Transaction not found/],
  ['Too many requests. Please try again later.', 429, 'GET /v1/api/balance', /about a minute/],
];

describe('errors in plain words', () => {
  it('maps service answers to what the operator should do', () => {
    for (const [message, status, endpoint, expected] of SERVICE_ANSWERS) {
      const answer = describeError(new CngnError(message, status, endpoint));
      expect(answer.text, message).toMatch(expected);
      expect(answer.correlationId).toBeUndefined();
    }
  });

  it('says when to come back when the budget is spent, and whether anything was sent', () => {
    expect(describeError(new RateBudgetError(42)).text).toBe('The service is busy — try again in 42 s.');
    expect(describeError(new CngnTransportError('reset', 'POST /v1/api/withdraw', true)).text).toMatch(
      /outcome is unknown; nothing will be resent/,
    );
    expect(describeError(new CngnTransportError('refused', 'GET /v1/api/balance', false)).text).toMatch(
      /Nothing was sent/,
    );
  });

  it('gives unexpected errors a reference that is also in the log, without secrets', () => {
    const { logger, lines } = capturedLog('error');
    const cases = [
      new CngnResponseError('the answer carried no data', 'POST /v1/api/withdraw', 'moves-money'),
      z.object({ amount: z.string() }).safeParse({ amount: 1 }).error,
      new Error('boom with key cngn_live_secretvalue'),
    ];
    for (const error of cases) {
      const answer = describeError(error, logger, '/cngn test');
      expect(answer.correlationId).toMatch(/^[0-9a-f]{8}$/);
      expect(answer.text).toContain(answer.correlationId);
      expect(lines.at(-1)).toContain(answer.correlationId);
    }
    expect(describeError(cases[0], logger).text).toMatch(/outcome is unknown — check `\/cngn tx`/);
    expect(describeError(cases[1], logger).text).toMatch(/amount/);
    expect(lines.join('\n')).not.toContain('cngn_live_secretvalue');
    for (const answer of lines) expect(answer).not.toMatch(/\n\s+at /);
  });

  it('says the database could not be reached, with a reference in the log naming where, never the password', () => {
    const { logger, lines } = capturedLog('error');
    const answer = describeError(
      new StoreUnavailableError('PostgreSQL at db.internal:5432 failed: Connection terminated unexpectedly'),
      logger,
      'approval.approve',
    );
    expect(answer.text).toMatch(/could not reach its database just now; try again shortly/);
    expect(answer.text).not.toMatch(/db\.internal|PostgreSQL/);
    expect(lines.at(-1)).toContain(answer.correlationId);
    expect(lines.at(-1)).toContain('db.internal:5432');
  });

  it('says the service is unavailable in plain words, whether it said so, failed or could not be reached', () => {
    const refused = describeError(
      new CngnError(
        'Service is currently unavailable. Please try again later.',
        400,
        'POST /v1/api/redeemAsset',
      ),
    );
    expect(refused.text).toBe('The service is currently unavailable. Please try again later.');
    const failed = describeError(new CngnError('Internal server error', 502, 'GET /v1/api/balance'));
    expect(failed.text).toMatch(/internal error.*try again shortly/);
    const unreachable = describeError(
      new CngnTransportError('connect ECONNREFUSED 127.0.0.1:9', 'GET /v1/api/balance', false),
    );
    expect(unreachable.text).toBe('The service could not be reached. Nothing was sent; try again shortly.');
    for (const answer of [refused, failed, unreachable]) {
      expect(answer.correlationId).toBeUndefined();
      expect(answer.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|HTTP/);
    }
  });

  it("tells the operator to allowlist the bot's IP when the service refuses it", () => {
    for (const message of ['IP address not whitelisted', 'Could not determine client IP address']) {
      expect(describeError(new CngnError(message, 403, 'GET /v1/api/balance')).text).toMatch(
        /refused this server's IP address.*allowlist in the cNGN dashboard/,
      );
    }
  });

  it('says a money movement has an unknown outcome when its answer is unreadable, but a read can be retried', () => {
    for (const endpoint of ['POST /v1/api/withdraw', 'POST /v1/api/redeemAsset', 'POST /v1/api/bridge']) {
      const answer = describeError(
        new CngnResponseError('the answer carried no data', endpoint, 'moves-money'),
      );
      expect(answer.text).toMatch(/outcome is unknown — check `\/cngn tx` before trying again/);
    }
    expect(
      describeError(
        new CngnResponseError('the answer carried no data', 'POST /v1/api/whitelist', 'whitelist'),
      ).text,
    ).toMatch(/outcome is unknown — check `\/cngn whitelist`/);
    for (const endpoint of ['GET /v1/api/balance', 'GET /v1/api/transactions', 'POST /v1/api/bridge-quote']) {
      const answer = describeError(new CngnResponseError('the opened response data is not JSON', endpoint));
      expect(answer.text, endpoint).toMatch(/^The service's answer could not be read\. Try again shortly\./);
      expect(answer.text, endpoint).not.toMatch(/outcome|\/cngn tx/);
      expect(answer.text).toContain(answer.correlationId);
    }
  });

  it('words an error while filing by its code, never by its class name', () => {
    expect(plainError(new InvalidDraftError('amount: must be more than zero'))).toBe(
      'amount: must be more than zero',
    );
    expect(plainError(new CngnError('Insufficient balance', 400, 'POST /v1/api/bridge-quote'))).toBe(
      'Insufficient balance',
    );
    expect(plainError(new RateBudgetError(12))).toBe('the service is busy; try again in 12 s.');
    const named = new Error('PostgreSQL at db.internal:5432 refused');
    named.name = 'InvalidDraftError';
    expect(plainError(named)).toBe('the service could not be reached. Try again shortly.');
    const lookalike = Object.assign(new Error('boom'), { serviceMessage: 'key cngn_live_secretvalue' });
    expect(plainError(lookalike)).toBe('the service could not be reached. Try again shortly.');
  });

  it('gives every error class a stable code of its own', () => {
    const codes = [
      new CngnError('Permission denied', 403, 'GET /v1/api/balance'),
      new CngnTransportError('reset', 'GET /v1/api/balance', false),
      new CngnResponseError('unreadable', 'GET /v1/api/balance'),
      new RateBudgetError(1),
      new InvalidDraftError('x'),
      new StoreUnavailableError('x'),
    ].map((error) => error.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^[a-z]+(_[a-z]+)+$/);
  });
});
