// Approve / Reject / Cancel buttons on an approval message. Thin: read the click (zod); Approve and
// Reject open their modal (the review, the reason), Cancel lets the engine record it before the ack.
// When the engine refuses or cannot be reached, only the person who clicked is told (chat.postEphemeral).
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ApprovalRequest, LimitFigures } from '../../../approvals/index.js';
import {
  type ActionResult,
  type ClickOptions,
  MaybeRecordedError,
  type Refusal,
  StaleRoundError,
} from '../../../approvals/index.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { requestTitle } from '../../ui/words.js';
import { refusalText } from '../blocks/lists.js';
import {
  APPROVE_ACTION,
  CANCEL_ACTION,
  REJECT_ACTION,
  readButtonValue,
  staleRoundNotice,
} from '../blocks/message.js';
import { rejectModal } from '../blocks/modals.js';
import { reviewModal, SLACK_CHANNEL_ID } from '../blocks/review.js';
import type { Click } from '../types.js';
import {
  CLICK_ACK_DEADLINE_MS,
  MAYBE_NOT_RECORDED,
  NOT_RECORDED,
  RECHECKING,
  RECORDED_LATE,
  type Recorded,
  readClick,
  recordClick,
} from './click.js';
import { answerPlace } from './click-answer.js';
import { needsFreshBalance, refreshReviewBalance, storedReviewBalance } from './review-balance.js';
import { type BindDeps, openBound } from './review-binding.js';
import { registerSignLink, reviewSigning } from './review-signing.js';

/** Where a modal's record of what it shows is kept (review-binding.ts). */
export function bindDeps(deps: ApprovalSlackDeps, now: Date): BindDeps {
  return { store: deps.store, now, log: deps.log };
}

type ButtonArgs = { body: BlockAction<ButtonAction>; ack: () => Promise<void>; client: WebClient };

/** Say privately why nothing happened, where the click happened (or in the approvals channel). */
export async function explainRefusal(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: { channel?: string; user: string },
  reason: Refusal,
  request?: ApprovalRequest,
  limit?: LimitFigures,
): Promise<void> {
  const channel = where.channel ?? request?.announcement?.channel ?? deps.approvalsChannel;
  const text = refusalText(reason, request, limit, (r) => deps.engine.approvalsShown(r));
  await client.chat.postEphemeral({ channel, user: where.user, text });
}

/** Say privately that the message clicked showed an earlier round, with the figures as they are now. */
async function explainStale(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: { channel?: string | undefined; user: string },
  request: ApprovalRequest,
): Promise<void> {
  const channel = where.channel ?? request.announcement?.channel ?? deps.approvalsChannel;
  const now = deps.now?.() ?? new Date();
  const stale = staleRoundNotice(request, now, (r) => deps.engine.approvalsShown(r));
  await client.chat.postEphemeral({ channel, user: where.user, ...stale });
}

/** Who clicked, and in which channel (absent for App Home). */
type ClickOrigin = { channel?: string | undefined; user: string };

/** A private answer to the person who clicked: where they clicked, else the approvals channel. */
const privateReplyTarget = (deps: ApprovalSlackDeps, where: ClickOrigin) => ({
  channel: where.channel ?? deps.approvalsChannel,
  user: where.user,
});

/** Say privately that the click could not be taken; nothing changed. */
function sayNotRecorded(client: WebClient, deps: ApprovalSlackDeps, where: ClickOrigin): Promise<unknown> {
  return client.chat.postEphemeral({ ...privateReplyTarget(deps, where), text: NOT_RECORDED });
}

/** A click whose payload zod refused: logged, and said privately to whoever clicked, if known. */
async function answerUnreadable(
  client: WebClient,
  deps: ApprovalSlackDeps,
  action: string,
  read: { problem: string; user?: string; channel?: string },
): Promise<void> {
  deps.log?.warn('approval click could not be read', { action, problem: read.problem });
  if (!read.user) return;
  const text = `This button could not be read (${escapeMrkdwn(read.problem)}), so nothing changed.`;
  await client.chat
    .postEphemeral({ ...privateReplyTarget(deps, { channel: read.channel, user: read.user }), text })
    .catch(() => undefined);
}

/** A click the engine could not take (store or lock trouble): say so privately, never silently drop it. */
async function sayingWhenNotRecorded(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: ClickOrigin,
  action: string,
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } catch (error) {
    deps.log?.warn('approval click failed', { action, error: String(error) });
    await sayNotRecorded(client, deps, where).catch((failure: unknown) => {
      deps.log?.warn('could not tell the person their click failed', { action, error: String(failure) });
    });
  }
}

