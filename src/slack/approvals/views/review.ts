// The review modal's submission: the only thing that approves, and only what the modal showed: the
// request, round and figures recorded under its view id when it opened (actions/review-binding.ts);
// private_metadata naming anything else is refused. It goes through the engine's approve path exactly
// as the buttons did (bound to that round and those figures, one claim, one audit entry), recorded
// before the submission is acked (within Slack's 3 s). A request that changed (new round or figures),
// ended, or moved to another environment while the modal was open is refused in the modal itself
// (`response_action: update` to a view saying why, with the new figures), and nothing moves.
import { setImmediate as afterMicrotasks } from 'node:timers/promises';
import type { AllMiddlewareArgs, App, SlackViewMiddlewareArgs, ViewSubmitAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { ApprovalRequest } from '../../../approvals/index.js';
import {
  type ActionResult,
  figuresDigest,
  MaybeRecordedError,
  StaleRoundError,
} from '../../../approvals/index.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { noticeView } from '../../ui/modal.js';
import { environmentLabel } from '../../ui/words.js';
import { explainRefusal } from '../actions/buttons.js';
import {
  MAYBE_NOT_RECORDED,
  RECHECKING,
  RECORDED_LATE,
  type Recorded,
  recordClick,
  submissionDeadlines,
} from '../actions/click.js';
import { answerPlace, channelFits } from '../actions/click-answer.js';
import { readBinding } from '../actions/review-binding.js';
import type { ApprovalsShown } from '../blocks/approvals-shown.js';
import { refusalText } from '../blocks/lists.js';
import { changedWhileOpen, REVIEW_VIEW, reviewRefusedView, SLACK_CHANNEL_ID } from '../blocks/review.js';

/**
 * The store read before the write gets this much of the 3 s, the write the 2 s of a click. A read that
 * takes longer is given up, and the submission goes to the engine unread, which decides as always.
 */
export const REVIEW_READ_DEADLINE_MS = 400;

const NOT_RECORDED =
  'Your approval could not be recorded just now, so nothing changed. Approve again from the request message in a moment.';

const metadataSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/),
  round: z.number().int().min(0).max(1_000_000),
  environment: z.enum(['sandbox', 'test', 'live']),
  /** Where Approve was clicked, so private answers go there: absent for App Home. */
  channel: z.string().regex(SLACK_CHANNEL_ID).optional(),
});

const submissionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({ id: z.string().min(1).max(64), private_metadata: z.string().max(3000) }),
});

const NOT_CHECKED =
  'This review could not be checked against what it showed (the bot could not reach its store), so nothing was approved. Approve again from the request message in a moment.';
const CHECKED_TOO_LATE =
  'This review could not be checked against what it showed (the bot’s store was too slow to answer), so nothing was approved. Approve again from the request message in a moment.';
const NOT_KNOWN =
  'This review is not ready yet, or no longer known, so nothing was approved. Close it and click Approve on the request message again.';
const NOT_SHOWN =
  'This review names another request, or another round, than the one it showed, so nothing was approved. Approve again from the request message.';

