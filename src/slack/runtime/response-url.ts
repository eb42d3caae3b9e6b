// Posting to a response_url with undici's dispatcher, its lowest level: lighter than the generic HTTP
// client Bolt's respond() uses, and than undici's own request(), which wraps every answer in a
// request object and a readable stream for a body nobody reads. This work shares the event loop with
// the next acks.
import type { Agent, Dispatcher } from 'undici';
import { SlackErrorCode } from './error-codes.js';

/**
 * Connections kept open to each response_url host. Answers released together (the answers one shared
 * service read let go) queue on these instead of each opening a connection of its own, which was then
 * dropped once idle: without a bound, a burst of answers cost a connection each (a TLS handshake with
 * Slack), and the idle ones were closed and opened again on the next burst.
 */
const RESPONSE_URL_CONNECTIONS = 8;
let agent: Agent | undefined;
let loading: Promise<Agent> | undefined;
const JSON_HEADERS = { 'content-type': 'application/json' };
const TIMEOUT_MS = 10_000;
/**
 * How long a post may take in all, from the call: undici's timeouts start only once the request is on
 * a connection, so one queued behind eight that Slack holds would otherwise wait without end.
 */
const POST_DEADLINE_MS = 20_000;

/**
 * Runs `use` with the posts' Agent: at once once it is made, else when undici has loaded with the first
 * post (docs/decisions/loaded-on-first-use.md). A load that failed goes to `failed`; the next post
 * tries again (which helps when the chunk could not be read, not when undici itself threw).
 */
function withAgent(use: (agent: Agent) => void, failed: (error: Error) => void): void {
  if (agent) {
    use(agent);
    return;
  }
  loading ??= import('undici').then(({ default: undici }) => {
    agent ??= new undici.Agent({ connections: RESPONSE_URL_CONNECTIONS });
    return agent;
  });
  const load = loading;
  load.then(use, (error: Error) => {
    if (loading === load) loading = undefined;
    failed(error);
  });
}

class ResponseUrlError extends Error {
  override name = 'ResponseUrlError';
  readonly code = SlackErrorCode.ResponseUrlFailed;
}

/**
 * Resolves once Slack has answered the post (its body read and dropped); rejects on 4xx and 5xx, and
 * when `deadlineMs` passed first (the request, queued or under way, is then abandoned).
 */
export function postToResponseUrl(
  url: string,
  message: Record<string, unknown>,
  deadlineMs = POST_DEADLINE_MS,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const { origin, pathname, search } = new URL(url);
    let status = 0;
    let request: Dispatcher.DispatchController | undefined;
    let late: Error | undefined;
    const timer = setTimeout(() => {
      late = new ResponseUrlError(`Slack did not answer the response_url post within ${deadlineMs} ms`);
      request?.abort(late);
      reject(late);
    }, deadlineMs);
    timer.unref();
    const settle = (error?: Error) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        request = controller;
        if (late) controller.abort(late);
      },
      onResponseStart(_controller, statusCode) {
        status = statusCode;
      },
      onResponseEnd() {
        if (status < 400) return settle();
        settle(new ResponseUrlError(`Slack refused the response_url post (HTTP ${status})`));
      },
      onResponseError(_controller, error) {
        settle(error);
      },
    };
    const body = JSON.stringify(message);
    withAgent((agent) => {
      if (late) return; // already refused
      try {
        agent.dispatch(
          {
            origin,
            path: `${pathname}${search}`,
            method: 'POST',
            headers: JSON_HEADERS,
            body,
            headersTimeout: TIMEOUT_MS,
            bodyTimeout: TIMEOUT_MS,
          },
          handler,
        );
      } catch (error) {
        settle(error as Error);
      }
    }, settle);
  });
}
