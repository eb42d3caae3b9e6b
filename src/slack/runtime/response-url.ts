// Posting to a response_url with undici's dispatcher, its lowest level: lighter than the generic HTTP
// client Bolt's respond() uses, and than undici's own request(), which wraps every answer in a
// request object and a readable stream for a body nobody reads. This work shares the event loop with
// the next acks.
import { Agent, type Dispatcher } from 'undici';
import { SlackErrorCode } from './error-codes.js';

/**
 * Connections kept open to each response_url host. Answers released together (the answers one shared
 * service read let go) queue on these instead of each opening a connection of its own, which was then
 * dropped once idle: without a bound, a burst of answers cost a connection each (a TLS handshake with
 * Slack), and the idle ones were closed and opened again on the next burst.
 */
const RESPONSE_URL_CONNECTIONS = 8;
const dispatcher = new Agent({ connections: RESPONSE_URL_CONNECTIONS });
const JSON_HEADERS = { 'content-type': 'application/json' };
const TIMEOUT_MS = 10_000;

class ResponseUrlError extends Error {
  override name = 'ResponseUrlError';
  readonly code = SlackErrorCode.ResponseUrlFailed;
}

/** Resolves once Slack has answered the post (its body read and dropped); rejects on 4xx and 5xx. */
export function postToResponseUrl(url: string, message: Record<string, unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    const { origin, pathname, search } = new URL(url);
    let status = 0;
    const handler: Dispatcher.DispatchHandler = {
      // Its presence tells undici this handler is of the current kind (onResponse…).
      onRequestStart() {},
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseEnd() {
        if (status < 400) return resolve();
        reject(new ResponseUrlError(`Slack refused the response_url post (HTTP ${status})`));
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    };
    dispatcher.dispatch(
      {
        origin,
        path: `${pathname}${search}`,
        method: 'POST',
        headers: JSON_HEADERS,
        body: JSON.stringify(message),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      },
      handler,
    );
  });
}