function readMetadata(text: string): z.infer<typeof metadataSchema> | undefined {
  try {
    return metadataSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function registerReviewView(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(REVIEW_VIEW, onReviewSubmitted(deps));
}

type ReviewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
type Metadata = z.infer<typeof metadataSchema>;
type Where = { user: string; channel?: string };
/** A submission that reads, for the environment in use. */
type Submission = { user: string; viewId: string; meta: Metadata; where: Where };
type Check = Awaited<ReturnType<ApprovalSlackDeps['engine']['canApprove']>>;

const update = (view: ModalView) => ({ response_action: 'update' as const, view });

function onReviewSubmitted(deps: ApprovalSlackDeps): (args: ReviewArgs) => Promise<void> {
  return async ({ ack, body, client }) => {
    const startedAt = Date.now();
    const read = readSubmission(deps, body);
    if ('refused' in read) return ack(update(read.refused));
    const { meta, user, where } = read;
    const now = () => deps.now?.() ?? new Date();
    const checked = await checkAgainstShown(deps, read, now);
    if ('refused' in checked) return ack(update(checked.refused));
    const { shown } = checked;
    // The engine checks round and figures again under the request's lock (approvals/round.ts).
    const taken = await recordClick(
      (options) =>
        deps.engine.approve(meta.id, user, { ...options, round: meta.round, figuresDigest: shown.figures }),
      submissionDeadlines(startedAt),
    );
    if (taken.outcome === 'failed') return ack(update(failedView(deps, meta.id, taken, now)));
    if (taken.outcome === 'late') {
      // The write may still land: say so, and say again if it did.
      await ack(update(noticeView('Approval', MAYBE_NOT_RECORDED)));
      deps.log?.warn('review submission not recorded in time', { requestId: meta.id });
      await answerLate(client, deps, where, taken.work);
      return;
    }
    // A refusal under the lock settles with no further I/O: read it before answering, so it is shown here.
    const settled = await Promise.race([
      taken.work.then((result) => ({ result })),
      afterMicrotasks(undefined),
    ]);
    if (settled && !settled.result.ok) {
      const { reason, request, limit } = settled.result;
      const text = refusalText(reason, request, limit, shownBy(deps));
      return ack(update(reviewRefusedView(text)));
    }
    // Accepted: the modal closes. A final approval being re-checked is said privately.
    await ack();
    await finish(client, deps, where, taken.rechecking === true, taken.work);
  };
}

/** The submission's user, view and metadata, refused if it cannot be read or names another environment. */
function readSubmission(deps: ApprovalSlackDeps, body: unknown): Submission | { refused: ModalView } {
  const parsed = submissionSchema.safeParse(body);
  const meta = parsed.success ? readMetadata(parsed.data.view.private_metadata) : undefined;
  if (!parsed.success || !meta) {
    deps.log?.warn('review submission could not be read', {});
    const why =
      'This review could not be read, so nothing was approved. Approve again from the request message.';
    return { refused: reviewRefusedView(why) };
  }
  const user = parsed.data.user.id;
  const where = { user, ...(meta.channel ? { channel: meta.channel } : {}) };
  const current = deps.engine.environment();
  if (meta.environment !== current) {
    const why = `This review was opened for ${environmentLabel(meta.environment)}; the bot now uses ${environmentLabel(current)} credentials.`;
    return { refused: reviewRefusedView(why) };
  }
  return { user, viewId: parsed.data.view.id, meta, where };
}

/**
 * What this review showed, as recorded when it opened (review-binding.ts), and alongside it a quick
 * read of the request, only to show a changed or ended one in the modal with its new figures. The
 * engine decides in any case, so a read that fails or is slow never refuses the submission: under
 * load it would turn good approvals away for nothing. The record is another matter: without it,
 * nothing says what the person saw.
 */
async function checkAgainstShown(
  deps: ApprovalSlackDeps,
  { user, viewId, meta }: Submission,
  now: () => Date,
): Promise<{ shown: { id: string; round: number; figures: string } } | { refused: ModalView }> {
  const [bound, check] = await Promise.all([
    readBinding(deps.store, viewId, 'review'),
    withinDeadline(deps.engine.canApprove(meta.id, user, meta.round), REVIEW_READ_DEADLINE_MS, 'store').catch(
      (error: unknown) => {
        deps.log?.warn('review submission: request not read first', {
          requestId: meta.id,
          error: String(error),
        });
        return undefined;
      },
    ),
  ]);
  if (!bound.ok) {
    if (!('error' in bound)) return { refused: reviewRefusedView(NOT_KNOWN) };
    deps.log?.warn('review submission: what it showed was not read', { error: String(bound.error) });
    return { refused: reviewRefusedView(bound.late ? CHECKED_TOO_LATE : NOT_CHECKED) };
  }
  const shown = bound.binding.shown[0];
  if (shown?.id !== meta.id || shown.round !== meta.round) {
    deps.log?.warn('review submission names another request than it showed', {
      requestId: shown?.id,
      named: meta.id,
    });
    const current = shown ? await currentRequest(deps, shown.id) : undefined;
    return { refused: reviewRefusedView(NOT_SHOWN, current, now(), shownBy(deps)) };
  }
  const refused = checkRefusal(deps, meta, check, shown.figures, now);
  return refused ? { refused } : { shown };
}

/** The quick read's verdict: the channel named, a request the engine would refuse, or changed figures. */
function checkRefusal(
  deps: ApprovalSlackDeps,
  meta: Metadata,
  check: Check | undefined,
  figures: string,
  now: () => Date,
): ModalView | undefined {
  const read = check && ('stale' in check ? check.stale : check.request);
  if (!channelFits(meta.channel, deps.approvalsChannel, [read])) {
    deps.log?.warn('review submission names a channel its request is not in', { requestId: meta.id });
    const why =
      'This review names a channel its request was never posted in, so nothing was approved. Approve again from the request message.';
    return reviewRefusedView(why);
  }
  if (check && !check.ok) {
    return 'stale' in check
      ? reviewRefusedView(changedWhileOpen(check.stale), check.stale, now(), shownBy(deps))
      : reviewRefusedView(refusalText(check.refusal, check.request, undefined, shownBy(deps)));
  }
  if (check?.ok && figuresDigest(check.request) !== figures) {
    deps.log?.warn('review submission: the figures changed since it opened', { requestId: meta.id });
    return reviewRefusedView(changedWhileOpen(check.request), check.request, now(), shownBy(deps));
  }
  return undefined;
}

/** How many approvals a request shown in the modal needs: the engine's count under its tiers. */
function shownBy(deps: ApprovalSlackDeps): ApprovalsShown {
  return (request) => deps.engine.approvalsShown(request);
}

/** An approval that failed before it was recorded: a changed round, or an error that may or may not stand. */
function failedView(
  deps: ApprovalSlackDeps,
  requestId: string,
  taken: Extract<Recorded<ActionResult>, { outcome: 'failed' }>,
  now: () => Date,
): ModalView {
  if (taken.error instanceof StaleRoundError) {
    const fresh = taken.error.request;
    return reviewRefusedView(changedWhileOpen(fresh), fresh, now(), shownBy(deps));
  }
  deps.log?.warn('review submission not recorded', { requestId, error: String(taken.error) });
  // An error after the write started: the approval may stand, so never say nothing changed.
  if (taken.maybeRecorded) return noticeView('Approval', MAYBE_NOT_RECORDED);
  return reviewRefusedView(NOT_RECORDED);
}

/** A write that outlived the ack: recorded after all, or refused once the store answered (someone else was first). */
async function answerLate(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: Where,
  work: Promise<ActionResult>,
): Promise<void> {
  // The modal said the click may not have been recorded: now say what became of it, a failure too.
  const text = await work.then(
    (after) =>
      after.ok ? RECORDED_LATE : refusalText(after.reason, after.request, after.limit, shownBy(deps)),
    (error: unknown) => failedText(deps, error),
  );
  const place = await answerPlace(client, { channel: where.channel, user: where.user });
  await client.chat.postEphemeral({
    channel: place.channel ?? deps.approvalsChannel,
    user: where.user,
    text,
  });
}

/** The request a review showed, as it is now, to show with a refusal; undefined if it cannot be read in time. */
function currentRequest(deps: ApprovalSlackDeps, id: string): Promise<ApprovalRequest | undefined> {
  return withinDeadline(deps.engine.get(id), REVIEW_READ_DEADLINE_MS, 'store').catch(() => undefined);
}

/**
 * What to say privately of an approval that failed after the ack, logged. Once its write may have
 * started (after the re-check), "nothing changed" could be false: then the person is told to check.
 */
function failedText(deps: ApprovalSlackDeps, error: unknown): string {
  const maybe = error instanceof MaybeRecordedError;
  deps.log?.warn('review submission: approval failed after the ack', { error: String(error), maybe });
  return maybe ? MAYBE_NOT_RECORDED : NOT_RECORDED;
}

/** After the ack: the re-check's notice and, if the engine refused in the end, why (privately). */
async function finish(
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: { user: string; channel?: string },
  rechecking: boolean,
  work: Promise<ActionResult>,
): Promise<void> {
  try {
    const place = await answerPlace(client, { channel: where.channel, user: where.user });
    if (rechecking) {
      const channel = place.channel ?? deps.approvalsChannel;
      await client.chat
        .postEphemeral({ channel, user: where.user, text: RECHECKING })
        .catch((error: unknown) => deps.log?.warn('re-check notice not posted', { error: String(error) }));
    }
    let result: ActionResult;
    try {
      result = await work;
    } catch (error) {
      const channel = place.channel ?? deps.approvalsChannel;
      await client.chat.postEphemeral({ channel, user: where.user, text: failedText(deps, error) });
      return;
    }
    if (!result.ok) {
      await explainRefusal(client, deps, place, result.reason, result.request, result.limit);
    }
  } catch (error) {
    deps.log?.warn('review submission: approval failed after the ack', { error: String(error) });
  }
}
