// The reject modal's submission: a reason is required; the engine records the rejection before the
// submission is acknowledged (within Slack's 3 s), and the presenter shows it. A rejection that could
// not be recorded keeps the modal open with the reason why, so the person can submit again. It rejects
// only the request the modal showed, as recorded under its view id when it opened
// (actions/review-binding.ts); private_metadata naming another is refused. A round that changed
// meanwhile does not stop it: a rejection moves no money.
import type { AckFn, App, ViewResponseAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { noticeView } from '../../ui/modal.js';
import { parseSubmission, readMetadata } from '../../ui/view-values.js';
import { explainRefusal } from '../actions/buttons.js';
import { RECORDED_LATE, type Recorded, recordClick } from '../actions/click.js';
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
    const refused = refusalOf(deps, bound, meta, request);
    if (refused) return void (await ack(refused));
    const where = { user: body.user.id, ...(meta.channel ? { channel: meta.channel } : {}) };
    const taken = await recordClick((options) =>
      deps.engine.reject(meta.id ?? '', body.user.id, parsed.value.reason, options),
    );
    if (taken.outcome !== 'recorded') return answerNotRecorded(ack, client, deps, where, meta.id, taken);
    await ack();
    const result = await taken.work;
    if (!result.ok) await explainRefusal(client, deps, where, result.reason, result.request);
  };
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
      return { response_action: 'errors', errors: { [REJECT.reason]: NOT_RECORDED } };
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

/** A rejection not recorded in time, or failed: the modal stays open saying so, and a late one that landed is said. */
async function answerNotRecorded(
  ack: AckFn<ViewResponseAction>,
  client: WebClient,
  deps: ApprovalSlackDeps,
  where: Where,
  requestId: string | undefined,
  taken: Exclude<Recorded<{ ok: boolean }>, { outcome: 'recorded' }>,
): Promise<void> {
  const maybe = taken.outcome === 'late' || taken.maybeRecorded === true;
  const text = maybe ? MAYBE_NOT_RECORDED : NOT_RECORDED;
  await ack({ response_action: 'errors', errors: { [REJECT.reason]: text } });
  deps.log?.warn('rejection not recorded', {
    requestId,
    error: taken.outcome === 'failed' ? String(taken.error) : 'no answer in time',
  });
  if (taken.outcome === 'late' && (await taken.work.catch(() => undefined))?.ok) {
    const channel = where.channel ?? deps.approvalsChannel;
    await client.chat.postEphemeral({ channel, user: where.user, text: RECORDED_LATE });
  }
}
