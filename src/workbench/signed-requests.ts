// Requests as Slack sends them to the app: signed with v0 HMAC under the workbench's signing secret,
// POSTed to the bot's /slack/events, and the ack waited for as Slack waits (3 s, then
// operation_timeout). Also who is acting, in the payloads' `user` shape.
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { TEAM, userById } from './people.js';
import { SlackRefusal } from './slack-rules.js';

/** Slack waits this long for the app's acknowledgement. */
const ACK_TIMEOUT_MS = 3_000;
/** The legacy verification token Slack still puts in payloads (Bolt does not check it). */
export const VERIFICATION_TOKEN = 'workbench-verification-token';

/** A problem to show the person: the page shows the message. */
export class PageError extends Error {
  override name = 'PageError';
  readonly code = 'workbench_page' as const;
}

/** The bot would not take the request (no ack in time, an HTTP error): what the person is told. */
export const asPageError = (error: unknown): never => {
  if (error instanceof SlackRefusal) throw new PageError(`The app did not answer: ${error.error}`);
  throw error;
};

/** A demo user as payloads carry them (`user: {id, username, name, team_id}`). */
export function personOf(id: string) {
  const user = userById(id);
  if (!user) throw new PageError(`Unknown user ${id}`);
  return {
    id: user.id,
    username: user.name.toLowerCase(),
    name: user.name.toLowerCase(),
    team_id: TEAM.id,
  };
}

export interface Ack {
  status: number;
  text: string;
  json: boolean;
}

export class SignedRequests {
  constructor(
    private readonly signingSecret: string,
    /** The bot's base URL, known once it listens. */
    private readonly botUrl: () => string,
  ) {}

  async send(body: string, contentType: string): Promise<Ack> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `v0=${createHmac('sha256', this.signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
    try {
      const response = await request(`${this.botUrl()}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': signature,
          'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
        },
        body,
        signal: AbortSignal.timeout(ACK_TIMEOUT_MS),
      });
      const text = await response.body.text();
      const json = String(response.headers['content-type'] ?? '').includes('json');
      if (response.statusCode !== 200) {
        throw new SlackRefusal('dispatch_failed', [`the app answered HTTP ${response.statusCode}`]);
      }
      return { status: response.statusCode, text, json };
    } catch (error) {
      if (error instanceof SlackRefusal) throw error;
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
        throw new SlackRefusal('operation_timeout', ['the app did not acknowledge within 3 seconds']);
      }
      throw new SlackRefusal('dispatch_failed', [error instanceof Error ? error.message : String(error)]);
    }
  }

  form(fields: Record<string, string>) {
    return this.send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded');
  }

  payload(payload: object) {
    return this.form({ payload: JSON.stringify(payload) });
  }
}
