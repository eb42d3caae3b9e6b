// The Slack side of reminders and Extend. The thread reply and the requester's note of a reminder go
// through the presenter like every step; here: the DM to each waiting approver, and the Extend button.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { ApprovalRequest } from '../../approvals/index.js';
import type { Store } from '../../store/index.js';
import type { ApprovalSlackDeps } from '../types.js';
import { MAYBE_NOT_RECORDED, NOT_RECORDED, RECORDED_LATE, readClick, recordClick } from './actions/click.js';
import { readButtonValue } from './blocks/message.js';
import { EXTEND_ACTION, extendAnswer, reminderDm } from './blocks/reminders.js';
import { PRESENTER_REQUEST_TIMEOUT_MS, PRESENTER_RETRIES } from './presenter.js';

/** Kept long enough to outlive any request (lifetime plus its one Extend) with room to spare. */
const DM_CLAIM_TTL_MS = 30 * 86_400_000;

/**
 * DM each approver a reminder names, once: the replica that persisted the reminder claims each DM in
 * the store before sending it, so no DM goes twice. A DM Slack refuses (after the client's bounded
 * retries) or a crash between the claim and the send loses that one DM, never the others; the thread
 * reply, which names everyone, is kept by the presenter and made good after. Returns who was missed.
 */
async function sendReminderDms(
  client: WebClient,
  store: Store,
  request: ApprovalRequest,
  /** Whether Slack describes the person as able to act here; others are not reminded. Absent: everyone. */
  mayAct?: (user: string) => Promise<boolean>,
): Promise<Array<{ user: string; error: string }>> {
  const index = request.history.length - 1;
  const step = request.history[index];
  if (step?.action !== 'reminder' || !step.reminder) return [];
  const message = reminderDm(request);
  const missed: Array<{ user: string; error: string }> = [];
  for (const user of step.reminder.waiting) {
    try {
      if (mayAct && !(await mayAct(user))) continue;
      const key = `reminder-dm:${request.id}:${index}:${user}`;
      if (!(await store.setIfAbsent(key, step.at, DM_CLAIM_TTL_MS))) continue;
      // Posting to a user id lands in the app's DM with them (as the requester's notes do).
      await client.chat.postMessage({ channel: user, ...message });
    } catch (error) {
      missed.push({ user, error: String(error) });
    }
  }
  return missed;
}

export function registerApprovalReminders(app: App, deps: ApprovalSlackDeps, store: Store): void {
  // Bounded like the presenter's client (the engine's sweep waits for its listeners), not Bolt's
  // half-hour of retries.
  const dmClient = new WebClient(app.client.token, {
    ...app.webClientOptions,
    logger: app.logger,
    retryConfig: PRESENTER_RETRIES,
    timeout: PRESENTER_REQUEST_TIMEOUT_MS,
    rejectRateLimitedCalls: false,
  });
  deps.engine.onChange(async (request) => {
    if (request.history.at(-1)?.action !== 'reminder') return;
    for (const { user, error } of await sendReminderDms(dmClient, store, request, deps.mayAct)) {
      deps.log?.warn('could not DM a reminder to an approver', { requestId: request.id, user, error });
    }
  });

  // Extend: recorded by the engine before the ack (like every approval click); only the requester's works.
  app.action<BlockAction<ButtonAction>>(EXTEND_ACTION, async ({ body, ack, client }) => {
    const read = readClick(body);
    if (!read.ok) {
      await ack();
      deps.log?.warn('extend click could not be read', { problem: read.problem });
      return;
    }
    const { click } = read;
    const { id } = readButtonValue(click.value);
    const taken = await recordClick((options) => deps.engine.extend(id, click.user, undefined, options));
    await ack();
    const say = (text: string) =>
      client.chat.postEphemeral({ channel: click.channel ?? deps.approvalsChannel, user: click.user, text });
    try {
      if (taken.outcome === 'failed' && taken.maybeRecorded) {
        deps.log?.warn('extend click failed after its write started', {
          requestId: id,
          error: String(taken.error),
        });
        await say(MAYBE_NOT_RECORDED);
        return;
      }
      if (taken.outcome === 'failed') throw taken.error;
      if (taken.outcome === 'late') {
        await say(MAYBE_NOT_RECORDED);
        if ((await taken.work.catch(() => undefined))?.ok) await say(RECORDED_LATE);
        return;
      }
      await say(extendAnswer(await taken.work));
    } catch (error) {
      deps.log?.warn('extend click failed', { requestId: id, error: String(error) });
      await say(NOT_RECORDED).catch(() => undefined);
    }
  });
}
