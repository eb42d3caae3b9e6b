// The withdraw form as the requester submits it through the bot, a box on it ticked when the form asked
// (the look-alike address compared, the same payment filed again), and what the bot shows after: the
// next update of the modal, the id of the request it filed, and the request's message in the channel.
import { APPROVALS_CHANNEL, type ApprovalApp, REQUESTER } from '../slack/approvals/support.js';
import type { SlackCall } from './fake-slack.js';
import { viewSubmission, withdrawValues } from './slack-requests.js';

export interface ShownView {
  callback_id: string;
  private_metadata: string;
  blocks: Array<{ block_id?: string }>;
}

/**
 * Submit the withdraw form as the requester, the form offering the open networks (`metadata`, the
 * form's own when it was shown again); `networkId` defaults to the first open one, `tick` ticks that box.
 */
export async function submitWithdrawForm(
  app: ApprovalApp,
  input: {
    amount: string;
    address: string;
    networkId?: string;
    tick?: 'compared' | 'again';
    metadata?: string;
  },
) {
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled).map((n) => n.id);
  const box = input.tick && `withdraw.${input.tick}`;
  return viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    privateMetadata: input.metadata ?? JSON.stringify({ networks }),
    values: {
      ...withdrawValues({
        amount: input.amount,
        network: input.networkId ?? networks[0] ?? '',
        address: input.address,
      }),
      ...(box ? { [box]: { [box]: { type: 'checkboxes', selected_options: [{ value: input.tick }] } } } : {}),
    },
  });
}

/** The next views.update (after `from` of them) whose view is the one `wanted` looks for. */
export async function nextViewUpdate(
  app: ApprovalApp,
  from: number,
  wanted: (view: ShownView) => boolean,
): Promise<ShownView> {
  const call = await app.slack.waitFor('views.update', (c) => {
    const view = c.body.view as ShownView | undefined;
    return app.slack.callsTo('views.update').indexOf(c) >= from && view !== undefined && wanted(view);
  });
  return call.body.view as ShownView;
}

/** The id of the request a view names (the one saying where it waits), or '' where it names none. */
export const filedIdIn = (view: ShownView) => /AR-[0-9A-F]+/.exec(JSON.stringify(view))?.[0] ?? '';

/** The view names a request: the bot filed one. */
export const namesARequest = (view: ShownView) => JSON.stringify(view).includes('AR-');

/** Request `id`'s own message in the approvals channel (not a reply in its thread). */
export const channelMessageOf = (app: ApprovalApp, id: string): SlackCall | undefined =>
  app.slack
    .callsTo('chat.postMessage')
    .find(
      (c) => c.body.channel === APPROVALS_CHANNEL && !c.body.thread_ts && String(c.body.text).includes(id),
    );
