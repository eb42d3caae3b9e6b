// What Slack's answer to a failed chat.postMessage or chat.update means for an alert, in the outbox's
// words (webhooks' PostFailure): wait and try again, try another channel, drop the blocks, or give up.
// Errors are read from WebClient's error codes (its retries are off).
import type { PostFailure } from '../../webhooks/index.js';

const CHANNEL_ERRORS = new Set(['channel_not_found', 'not_in_channel', 'is_archived']);
const BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_too_long']);
const PERMANENT_ERRORS = new Set([
  'invalid_arguments',
  'invalid_arg_name',
  'invalid_array_arg',
  'invalid_charset',
  'invalid_form_data',
  'invalid_post_type',
  'missing_post_type',
  'no_text',
  'too_many_attachments',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'cannot_reply_to_message',
]);
const OPERATOR_ERRORS = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
  'ekm_access_denied',
  'team_access_not_granted',
  'org_login_required',
]);
const TRANSIENT_ERRORS = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

interface WebApiError {
  code?: string;
  retryAfter?: number;
  statusCode?: number;
  data?: { error?: string };
}

export function classifyPostFailure(error: unknown): PostFailure {
  const e = (error ?? {}) as WebApiError;
  if (e.code === 'slack_webapi_rate_limited_error') {
    return { kind: 'rate-limited', delayMs: Math.max(1, e.retryAfter ?? 1) * 1000 };
  }
  if (e.code === 'slack_webapi_platform_error')
    return classifyPlatformError(e.data?.error ?? 'unknown_error');
  if (e.code === 'slack_webapi_http_error' && e.statusCode !== undefined) {
    const reason = `HTTP ${e.statusCode}`;
    return e.statusCode >= 500 || e.statusCode === 408
      ? { kind: 'transient', reason }
      : { kind: 'unknown', reason };
  }
  // Request errors (connection refused or reset, timeouts) and anything thrown on the way.
  return { kind: 'transient', reason: e.code ?? (error instanceof Error ? error.message : String(error)) };
}

/** An error Slack answered with (`ok: false`), by its error name. */
function classifyPlatformError(reason: string): PostFailure {
  if (reason === 'ratelimited') return { kind: 'rate-limited', delayMs: 1000 };
  if (CHANNEL_ERRORS.has(reason)) return { kind: 'channel', reason };
  if (BLOCK_ERRORS.has(reason)) return { kind: 'blocks', reason };
  if (PERMANENT_ERRORS.has(reason)) return { kind: 'permanent', reason };
  if (OPERATOR_ERRORS.has(reason)) return { kind: 'operator', reason };
  if (TRANSIENT_ERRORS.has(reason)) return { kind: 'transient', reason };
  return { kind: 'unknown', reason };
}
