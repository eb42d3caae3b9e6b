// Everything approvals adds to the Slack app: buttons, modal submissions, the bank picker, the
// presenter that keeps each request's message current, the subcommands, and the bridge callback.
import type { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { bridgeCallbackSchema } from '../cngn/schemas.js';
import type { Store } from '../store/index.js';
import { type ApprovalSlackDeps, registerApprovalActions } from './actions/approval.js';
import { registerReviewAll } from './actions/approval-review-all.js';
import { ApprovalPresenter, PRESENTER_REQUEST_TIMEOUT_MS, PRESENTER_RETRIES } from './approval-presenter.js';
import type { SlackMessage } from './blocks/approval-message.js';
import type { ApprovalCommand } from './commands/approval-command.js';
import { auditCommand } from './commands/audit.js';
import { bridgeCommand } from './commands/bridge.js';
import { delegateCommand } from './commands/delegate.js';
import { extendCommand } from './commands/extend.js';
import { pendingCommand } from './commands/pending.js';
import { redeemCommand } from './commands/redeem.js';
import { resolveCommand } from './commands/resolve.js';
import { settlementCommand } from './commands/settlement.js';
import { whitelistAddCommand } from './commands/whitelist-add.js';
import { withdrawCommand } from './commands/withdraw.js';
import { registerBankViews } from './views/approval-bank.js';
import { registerFilingViews } from './views/approval-filing.js';
import { registerReviewView } from './views/approval-review.js';
import { registerRejectView } from './views/reject.js';

/** How often approval steps Slack did not take are offered to it again. */
export const RETRY_UNSHOWN_MS = 30_000;

export type { ApprovalSlackDeps } from './actions/approval.js';

/**
 * Register the approval listeners and present the engine's changes through this app's Slack
 * connection; the presenter starts by making good what a restart left unshown.
 */
export function registerApprovals(
  app: App,
  deps: ApprovalSlackDeps,
  store: Store,
  options: { approverButtons?: boolean } = {},
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
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  });
  presenter.listen();
  void presenter.recover();
  // A Slack outage longer than the client's retries is caught up within a minute of Slack's return.
  presenter.retryEvery(RETRY_UNSHOWN_MS);
  return presenter;
}

/** A client for what the bot says on its own (messages, DMs, Home): bounded retries, waits out 429s. */
export function presenterClient(app: App): WebClient {
  return new WebClient(app.client.token, {
    slackApiUrl: app.client.slackApiUrl,
    logger: app.logger,
    retryConfig: PRESENTER_RETRIES,
    timeout: PRESENTER_REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: false,
  });
}

/** Subcommands that open a filing modal (the router acks first and passes the rest of the words). */
export const APPROVAL_MODAL_COMMANDS = {
  withdraw: withdrawCommand,
  redeem: redeemCommand,
  bridge: bridgeCommand,
  settlement: settlementCommand,
  'whitelist add': whitelistAddCommand,
} as const;

/** Subcommands answered with a private message. */
export const APPROVAL_LIST_COMMANDS = {
  pending: (_args: string[], deps: ApprovalSlackDeps, user: string): Promise<SlackMessage> =>
    pendingCommand(deps, user),
} as const;

/**
 * Run an approval subcommand if `name` is one; false otherwise. `whitelist add …` arrives as
 * name `whitelist` with args starting `add`.
 */
export async function runApprovalCommand(
  name: string,
  command: ApprovalCommand,
  deps: ApprovalSlackDeps,
  reply: (message: SlackMessage) => Promise<void>,
): Promise<boolean> {
  if (name === 'whitelist' && command.args[0]?.toLowerCase() === 'add') {
    await whitelistAddCommand({ ...command, args: command.args.slice(1) }, deps);
    return true;
  }
  // Own keys only: the name is the person's text, and `constructor` is in every object.
  if (Object.hasOwn(APPROVAL_MODAL_COMMANDS, name) && name !== 'whitelist add') {
    await APPROVAL_MODAL_COMMANDS[name as 'withdraw'](command, deps);
    return true;
  }
  if (name === 'resolve') {
    await command.respond(await resolveCommand(command.args, command.userId, deps));
    return true;
  }
  if (name === 'extend') {
    await command.respond(await extendCommand(command.args, command.userId, deps));
    return true;
  }
  if (name === 'audit') {
    await reply(await auditCommand(command, deps));
    return true;
  }
  if (name === 'delegate') {
    await reply(await delegateCommand(command.args, command.userId, deps));
    return true;
  }
  if (name === 'pending') {
    await reply(await APPROVAL_LIST_COMMANDS[name](command.args, deps, command.userId));
    return true;
  }
  return false;
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
