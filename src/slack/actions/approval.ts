// Approve / Reject / Cancel buttons on an approval message. Thin: ack, ask the engine, and when the
// engine refuses, tell only the person who clicked (chat.postEphemeral); nothing else changes.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine, Refusal } from '../../approvals/index.js';
import type { ApprovalRequest } from '../../approvals/types.js';
import type { CngnApi } from '../../cngn/api.js';
import { requestTitle } from '../blocks/approval-format.js';
import { refusalText } from '../blocks/approval-lists.js';
import {
  APPROVE_ACTION,
  CANCEL_ACTION,
  REJECT_ACTION,
  readButtonValue,
  staleRoundNotice,
} from '../blocks/approval-message.js';
import { rejectModal } from '../blocks/approval-modals.js';
import { asClickedInRound, StaleRoundError } from './approval-round.js';

export interface ApprovalSlackDeps {
  engine: ApprovalEngine;
  api: CngnApi;
  approvalsChannel: string;
  /** `SANDBOX`, `TEST` or `LIVE`: shown on every modal and list. */
  environmentLabel: string;
  now?: () => Date;
  log?: {
    warn(message: string, fields?: Record<string, unknown>): void;
    error?(message: string, fields?: Record<string, unknown>): void;
  };
}

type ButtonArgs = { body: BlockAction<ButtonAction>; action: ButtonAction; client: WebClient };

/** Say privately why nothing happened, where the click happened (or in the approvals channel). */
export async function explainRefusal(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: { channel?: string; user: string },
  reason: Refusal,
  request?: ApprovalRequest,
): Promise<void> {
  const channel = where.channel ?? request?.slackMessage?.channel ?? deps.approvalsChannel;
  await client.chat.postEphemeral({ channel, user: where.user, text: refusalText(reason, request) });
}

/** Say privately that the message clicked showed an earlier round, with the figures as they are now. */
async function explainStale(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: { channel?: string | undefined; user: string },
  request: ApprovalRequest,
): Promise<void> {
  const channel = where.channel ?? request.slackMessage?.channel ?? deps.approvalsChannel;
  const now = deps.now?.() ?? new Date();
  await client.chat.postEphemeral({ channel, user: where.user, ...staleRoundNotice(request, now) });
}

/** A click the engine could not take (store or lock trouble): say so privately, never silently drop it. */
async function guarded(args: ButtonArgs, deps: ApprovalSlackDeps, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    deps.log?.warn('approval click failed', { action: args.action.action_id, error: String(error) });
    const channel = args.body.channel?.id ?? args.body.container?.channel_id ?? deps.approvalsChannel;
    await args.client.chat.postEphemeral({
      channel,
      user: args.body.user.id,
      text: 'Your click could not be processed just now. Check the request message for its current state and try again.',
    });
  }
}

export function registerApprovalActions(app: App, deps: ApprovalSlackDeps): void {
  const clicked = ({ body, action }: ButtonArgs) => ({
    ...readButtonValue(action.value),
    user: body.user.id,
    channel: body.channel?.id ?? body.container?.channel_id,
  });

  app.action<BlockAction<ButtonAction>>(APPROVE_ACTION, async (args) => {
    await args.ack();
    await guarded(args, deps, async () => {
      const { id, round, user, channel } = clicked(args);
      let result: Awaited<ReturnType<ApprovalEngine['approve']>>;
      try {
        result = await asClickedInRound(id, round, () => deps.engine.approve(id, user));
      } catch (error) {
        if (!(error instanceof StaleRoundError)) throw error;
        return explainStale(args.client, deps, { channel, user }, error.request);
      }
      if (!result.ok) {
        await explainRefusal(args.client, deps, { channel, user }, result.reason, result.request);
      }
    });
  });

  app.action<BlockAction<ButtonAction>>(REJECT_ACTION, async (args) => {
    await args.ack();
    await guarded(args, deps, async () => {
      const { id, round, user, channel } = clicked(args);
      const check = await deps.engine.mayReject(id, user);
      if (check.refusal) {
        await explainRefusal(args.client, deps, { channel, user }, check.refusal, check.request);
        return;
      }
      if (check.request && check.request.round !== round) {
        return explainStale(args.client, deps, { channel, user }, check.request);
      }
      await args.client.views.open({
        trigger_id: args.body.trigger_id,
        view: rejectModal({
          requestId: id,
          title: check.request ? requestTitle(check.request) : id,
          ...(channel ? { channel } : {}),
        }),
      });
    });
  });

  app.action<BlockAction<ButtonAction>>(CANCEL_ACTION, async (args) => {
    await args.ack();
    await guarded(args, deps, async () => {
      const { id, user, channel } = clicked(args);
      const result = await deps.engine.cancel(id, user);
      if (!result.ok)
        await explainRefusal(args.client, deps, { channel, user }, result.reason, result.request);
    });
  });
}
