// Posting to a response_url with undici's pooled client: lighter than the generic HTTP client Bolt's
// respond() uses, which matters because this work shares the event loop with the next acks.
import { request } from 'undici';
import { SlackErrorCode } from './error-codes.js';

class ResponseUrlError extends Error {
  override name = 'ResponseUrlError';
  readonly code = SlackErrorCode.ResponseUrlFailed;
}

export async function postToResponseUrl(url: string, message: Record<string, unknown>): Promise<void> {
  const response = await request(url, {
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
