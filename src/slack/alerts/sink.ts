// The AlertSink webhooks/ posts through, on Slack: chat.postMessage and chat.update with a client of
// its own whose retries are off (the outbox owns 429/5xx retries per channel, so a rate-limited
// channel waits without holding a request open and nothing is retried behind its back), and each
// refusal read into the outbox's words (post-errors.ts).
import type { KnownBlock } from '@slack/types';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { AlertBlocks, AlertSink } from '../../webhooks/index.js';
import { classifyPostFailure } from './post-errors.js';

/** A WebClient for alerts: no retries of its own, a 429 answered at once, 10 s per call. */
function alertsClient(
  token: string | undefined,
  slackApiUrl?: string,
  fetch?: WebClientOptions['fetch'],
): WebClient {
  return new WebClient(token, {
    ...(fetch ? { fetch } : {}),
    // WebClient joins method names onto the URL: it needs exactly one trailing slash.
    ...(slackApiUrl ? { slackApiUrl: `${slackApiUrl.replace(/\/+$/, '')}/` } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
}

/** Alerts posted with `client` (build it with alertsClient: its retries must be off). */
function slackAlertSink(client: WebClient): AlertSink {
  return {
    async post(message) {
      try {
        const answer = await client.chat.postMessage({
          channel: message.channel,
          text: message.text,
          ...(message.blocks ? { blocks: slackBlocks(message.blocks) } : {}),
          ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
          unfurl_links: false,
          unfurl_media: false,
        });
        return { ok: true, ts: answer.ts };
      } catch (error) {
        return { ok: false, failure: classifyPostFailure(error) };
      }
    },
    async update(message) {
      try {
        await client.chat.update({
          channel: message.channel,
          ts: message.ts,
          text: message.text,
          blocks: slackBlocks(message.blocks),
        });
        return { ok: true, ts: message.ts };
      } catch (error) {
        return { ok: false, failure: classifyPostFailure(error) };
      }
    },
  };
}

/** The alert's blocks as the client types them: built by slack/alerts' block builders. */
function slackBlocks(blocks: AlertBlocks): KnownBlock[] {
  return blocks as unknown as KnownBlock[];
}

/** The sink on a client of its own (alertsClient) for this token and Slack URL. */
export function slackAlerts(
  token: string | undefined,
  slackApiUrl?: string,
  fetch?: WebClientOptions['fetch'],
): AlertSink {
  return slackAlertSink(alertsClient(token, slackApiUrl, fetch));
}
