// Review all (from `/cngn pending`): the button opens the modal of the requests waiting for the person
// who clicked (the list comes from the store alone, within the 3 s trigger); the submission approves
// each checked request through the engine's normal path, bound to the round and figures the modal
// showed (review-binding.ts), so one that changed meanwhile or was never shown is refused. It is
// acked first with a "working…" view: several approvals do not fit in 3 s, and the results follow one
// by one (docs/decisions/clicks-recorded-before-the-ack.md). A request that must be signed with a
// passkey is never approved from here: left out of the boxes, and skipped if ticked anyway.
import type {
  AckFn,
  App,
  BlockAction,
  ButtonAction,
  ViewResponseAction,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { type ApprovalRequest, MaybeRecordedError, StaleRoundError } from '../../../approvals/index.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { noticeView } from '../../ui/modal.js';
import { refusalText } from '../blocks/lists.js';
import { readButtonValue } from '../blocks/message.js';
import {
  NEEDS_PASSKEY,
  REVIEW_ALL_ACTION,
  REVIEW_ALL_MAX,
  REVIEW_ALL_PICK,
  REVIEW_ALL_VIEW,
  REVIEW_ALL_WORKING,
  type ReviewOutcome,
  reviewAllModal,
  reviewAllResultText,
  reviewAllResultView,
} from '../blocks/review-all.js';
import type { Click } from '../types.js';
import { bindDeps } from './buttons.js';
import { CLICK_ACK_DEADLINE_MS, MAYBE_NOT_RECORDED, readClick } from './click.js';
import { channelFits } from './click-answer.js';
import { refreshReviewAllBalances, storedReviewBalances } from './review-balance.js';
import { type BindingRead, openBound, readBinding, type ShownRequest } from './review-binding.js';
import { mustSign } from './review-signing.js';

const metadataSchema = z.object({ channel: z.string().min(1).max(40).optional() });

/** The read of the checked requests, needed only for a channel other than a DM or the approvals channel. */
const CHANNEL_READ_DEADLINE_MS = 1_000;

const submissionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    id: z.string().min(1),
    private_metadata: z.string().max(3000).optional(),
    state: z.object({
      values: z.object({
        [REVIEW_ALL_PICK]: z.object({
          [REVIEW_ALL_PICK]: z.object({
            selected_options: z
              .array(z.object({ value: z.string().regex(/^[A-Za-z0-9_-]{1,60}:\d{1,6}$/) }))
              .max(10)
              .nullish(),
          }),
        }),
      }),
    }),
  }),
});

function readMetadata(text: string | undefined): { channel?: string } {
  try {
    return metadataSchema.parse(JSON.parse(text || '{}'));
  } catch {
    return {};
  }
}

/** Approve one checked request as the Approve button does, for the round and figures the modal showed. */
async function approveOne(
  deps: ApprovalSlackDeps,
  user: string,
  value: string,
  shown: readonly ShownRequest[],
): Promise<ReviewOutcome> {
  const { id, round } = readButtonValue(value);
  const seen = shown.find((s) => s.id === id && s.round === round);
  if (!seen) {
    deps.log?.warn('review all: a checked request the list never showed', { requestId: id });
    return {
      id,
      outcome: 'not-approved',
      text: `${id} was not in the list you were shown, so it was not approved.`,
    };
  }
  // Set once a write of this approval starts: an error from then on may come after it landed.
  let writing = false;
  const onWriting = () => {
    writing = true;
  };
  try {
    // Never approved by a tick where a passkey must sign (the list left it out of its boxes).
    const request = await deps.engine.get(id);
    if (request && (await mustSign(deps, request, user))) {
      return { id, outcome: 'not-approved', text: `${id} ${NEEDS_PASSKEY}; it was not approved here.` };
    }
    const result = await deps.engine.approve(id, user, { round, figuresDigest: seen.figures, onWriting });
    if (result.ok)
      return { id, outcome: 'approved', text: `${result.request.id}: your approval is recorded` };
    const shownBy = (r: ApprovalRequest) => deps.engine.approvalsShown(r);
    const text = refusalText(result.reason, result.request, result.limit, shownBy);
    return { id, outcome: 'not-approved', text };
  } catch (error) {
    return failedOutcome(deps, id, error, writing);
  }
}

/**
 * An approval that failed: "nothing changed" only while none of its writes had started; after that (or
 * a final approval's MaybeRecordedError) it may stand, so it counts as neither approved nor not.
 */