/**
 * Read the click with zod, let the engine record it, and only then ack (within Slack's 3 s). A click
 * whose payload cannot be read is acked and answered privately; one that could not be recorded in
 * time is acked and the person is told to try again — and told again if it went through after all.
 */
function takeClick(
  deps: ApprovalSlackDeps,
  action: string,
  decide: (click: Click, options: ClickOptions) => Promise<ActionResult>,
) {
  return async ({ body, ack, client }: ButtonArgs): Promise<void> => {
    const read = readClick(body);
    if (!read.ok) {
      await ack();
      return answerUnreadable(client, deps, action, read);
    }
    const { click } = read;
    const taken = await recordClick((options) => decide(click, options));
    await ack();
    const where = await answerPlace(client, click);
    await sayingWhenNotRecorded(client, deps, where, action, () =>
      answerTaken(client, deps, where, action, taken),
    );
  };
}

/** What the person who clicked is told once the click was taken: late, re-checking, failed or refused. */
async function answerTaken(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: ClickOrigin,
  action: string,
  taken: Recorded<ActionResult>,
): Promise<void> {
  if (taken.outcome === 'late') return answerLate(client, deps, where, action, taken.work);
  if (taken.outcome === 'recorded' && taken.rechecking) {
    // Said on the side: the re-check's answer is still explained below if Slack refuses this.
    await client.chat
      .postEphemeral({ ...privateReplyTarget(deps, where), text: RECHECKING })
      .catch((error: unknown) => deps.log?.warn('re-check notice not posted', { error: String(error) }));
  }
  if (taken.outcome === 'failed' && taken.maybeRecorded) {
    // The write had started: it may have landed, so "nothing changed" could be false.
    deps.log?.warn('approval click failed after its write started', {
      action,
      error: String(taken.error),
    });
    await client.chat.postEphemeral({ ...privateReplyTarget(deps, where), text: MAYBE_NOT_RECORDED });
    return;
  }
  const result = await engineResult(client, deps, where, action, taken);
  if (result && !result.ok) {
    await explainRefusal(client, deps, where, result.reason, result.request, result.limit);
  }
}

/** A click not recorded in time: said at once, and said again once the store answered. */
async function answerLate(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: ClickOrigin,
  action: string,
  work: Promise<ActionResult>,
): Promise<void> {
  deps.log?.warn('approval click not recorded in time', { action });
  await client.chat.postEphemeral({ ...privateReplyTarget(deps, where), text: MAYBE_NOT_RECORDED });
  const after = await work.catch(() => undefined);
  if (after?.ok) await client.chat.postEphemeral({ ...privateReplyTarget(deps, where), text: RECORDED_LATE });
  // Refused once the store answered (someone else was first): say why, as an in-time refusal would.
  else if (after) await explainRefusal(client, deps, where, after.reason, after.request, after.limit);
}

/**
 * The engine's answer to a click taken in time; undefined once a failure has been answered here (a
 * write that may stand, a changed round). Any other error is thrown, to be said as not recorded.
 */
async function engineResult(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: ClickOrigin,
  action: string,
  taken: Exclude<Recorded<ActionResult>, { outcome: 'late' }>,
): Promise<ActionResult | undefined> {
  try {
    if (taken.outcome === 'failed') throw taken.error;
    return await taken.work;
  } catch (error) {
    if (error instanceof MaybeRecordedError) {
      // After the re-check, the approval's write had started: "nothing changed" could be false.
      deps.log?.warn('final approval failed after its write started', {
        action,
        error: String(error.error),
      });
      await client.chat.postEphemeral({ ...privateReplyTarget(deps, where), text: MAYBE_NOT_RECORDED });
      return undefined;
    }
    if (!(error instanceof StaleRoundError)) throw error;
    await explainStale(client, deps, where, error.request);
    return undefined;
  }
}

export function registerApprovalActions(app: App, deps: ApprovalSlackDeps): void {
  // Approve records nothing yet: it opens the review modal (views/review.ts records it).
  app.action<BlockAction<ButtonAction>>(APPROVE_ACTION, onApproveClicked(deps));

  app.action<BlockAction<ButtonAction>>(
    CANCEL_ACTION,
    takeClick(deps, CANCEL_ACTION, (click, options) =>
      deps.engine.cancel(readButtonValue(click.value).id, click.user, options),
    ),
  );

  // Reject records nothing yet: it opens the modal that asks for the reason (reject.ts records it).
  app.action<BlockAction<ButtonAction>>(REJECT_ACTION, onRejectClicked(deps));

  // The review's signing link opens the page in the browser; its click only needs its ack.
  registerSignLink(app);
}

