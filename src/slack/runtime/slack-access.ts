// Whether the bot may still call Slack. Every WebClient the bot builds (Bolt's, the presenter's, the
// alerts client) sends through `fetch` here; once Slack says the app was uninstalled or its token
// revoked, no request leaves the process any more: each call is answered here as Slack would answer a
// revoked token (`token_revoked`), so callers treat it as the refusal it is and nothing waits on a
// retry. /readyz fails with the reason from then on; a reinstall means a new token and a restart.
import type { App } from '@slack/bolt';
import type { WebClientOptions } from '@slack/web-api';
import { z } from 'zod';
import type { Logger } from '../../log.js';

export type SlackFetch = NonNullable<WebClientOptions['fetch']>;

/** What a call gets once the app is removed: Slack's own answer to a revoked token. */
const REMOVED_ERROR = 'token_revoked';

export class SlackAccess {
  private removedBecause: string | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly send: SlackFetch = globalThis.fetch as SlackFetch,
  ) {}

  /** Why Slack may no longer be called, or undefined while it may. */
  get removed(): string | undefined {
    return this.removedBecause;
  }

  readonly fetch: SlackFetch = (url, init) => {
    if (this.removedBecause === undefined) return this.send(url, init);
    this.logger.debug('not sent to Slack: the app was removed', { url: String(url) });
    return Promise.resolve(
      new Response(JSON.stringify({ ok: false, error: REMOVED_ERROR }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };

  /** Slack removed the app (or revoked its token): stop calling Slack, once, and say so. */
  remove(reason: string): void {
    if (this.removedBecause !== undefined) return;
    this.removedBecause = reason;
    this.logger.error(
      `${reason}: nothing more is sent to Slack; install the app again, set its new bot token and restart`,
    );
  }
}

/** The part of `tokens_revoked` that matters: the bot tokens revoked (user IDs), if any. */
const revokedTokens = z.looseObject({
  tokens: z.looseObject({ bot: z.array(z.string()).default([]) }),
});

/**
 * Slack's own word that the app is gone: `app_uninstalled`, or `tokens_revoked` naming a bot token
 * (the app has one bot token; user tokens it does not hold are of no concern).
 */
export function registerRemovalEvents(app: App, access: SlackAccess): void {
  app.event('app_uninstalled', async () => {
    access.remove('Slack says the app was uninstalled from the workspace (app_uninstalled)');
  });
  app.event('tokens_revoked', async ({ event }) => {
    const revoked = revokedTokens.safeParse(event);
    if (!revoked.success || revoked.data.tokens.bot.length === 0) return;
    access.remove("Slack says the bot's token was revoked (tokens_revoked)");
  });
}
