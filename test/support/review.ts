// Approving as a person does now: click Approve (in the channel, a DM or App Home), which opens the
// review modal, then submit that modal as Slack would (its callback id and private_metadata). A click
// the bot refuses opens nothing: the helpers then return the private answer instead.
import { REVIEW_VIEW } from '../../src/slack/approvals/blocks/review.js';
import { type FakeSlack, openedViewId, type SlackCall } from './fake-slack.js';
import {
  blockAction,
  newTriggerId,
  type SlackResponse,
  type SlackSender,
  viewSubmission,
} from './slack-requests.js';

export interface ReviewView {
  /** The id Slack gave the view when it opened: a submission carries it back. */
  id: string;
  callback_id: string;
  private_metadata: string;
  submit?: { text: string };
  blocks: unknown[];
}

export interface OpenedReview {
  clicked: SlackResponse;
  /** The review modal the click opened, or undefined when the click was answered privately instead. */
  view?: ReviewView;
  /** The private answer, when no modal opened. */
  told?: SlackCall;
}

/**
 * Click (with a trigger id of ours) and wait for what it leads to: the review modal opened with that
 * trigger, or a private answer to the person.
 */
export async function openReview(
  slack: FakeSlack,
  user: string,
  clickWith: (triggerId: string) => Promise<SlackResponse>,
): Promise<OpenedReview> {
  const triggerId = newTriggerId();
  const before = slack.callsTo('chat.postEphemeral').length;
  const clicked = await clickWith(triggerId);
  const deadline = Date.now() + 30_000; // a cap for a machine with every core busy
  for (;;) {
    const opened = slack
      .callsTo('views.open')
      .find((c) => c.body.trigger_id === triggerId && (c.answer as { ok?: boolean } | undefined)?.ok);
    if (opened) return { clicked, view: { ...(opened.body.view as ReviewView), id: openedViewId(opened) } };
    const told = slack
      .callsTo('chat.postEphemeral')
      .slice(before)
      .find((c) => c.body.user === user);
    if (told) return { clicked, told };
    if (Date.now() > deadline)
      throw new Error(`the Approve click of ${user} opened nothing and said nothing`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Submit a review modal as `user`: Slack sends back its id, callback id and private_metadata. */
export function submitReview(sender: SlackSender, view: ReviewView, user: string): Promise<SlackResponse> {
  if (view.callback_id !== REVIEW_VIEW) throw new Error(`not the review modal: ${view.callback_id}`);
  return viewSubmission(sender, {
    callbackId: view.callback_id,
    viewId: view.id,
    privateMetadata: view.private_metadata,
    userId: user,
    values: {},
  });
}

export interface Reviewed extends OpenedReview {
  /** The submission's answer: empty (the modal closes) or a response_action. */
  submitted?: SlackResponse;
}

/** Click Approve, check the review modal opened, submit it. A refused click returns its private answer. */
async function approveInReview(
  sender: SlackSender,
  slack: FakeSlack,
  user: string,
  clickWith: (triggerId: string) => Promise<SlackResponse>,
): Promise<Reviewed> {
  const opened = await openReview(slack, user, clickWith);
  if (!opened.view) return opened;
  return { ...opened, submitted: await submitReview(sender, opened.view, user) };
}

/** The answer a refused submission gave in the modal (`update` to a refusal view), as text. */
export function refusedInModal(submitted: SlackResponse | undefined): string | undefined {
  const body = submitted?.body
    ? (submitted.json() as { response_action?: string; view?: unknown })
    : undefined;
  if (body?.response_action !== 'update') return undefined;
  const view = body.view as { title?: { text?: string } };
  return view.title?.text === 'Not approved' ? JSON.stringify(body.view) : undefined;
}

/** Approve clicked on a message in `channel` (the button's value is `id` or `id:round`), with our trigger. */
function approveClick(sender: SlackSender, value: string, user: string, channel: string) {
  return (triggerId: string) =>
    blockAction(sender, {
      actionId: 'approval.approve',
      value,
      userId: user,
      channelId: channel,
      messageTs: '1.0',
      triggerId,
    });
}

/** Click Approve on the message in `channel` and return the review it opened (or the private answer). */
export function reviewInChannel(
  sender: SlackSender,
  slack: FakeSlack,
  value: string,
  user: string,
  channel: string,
): Promise<OpenedReview> {
  return openReview(slack, user, approveClick(sender, value, user, channel));
}

/** Click Approve on the message in `channel`, check the review opened, submit it. */
export function approveInChannel(
  sender: SlackSender,
  slack: FakeSlack,
  value: string,
  user: string,
  channel: string,
): Promise<Reviewed> {
  return approveInReview(sender, slack, user, approveClick(sender, value, user, channel));
}
