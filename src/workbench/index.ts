// The local workbench: a stand-in for Slack in the bot's own process, for trying the whole product in
// a browser without a Slack workspace. It is started only by start-up wiring when no Slack
// credentials are set; the bot itself does not know it is there — it talks to the workbench's Web
// API as to Slack and receives signed requests from it at /slack/events as from Slack.
import { randomBytes } from 'node:crypto';
import type { CustomRoute } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { Sandbox } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { WORKBENCH_HEADERS } from './headers.js';
import { Interactions } from './interactions.js';
import { pageAssets, warmPageAssets } from './page/assets.js';
import type { PasskeyRule } from './protocol.js';
import { type PageAssetsSource, type WorkbenchContext, workbenchRoutes } from './routes.js';
import { type PostingRate, Triggers } from './slack-rules.js';
import { newWorkbenchBotToken, WebApi } from './web-api.js';
import { Workspace } from './workspace.js';

export { newWorkbenchBotToken } from './web-api.js';

export interface WorkbenchOptions {
  store: Store;
  logger: Logger;
  /** The HMAC v0 secret its signed requests carry (start-up gives the bot the same). */
  signingSecret?: string;
  /** The bot token its Web API accepts (start-up gives the bot the same); fresh for every start unless given. */
  botToken?: string;
  /** The page; by default the bundle built from ./page/ on first request. */
  assets?: () => Promise<PageAssetsSource>;
  /** Tests: a tighter or looser posting rate. */
  rate?: PostingRate;
  now?: () => number;
}

export interface Workbench {
  /** HMAC v0 secret of the signed requests it sends; fresh for every start unless given. */
  readonly signingSecret: string;
  readonly botToken: string;
  /** The Web API base URL for Bolt's `slackApiUrl`. */
  readonly apiUrl: string;
  /** Routes to serve on the bot's HTTP server. */
  readonly routes: CustomRoute[];
  /** Headers for every answer of the bot's HTTP server, which serves the page (no framing). */
  readonly headers: Readonly<Record<string, string>>;
  /** Once the bot listens: where to send requests, and what the page says about the service. */
  attach(bot: {
    url: string;
    environment: string;
    sandbox: Sandbox | undefined;
    /** The running bot's signing rule, for the sandbox panel's "Require passkeys" (absent: approvals off). */
    passkeys?: PasskeyRule | undefined;
  }): void;
  /** The page's URL (the bot's), once attached. */
  readonly url: string;
  /** End the page's event streams; call before the bot's server closes (it waits for open connections). */
  endStreams(): void;
  stop(): Promise<void>;
}

export async function startWorkbench(options: WorkbenchOptions): Promise<Workbench> {
  // The page is bundled while the bot starts, so the first page load does not wait for esbuild.
  if (!options.assets) warmPageAssets();
  const signingSecret = options.signingSecret ?? randomBytes(32).toString('hex');
  const workspace = new Workspace(options.store);
  const triggers = new Triggers(options.now);
  let botUrl = '';
  let context: WorkbenchContext = { environment: 'SANDBOX', sandbox: undefined };
  const webApi = new WebApi({
    workspace,
    triggers,
    logger: options.logger,
    ...(options.rate ? { rate: options.rate } : {}),
    pageUrl: () => botUrl,
    token: options.botToken ?? newWorkbenchBotToken(),
  });
  await webApi.start();
  const interactions = new Interactions({
    workspace,
    triggers,
    signingSecret,
    botUrl: () => botUrl,
    responseUrl: (token) => webApi.responseUrl(token),
    logger: options.logger,
  });
  const routes = workbenchRoutes({
    workspace,
    interactions,
    logger: options.logger,
    context: () => context,
    assets: options.assets ?? pageAssets,
  });
  return {
    signingSecret,
    botToken: webApi.token,
    apiUrl: webApi.apiUrl,
    routes,
    headers: WORKBENCH_HEADERS,
    get url() {
      return botUrl;
    },
    attach(bot) {
      botUrl = bot.url;
      context = {
        environment: bot.environment === 'sandbox' ? 'SANDBOX' : 'TEST',
        sandbox: bot.sandbox,
        passkeys: bot.passkeys,
      };
    },
    endStreams: () => routes.endStreams(),
    stop: () => webApi.stop(),
  };
}