function failedOutcome(deps: ApprovalSlackDeps, id: string, error: unknown, writing: boolean): ReviewOutcome {
  const maybe = writing || error instanceof MaybeRecordedError;
  if (!maybe && error instanceof StaleRoundError) {
    const text = `${id} changed since the list was shown, so it was not approved; review it again from its message.`;
    return { id, outcome: 'not-approved', text };
  }
  deps.log?.warn('review all: an approval failed', { requestId: id, error: String(error), maybe });
  if (maybe) return { id, outcome: 'maybe-recorded', text: `${id}: ${MAYBE_NOT_RECORDED}` };
  return {
    id,
    outcome: 'not-approved',
    text: `${id} could not be approved just now; nothing changed for it.`,
  };
}

export function registerReviewAll(app: App, deps: ApprovalSlackDeps): void {
  app.action<BlockAction<ButtonAction>>(REVIEW_ALL_ACTION, onReviewAllClicked(deps));
  app.view<ViewSubmitAction>(REVIEW_ALL_VIEW, onReviewAllSubmitted(deps));
}

type ClickArgs = { body: BlockAction<ButtonAction>; ack: () => Promise<void>; client: WebClient };
type SubmitArgs = { ack: AckFn<ViewResponseAction>; body: ViewSubmitAction; client: WebClient };

/** The button: the list of what waits for the person opens, or they are told privately it could not. */
function onReviewAllClicked(deps: ApprovalSlackDeps): (args: ClickArgs) => Promise<void> {
  return async ({ body, ack, client }) => {
    await ack();
    const read = readClick(body);
    if (!read.ok || !read.click.triggerId) {
      deps.log?.warn('review all click could not be read', {
        problem: read.ok ? 'no trigger' : read.problem,
      });
      return;
    }
    const { click } = read;
    try {
      await openReviewAll(client, deps, click);
    } catch (error) {
      deps.log?.warn('review all could not open', { error: String(error) });
      if (click.channel) {
        await client.chat
          .postEphemeral({
            channel: click.channel,
            user: click.user,
            text: 'The list could not be opened just now; nothing changed. Try `/cngn pending` again.',
          })
          .catch(() => undefined);
      }
    }
  };
}

/** The modal of the requests waiting for the person, bound to what it shows, its balances read again once open. */
async function openReviewAll(client: WebClient, deps: ApprovalSlackDeps, click: Click): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const waiting = await withinDeadline(
    deps.engine.waitingFor(click.user, now),
    CLICK_ACK_DEADLINE_MS,
    'store',
  );
  const triggerId = click.triggerId ?? '';
  if (waiting.length === 0) {
    const view = noticeView('Review all', 'Nothing is waiting for your approval right now.');
    await client.views.open({ trigger_id: triggerId, view });
    return;
  }
  // Only a channel answers may go to (`/cngn pending` runs anywhere); else the approvals channel.
  const metadata = JSON.stringify(
    channelFits(click.channel, deps.approvalsChannel, waiting) ? { channel: click.channel } : {},
  );
  const freeze = await deps.engine.currentFreeze();
  const requests = waiting.slice(0, REVIEW_ALL_MAX);
  // The balance as the single review shows it: the last figure read now, read again once open.
  const balances = await storedReviewBalances(deps, requests);
  const signed = await mustSignOf(deps, requests, click.user);
  const render = (shown: typeof balances, at: Date) =>
    reviewAllModal(waiting, at, deps.environmentLabel, metadata, freeze, shown, signed, (r) =>
      deps.engine.approvalsShown(r),
    );
  const view = render(balances, now);
  const opened = await openBound(client, bindDeps(deps, now), {
    triggerId,
    view,
    modal: 'review-all',
    requests,
  });
  if (opened) {
    await refreshReviewAllBalances(client, deps, opened, requests, balances, (fresh) =>
      render(fresh, deps.now?.() ?? new Date()),
    );
  }
}

/** The ids of the requests that must be signed with a passkey: never approved from this list. */
/**
 * Which of `requests` `user` must sign. One whose rule cannot be worked out now (a new install's first
 * passkeys are judged by who is an approver, which may read Slack) is taken as one to sign: left out of
 * the boxes and approved from its own message, rather than failing the whole list.
 */
