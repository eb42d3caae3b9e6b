// The reject modal's submission: a reason is required; the engine records the rejection before the
// submission is acknowledged (within Slack's 3 s), and the presenter shows it. A rejection that could
// not be recorded keeps the modal open with the reason why, so the person can submit again. It rejects
// only the request the modal showed, as recorded under its view id when it opened
// (actions/review-binding.ts); private_metadata naming another is refused. It rejects only the round
// the modal showed: the engine refuses another (StaleRoundError), and the modal says the request changed.
import type { AckFn, App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { type ActionResult, StaleRoundError } from '../../../approvals/index.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { noticeView } from '../../ui/modal.js';
import { parseSubmission, readMetadata } from '../../ui/view-values.js';
import { requestTitle } from '../../ui/words.js';
import { explainRefusal } from '../actions/buttons.js';
import { RECORDED_LATE, type Recorded, recordClick, submissionDeadlines } from '../actions/click.js';
import { channelFits } from '../actions/click-answer.js';
import { type BindingRead, readBinding } from '../actions/review-binding.js';
import { REJECT, REJECT_VIEW } from '../blocks/modals.js';
import { parseReject } from './forms.js';
import { REVIEW_READ_DEADLINE_MS } from './review.js';

const NOT_RECORDED =
  'Reason: the rejection could not be recorded just now, so nothing changed. Submit again in a moment.';
/** Its write had started (or may still start): it may have been recorded. */
const MAYBE_NOT_RECORDED =
  'Reason: the rejection may not have been recorded (the bot could not reach its store in time). Check the request message before submitting again.';
/** What the modal showed could not be read: nothing was rejected. */
const NOT_CHECKED =
  'Reason: the rejection could not be recorded just now (the bot could not reach its store), so nothing was rejected. Submit again in a moment.';
const CHECKED_TOO_LATE =
  'Reason: the rejection could not be recorded just now (the bot’s store was too slow to answer), so nothing was rejected. Submit again in a moment.';
const NOT_KNOWN =
  'This window is not ready yet, or no longer known, so nothing was rejected. Close it and click Reject on the request message again.';
const NOT_SHOWN =
  'This rejection names another request than the one it showed, so nothing was rejected. Reject again from the request message.';
const WRONG_CHANNEL =
  'This rejection names a channel its request was never posted in, so nothing was rejected. Reject again from the request message.';

export function registerRejectView(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(REJECT_VIEW, onRejectSubmitted(deps));
}

type RejectArgs = { ack: AckFn<ViewResponseAction>; body: ViewSubmitAction; client: WebClient };
type Where = { user: string; channel?: string };

function onRejectSubmitted(deps: ApprovalSlackDeps): (args: RejectArgs) => Promise<void> {
  return async ({ ack, body, client }) => {
    const startedAt = Date.now();
    const parsed = parseSubmission(body.view, REJECT, parseReject);
    if (!parsed.ok) return void (await ack({ response_action: 'errors', errors: parsed.errors }));
    const meta = readMetadata(body.view.private_metadata);
    // The channel chooses where private answers go: only one the Reject button could have been in. The
    // request is read (within the share of the 3 s a review's read gets) only for another channel,
    // alongside the record of what the modal showed.
    const [bound, request] = await Promise.all([
      readBinding(deps.store, body.view.id, 'reject'),
      channelFits(meta.channel, deps.approvalsChannel)
        ? undefined
        : withinDeadline(deps.engine.get(meta.id ?? ''), REVIEW_READ_DEADLINE_MS, 'store').catch(
            () => undefined,
          ),
    ]);
    const checked = checkShown(deps, bound, meta, request);
    if ('refused' in checked) return void (await ack(checked.refused));
    const where = { user: body.user.id, ...(meta.channel ? { channel: meta.channel } : {}) };
    // The round the modal showed: the engine refuses a rejection of a round that has since changed.
    const taken = await recordClick(
      (options) =>
        deps.engine.reject(meta.id ?? '', body.user.id, parsed.value.reason, {
          ...options,
          round: checked.round,
        }),
      submissionDeadlines(startedAt),
    );
    if (taken.outcome !== 'recorded') return answerNotRecorded(ack, client, deps, where, meta.id, taken);
    await ack();
    const result = await taken.work;
    if (!result.ok) await explainRefusal(client, deps, where, result.reason, result.request);
  };
}

/** Said when the request moved to another round while the modal was open: nothing was rejected. */
function changedBeforeRejection(request: Parameters<typeof requestTitle>[0]): string {
  return `${escapeMrkdwn(requestTitle(request))} changed while this window was open, so nothing was rejected. Look at the request message again, and reject from there if you still mean to.`;
}

/** The round the modal showed, or the answer to a submission that does not match what it showed. */
function checkShown(
  deps: ApprovalSlackDeps,
  bound: BindingRead,
  meta: { id?: string; channel?: string },
  request: Awaited<ReturnType<ApprovalSlackDeps['engine']['get']>> | undefined,
): { refused: ViewResponseAction } | { round: number } {
  const refused = refusalOf(deps, bound, meta, request);
  if (refused) return { refused };
  const shown = bound.ok ? bound.binding.shown[0] : undefined;
  if (!shown) return { refused: { response_action: 'update', view: noticeView('Not rejected', NOT_KNOWN) } };
  return { round: shown.round };
}

/** The answer to a submission that does not match what the modal showed, or names a channel it was never in. */
function refusalOf(
  deps: ApprovalSlackDeps,
  bound: BindingRead,
  meta: { id?: string; channel?: string },
  request: Awaited<ReturnType<ApprovalSlackDeps['engine']['get']>> | undefined,
): ViewResponseAction | undefined {
  if (!bound.ok) {
    if ('error' in bound) {
      deps.log?.warn('rejection: what it showed was not read', { error: String(bound.error) });
      const why = bound.late ? CHECKED_TOO_LATE : NOT_CHECKED;
      return { response_action: 'errors', errors: { [REJECT.reason]: why } };
    }
    return { response_action: 'update', view: noticeView('Not rejected', NOT_KNOWN) };
  }
  if (bound.binding.shown[0]?.id !== meta.id) {
    deps.log?.warn('rejection names another request than it showed', { requestId: meta.id });
    return { response_action: 'update', view: noticeView('Not rejected', NOT_SHOWN) };
  }
  if (!channelFits(meta.channel, deps.approvalsChannel, [request])) {
    deps.log?.warn('rejection names a channel its request is not in', { requestId: meta.id });
    return { response_action: 'update', view: noticeView('Not rejected', WRONG_CHANNEL) };
  }
  return undefined;
}

/**
 * A rejection not recorded in time, or failed: the modal stays open saying so. A late one is said
 * again once the store answered: that it landed, or why it was refused (someone was first).
 */
async function answerNotRecorded(
  ack: AckFn<ViewResponseAction>,
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: Where,
  requestId: string | undefined,
  taken: Exclude<Recorded<ActionResult>, { outcome: 'recorded' }>,
): Promise<void> {
  if (taken.outcome === 'failed' && taken.error instanceof StaleRoundError) {
    const view = noticeView('Not rejected', changedBeforeRejection(taken.error.request));
    return void (await ack({ response_action: 'update', view }));
  }
  const maybe = taken.outcome === 'late' || taken.maybeRecorded === true;
  const text = maybe ? MAYBE_NOT_RECORDED : NOT_RECORDED;
  await ack({ response_action: 'errors', errors: { [REJECT.reason]: text } });
  deps.log?.warn('rejection not recorded', {
    requestId,
    error: taken.outcome === 'failed' ? String(taken.error) : 'no answer in time',
  });
  if (taken.outcome !== 'late') return;
  const after = await taken.work.catch(() => undefined);
  if (after?.ok) {
    const channel = where.channel ?? deps.approvalsChannel;
    await client.chat.postEphemeral({ channel, user: where.user, text: RECORDED_LATE });
  } else if (after) await explainRefusal(client, deps, where, after.reason, after.request);
}
