// Posting to a response_url with undici's pooled client: lighter than the generic HTTP client Bolt's
// respond() uses, which matters because this work shares the event loop with the next acks.
import { Agent, request } from 'undici';
import { SlackErrorCode } from './error-codes.js';

/**
 * Connections kept open to each response_url host. Answers released together (the answers one shared
 * service read let go) queue on these instead of each opening a connection of its own, which was then
 * dropped once idle: without a bound, a burst of answers cost a connection each (a TLS handshake with
 * Slack), and the idle ones were closed and opened again on the next burst.
 */
const RESPONSE_URL_CONNECTIONS = 8;
const dispatcher = new Agent({ connections: RESPONSE_URL_CONNECTIONS });

class ResponseUrlError extends Error {
  override name = 'ResponseUrlError';
  readonly code = SlackErrorCode.ResponseUrlFailed;
}

export async function postToResponseUrl(url: string, message: Record<string, unknown>): Promise<void> {
  const response = await request(url, {
    dispatcher,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(message),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  await response.body.dump();
  if (response.statusCode >= 400) {
    throw new ResponseUrlError(`Slack refused the response_url post (HTTP ${response.statusCode})`);
  }
}
