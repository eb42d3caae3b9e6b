// Every Web API call the bot's clients make, seen where they all pass: the fetch function WebClient
// (and Bolt, through its clientOptions) is given. Each answer is reported by method: fine, rate-limited
// (429), or an error with Slack's own code. The body is looked at only as WebClient reads it anyway,
// and parsed a second time only when it says `"ok":false`.
import type { FetchFunction } from '@slack/web-api';

/** One Web API call's answer: `error` is Slack's code (`channel_not_found`), `http_<status>`, or why no answer came. */
export interface SlackApiCall {
  method: string;
  rateLimited?: true;
  error?: string;
}

export type SlackApiObserver = (call: SlackApiCall) => void;

// `chat.postMessage`, `files.getUploadURLExternal`: response_url posts and file uploads are not methods.
const METHOD = /\/([a-z]+(?:\.[A-Za-z]+)+)(?:\?.*)?$/;
const ERROR_CODE = /^[a-z0-9_]{1,64}$/;
const SAYS_NOT_OK = /"ok"\s*:\s*false/;

/** The Web API method a URL calls, or undefined when it is no method (response_url, upload URL). */
export function webApiMethod(url: string): string | undefined {
  return METHOD.exec(url)?.[1];
}

/**
 * A fetch for WebClient's `fetch` option that reports each Web API call to `observe`. Calls that are
 * no Web API method pass through untouched; an observer that throws changes no answer.
 */
export function observedFetch(
  observe: SlackApiObserver,
  inner: FetchFunction = globalThis.fetch,
): FetchFunction {
  const tell = (call: SlackApiCall) => {
    try {
      observe(call);
    } catch {
      // Metrics only.
    }
  };
  return async (url, init) => {
    const method = webApiMethod(String(url));
    if (!method) return inner(url, init);
    let response: Awaited<ReturnType<FetchFunction>>;
    try {
      response = await inner(url, init);
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      tell({
        method,
        error: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'request_failed',
      });
      throw error;
    }
    if (response.status === 429) {
      tell({ method, rateLimited: true });
      return response;
    }
    if (response.status !== 200) {
      tell({ method, error: `http_${response.status}` });
      return response;
    }
    return {
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      url: response.url,
      headers: response.headers,
      arrayBuffer: () => response.arrayBuffer(),
      json: async () => {
        const answer = await response.json();
        tell({ method, ...errorIn(answer) });
        return answer;
      },
      text: async () => {
        const body = await response.text();
        tell({ method, ...(SAYS_NOT_OK.test(body) ? errorIn(parsed(body)) : {}) });
        return body;
      },
    };
  };
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function errorIn(answer: unknown): { error?: string } {
  if (typeof answer !== 'object' || answer === null) return {};
  const { ok, error } = answer as { ok?: unknown; error?: unknown };
  if (ok !== false) return {};
  return { error: typeof error === 'string' && ERROR_CODE.test(error) ? error : 'other' };
}
