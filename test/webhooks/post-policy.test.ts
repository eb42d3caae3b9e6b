// What a refused post means for the alert, across its attempts, from Slack's error alone: no server.
// Slack's errors are read as the alert sink reads them (slack/alerts/post-errors.ts), then judged by
// the outbox's policy.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { classifyPostFailure } from '../../src/slack/alerts/post-errors.js';
import { PostPolicy } from '../../src/webhooks/post-policy.js';

/** Errors as WebClient (retries off) throws them, as the sink answers them. */
const slackSaid = (error: string) =>
  classifyPostFailure({ code: 'slack_webapi_platform_error', data: { ok: false, error } });
const rateLimited = (seconds: number) =>
  classifyPostFailure({ code: 'slack_webapi_rate_limited_error', retryAfter: seconds });
const http = (statusCode: number) => classifyPostFailure({ code: 'slack_webapi_http_error', statusCode });

function policy(fallbackChannel?: string) {
  return new PostPolicy({ log: silentLogger, fallbackChannel, maxAttempts: 3, maxBackoffMs: 4_000 });
}

describe('what a failed post means', () => {
  it('waits as long as Slack says when rate-limited, without counting an attempt', () => {
    const p = policy();
    expect(p.afterError('a', 'deposit.completed', 'C1', rateLimited(7))).toEqual({
      kind: 'retry',
      delayMs: 7_000,
    });
    expect(p.attempt('a')).toBe(1);
  });

  it('backs off on 5xx, doubling up to the ceiling, and never sets the alert aside', () => {
    const p = policy();
    const delays = Array.from({ length: 6 }, () => p.afterError('a', 'deposit.completed', 'C1', http(503)));
    expect(delays.map((o) => (o.kind === 'retry' ? o.delayMs : o.kind))).toEqual([
      500, 1_000, 2_000, 4_000, 4_000, 4_000,
    ]);
  });

  it('keeps waiting while the token or its scopes are wrong', () => {
    const p = policy();
    for (let i = 0; i < 5; i++) {
      expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('invalid_auth')).kind).toBe('retry');
    }
  });

  it('sets aside an alert after repeated errors it does not know', () => {
    const p = policy();
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('weird')).kind).toBe('retry');
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('weird')).kind).toBe('retry');
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('weird'))).toEqual({
      kind: 'give-up',
      reason: 'weird',
    });
    // Counted per alert: another one starts afresh.
    expect(p.afterError('b', 'deposit.completed', 'C1', slackSaid('weird')).kind).toBe('retry');
  });

  it('moves an alert to the fallback channel when its own is gone, and remembers where', () => {
    const p = policy('C0ALERTS');
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('channel_not_found'))).toEqual({
      kind: 'retry',
      delayMs: 0,
      channel: 'C0ALERTS',
    });
    expect(p.reroutedTo('a')).toBe('C0ALERTS');
    expect(p.afterError('a', 'deposit.completed', 'C0ALERTS', slackSaid('not_in_channel'))).toEqual({
      kind: 'give-up',
      reason: 'not_in_channel',
    });
    expect(policy().afterError('a', 'deposit.completed', 'C1', slackSaid('is_archived')).kind).toBe(
      'give-up',
    );
  });

  it('posts the text alone once Slack refused the blocks, and gives up if that is refused too', () => {
    const p = policy();
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('invalid_blocks'))).toEqual({
      kind: 'retry',
      delayMs: 0,
      textOnly: true,
    });
    expect(p.isTextOnly('a')).toBe(true);
    expect(p.afterError('a', 'deposit.completed', 'C1', slackSaid('msg_too_long')).kind).toBe('give-up');
  });

  it('gives up at once on a request that can never succeed', () => {
    expect(policy().afterError('a', 'deposit.completed', 'C1', slackSaid('no_text'))).toEqual({
      kind: 'give-up',
      reason: 'no_text',
    });
  });

  it('forgets an alert once it is posted or set aside', () => {
    const p = policy('C0ALERTS');
    p.afterError('a', 'deposit.completed', 'C1', slackSaid('channel_not_found'));
    p.afterError('a', 'deposit.completed', 'C0ALERTS', slackSaid('invalid_blocks'));
    p.afterError('a', 'deposit.completed', 'C0ALERTS', http(500));
    expect(p.attempt('a')).toBe(2);
    p.settled('a');
    expect([p.attempt('a'), p.isTextOnly('a'), p.reroutedTo('a')]).toEqual([1, false, undefined]);
  });
});
