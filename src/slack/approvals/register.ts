// Everything approvals adds to the Slack app: buttons, modal submissions, the bank picker, the
// presenter that keeps each request's message current, and the bridge callback. Its /cngn
// subcommands are declared beside their handlers and listed in the command registry.
import type { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { bridgeCallbackSchema } from '../../cngn/schemas.js';
import type { Store } from '../../store/index.js';
import type { ApprovalSlackDeps } from '../types.js';
import { registerApprovalActions } from './actions/buttons.js';
import { registerReviewAll } from './actions/review-all.js';
import { ApprovalPresenter, PRESENTER_REQUEST_TIMEOUT_MS, PRESENTER_RETRIES } from './presenter.js';
import { registerBankViews } from './views/bank.js';
import { registerFilingViews } from './views/filing.js';
import { registerRejectView } from './views/reject.js';
import { registerReviewView } from './views/review.js';

/** How often approval steps Slack did not take are offered to it again. */
const RETRY_UNSHOWN_MS = 30_000;

export type { ApprovalSlackDeps } from '../types.js';

/**
 * Register the approval listeners and present the engine's changes through this app's Slack
 * connection; the presenter starts by making good what a restart left unshown.
 */
export function registerApprovals(
  app: App,
  deps: ApprovalSlackDeps,
  store: Store,
  options: { approverButtons?: boolean; alertsChannel?: string | undefined } = {},
): ApprovalPresenter {
  registerApprovalActions(app, deps);
  registerFilingViews(app, deps);
  registerBankViews(app, deps);
  registerRejectView(app, deps);
  registerReviewView(app, deps);
  registerReviewAll(app, deps);
  // Its own client: bounded retries, a timeout per call, and a 429 pause that holds only approval messages.
  const client = presenterClient(app);
  const presenter = new ApprovalPresenter(deps.engine, {
    client,
    ...(options.approverButtons === false ? { approverButtons: false } : {}),
    store,
    channel: deps.approvalsChannel,
    ...(options.alertsChannel ? { alertsChannel: options.alertsChannel } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  });
  presenter.listen();
  void presenter.recover();
  // A Slack outage longer than the client's retries is caught up within a minute of Slack's return.
  presenter.retryEvery(RETRY_UNSHOWN_MS);
  return presenter;
}

/**
 * A client for what the bot says on its own (messages, DMs, Home): bounded retries, waits out 429s.
 * Bolt's client options are kept (Slack's URL, and the transport every Slack call of the bot shares).
 */
export function presenterClient(app: App): WebClient {
  return new WebClient(app.client.token, {
    ...app.webClientOptions,
    logger: app.logger,
    retryConfig: PRESENTER_RETRIES,
    timeout: PRESENTER_REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: false,
  });
}

/**
 * `POST /callbacks/bridge/:token`: the unsigned bridge completion callback. Only a hint: the token
 * must be one we issued, the body must parse, and the engine confirms with the service before
 * calling the bridge completed. Answers fast; never says more than needed.
 */
export async function handleBridgeCallback(
  deps: Pick<ApprovalSlackDeps, 'engine' | 'log'>,
  token: string,
  rawBody: string,
): Promise<{ status: number; body: string }> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return { status: 404, body: 'not found' };
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { status: 400, body: 'malformed JSON' };
  }
  const parsed = bridgeCallbackSchema.safeParse(json);
  if (!parsed.success) return { status: 400, body: 'unexpected body' };
  const hint = {
    ...(parsed.data.explorerLink ? { explorerLink: parsed.data.explorerLink } : {}),
    ...(parsed.data.hash ? { hash: parsed.data.hash } : {}),
    ...(parsed.data.status ? { status: parsed.data.status } : {}),
  };
  try {
    const known = await deps.engine.onBridgeCallback(token, hint);
    return known ? { status: 200, body: 'ok' } : { status: 404, body: 'not found' };
  } catch (error) {
    deps.log?.warn('bridge callback could not be applied', { error: String(error) });
    return { status: 200, body: 'ok' }; // the poller still confirms it later
  }
}