export async function mustSignOf(
  deps: ApprovalSlackDeps,
  requests: readonly ApprovalRequest[],
  user: string,
): Promise<Set<string>> {
  const must = await Promise.all(requests.map((request) => mustSign(deps, request, user).catch(() => true)));
  return new Set(requests.filter((_, i) => must[i]).map((request) => request.id));
}

/** The submission: each checked request the list showed is approved, one by one, and the results said. */
function onReviewAllSubmitted(deps: ApprovalSlackDeps): (args: SubmitArgs) => Promise<void> {
  return async ({ ack, body, client }) => {
    const parsed = submissionSchema.safeParse(body);
    if (!parsed.success) {
      await ack({
        response_action: 'errors',
        errors: { [REVIEW_ALL_PICK]: 'This list could not be read; nothing was approved.' },
      });
      return;
    }
    const picked = parsed.data.view.state.values[REVIEW_ALL_PICK][REVIEW_ALL_PICK].selected_options ?? [];
    if (picked.length === 0) {
      await ack({
        response_action: 'errors',
        errors: { [REVIEW_ALL_PICK]: 'Tick at least one request to approve.' },
      });
      return;
    }
    // What the list showed, as recorded when it opened: only those requests, rounds and figures count.
    const bound = await readBinding(deps.store, parsed.data.view.id, 'review-all');
    if (!bound.ok) {
      await ack({ response_action: 'update', view: noticeView('Review all', notBoundWhy(deps, bound)) });
      return;
    }
    // The channel chooses where the results go privately: only one the list could have been opened in.
    const { channel } = readMetadata(parsed.data.view.private_metadata);
    if (!(await reviewAllChannelFits(deps, channel, picked))) {
      deps.log?.warn('review all names a channel none of its requests is in', {});
      const why =
        'This list names a channel none of its requests was posted in, so nothing was approved. Open it again with `/cngn pending`.';
      await ack({ response_action: 'update', view: noticeView('Review all', why) });
      return;
    }
    await ack({ response_action: 'update', view: noticeView('Review all', REVIEW_ALL_WORKING) });
    const user = parsed.data.user.id;
    const outcomes: ReviewOutcome[] = [];
    // One by one, never in parallel: each its own claim, in the order the person saw them.
    for (const { value } of picked) {
      outcomes.push(await approveOne(deps, user, value, bound.binding.shown));
    }
    await report(client, deps, {
      user,
      viewId: parsed.data.view.id,
      channel,
      outcomes,
    });
  };
}

/** Why nothing was approved when the record of what the list showed could not be read, or is not there. */
function notBoundWhy(deps: ApprovalSlackDeps, bound: Extract<BindingRead, { ok: false }>): string {
  if (!('error' in bound))
    return 'This list is not ready yet, or no longer known, so nothing was approved. Open it again with `/cngn pending`.';
  deps.log?.warn('review all: what it showed was not read', { error: String(bound.error) });
  const why = bound.late ? 'the bot’s store was too slow to answer' : 'the bot could not reach its store';
  return `This list could not be checked against what it showed (${why}), so nothing was approved. Open it again with \`/cngn pending\` in a moment.`;
}

/** Whether the list's channel fits (click-answer.ts); the checked requests are read only if needed. */
async function reviewAllChannelFits(
  deps: ApprovalSlackDeps,
  channel: string | undefined,
  picked: readonly { value: string }[],
): Promise<boolean> {
  if (channelFits(channel, deps.approvalsChannel)) return true;
  const ids = picked.map(({ value }) => readButtonValue(value).id);
  const requests = await withinDeadline(
    Promise.all(ids.map((id) => deps.engine.get(id))),
    CHANNEL_READ_DEADLINE_MS,
    'store',
  ).catch(() => []);
  return channelFits(channel, deps.approvalsChannel, requests);
}

async function report(
  client: WebClient,
  deps: ApprovalSlackDeps,
  to: { user: string; viewId: string; channel: string | undefined; outcomes: ReviewOutcome[] },
): Promise<void> {
  await client.views
    .update({ view_id: to.viewId, view: reviewAllResultView(to.outcomes) })
    .catch((error: unknown) =>
      deps.log?.warn('review all: results view not shown', { error: String(error) }),
    );
  await client.chat
    .postEphemeral({
      channel: to.channel ?? deps.approvalsChannel,
      user: to.user,
      text: reviewAllResultText(to.outcomes),
    })
    .catch((error: unknown) => deps.log?.warn('review all: results not posted', { error: String(error) }));
}