/** Approve: the review modal opens on a request the person may approve; else they are told why not. */
function onApproveClicked(deps: ApprovalSlackDeps): (args: ButtonArgs) => Promise<void> {
  return async ({ body, ack, client }) => {
    await ack();
    const read = readClick(body);
    if (!read.ok) return answerUnreadable(client, deps, APPROVE_ACTION, read);
    const { click } = read;
    const { id, round } = readButtonValue(click.value);
    // Where to answer privately is looked up (a Slack call for App Home) only when there is something to say.
    const answer = () => answerPlace(client, click);
    try {
      const check = await withinDeadline(
        deps.engine.canApprove(id, click.user, round),
        CLICK_ACK_DEADLINE_MS,
        'store',
      );
      if (check.ok) {
        await openReview(client, deps, click, { id, round }, check.request);
        return;
      }
      if ('stale' in check) return explainStale(client, deps, await answer(), check.stale);
      // Past its time but not yet swept: expired now (persisted), so its message loses its buttons at once.
      const request = check.refusal === 'expired' ? await deps.engine.expireIfDue(id) : check.request;
      await explainRefusal(client, deps, await answer(), check.refusal, request);
    } catch (error) {
      deps.log?.warn('approve click could not open the review', { error: String(error) });
      await sayNotRecorded(client, deps, await answer()).catch((failure: unknown) => {
        deps.log?.warn('could not tell the person their click failed', { error: String(failure) });
      });
    }
  };
}

/** The review modal for one request, bound to what it shows; its balance refreshed if the stored one is old. */
async function openReview(
  client: WebClient,
  deps: ApprovalSlackDeps,
  click: Click,
  { id, round }: { id: string; round: number },
  request: ApprovalRequest,
): Promise<void> {
  const metadata = {
    id,
    round,
    environment: request.environment,
    // Only a channel id Slack could have sent; the submission checks it again (views/review.ts).
    ...(click.channel && SLACK_CHANNEL_ID.test(click.channel) ? { channel: click.channel } : {}),
  };
  const now = deps.now?.() ?? new Date();
  const balance = await storedReviewBalance(deps, request);
  const freeze = await deps.engine.currentFreeze();
  // Signed: the one-time link is issued now, for this approver and the round shown.
  const signing = await reviewSigning(deps, { user: click.user, team: click.team }, request);
  const shown = (r: ApprovalRequest) => deps.engine.approvalsShown(r);
  const opened = await openBound(client, bindDeps(deps, now), {
    triggerId: click.triggerId ?? '',
    view: reviewModal(request, now, metadata, balance, freeze, signing, shown),
    modal: 'review',
    requests: [request],
  });
  if (opened && needsFreshBalance(request, balance, now)) {
    await refreshReviewBalance(client, deps, opened, request, balance, (fresh) =>
      reviewModal(request, deps.now?.() ?? new Date(), metadata, fresh, freeze, signing, shown),
    );
  }
}

/** Reject: the modal asking for the reason opens on a request the person may reject; else they are told why not. */
function onRejectClicked(deps: ApprovalSlackDeps): (args: ButtonArgs) => Promise<void> {
  return async ({ body, ack, client }) => {
    await ack();
    const read = readClick(body);
    if (!read.ok) return answerUnreadable(client, deps, REJECT_ACTION, read);
    const { click } = read;
    const where = await answerPlace(client, click);
    await sayingWhenNotRecorded(client, deps, where, REJECT_ACTION, async () => {
      const { id, round } = readButtonValue(click.value);
      // The engine answers a round other than the one clicked as stale (and refuses it on submission too).
      const check = await withinDeadline(
        deps.engine.mayReject(id, click.user, round),
        CLICK_ACK_DEADLINE_MS,
        'store',
      );
      if ('stale' in check) return explainStale(client, deps, where, check.stale);
      if (check.refusal) {
        await explainRefusal(client, deps, where, check.refusal, check.request);
        return;
      }
      if (!check.request) return explainRefusal(client, deps, where, 'not-found');
      await openBound(client, bindDeps(deps, deps.now?.() ?? new Date()), {
        triggerId: click.triggerId ?? '',
        view: rejectModal({
          requestId: id,
          title: requestTitle(check.request),
          // Only a channel id Slack could have sent; the submission checks it again (views/reject.ts).
          ...(where.channel && SLACK_CHANNEL_ID.test(where.channel) ? { channel: where.channel } : {}),
        }),
        modal: 'reject',
        requests: [check.request],
      });
    });
  };
}
