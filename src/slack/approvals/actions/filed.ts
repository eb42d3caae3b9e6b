// After filing: a request only counts as waiting once approvers can see it. If Slack would not take
// its message (after the client's retries), it is cancelled and the requester is told so, rather than
// left pending where no one can see it.
import type { ModalView } from '@slack/types';
import { escapeMrkdwn, mentionChannel } from '../../../format/mrkdwn.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { noticeView } from '../../ui/modal.js';
import { requestTitle } from '../../ui/words.js';

/** Marks the "waiting for approval" modal with the request it speaks of. */
export function filedMetadata(requestId: string): string {
  return JSON.stringify({ filed: requestId });
}

/** The view to show the requester: `view` itself, unless it announces a request approvers cannot see. */
export async function unlessUnseen(
  deps: ApprovalSlackDeps,
  view: ModalView,
  requester: string,
): Promise<ModalView> {
  const id = filedRequestId(view);
  const request = id ? await deps.engine.get(id).catch(() => undefined) : undefined;
  if (!request || request.announcement) return view;
  const title = `*${escapeMrkdwn(requestTitle(request))}*`;
  const channel = mentionChannel(deps.approvalsChannel);
  try {
    // Only while it waits: one approved meanwhile (seen in App Home or a DM) is the approvers' now.
    const cancelled = await deps.engine.cancel(request.id, requester, { onlyWaiting: true });
    if (cancelled.ok) {
      return noticeView(
        'Not filed',
        `${title} could not be shown to the approvers: Slack did not accept its message in ${channel}. So that nothing waits where no one can see it, it was cancelled; nothing was sent. Please file it again in a few minutes.`,
      );
    }
  } catch (error) {
    deps.log?.warn('could not cancel a request the approvers cannot see', {
      requestId: request.id,
      error: String(error),
    });
  }
  return noticeView(
    'Not shown yet',
    `${title} was filed but Slack did not accept its message in ${channel}. It stays pending and is posted there when the bot next starts; nothing moves until it is approved.`,
  );
}

function filedRequestId(view: ModalView): string | undefined {
  try {
    const meta = JSON.parse(view.private_metadata ?? '') as { filed?: unknown };
    return typeof meta.filed === 'string' ? meta.filed : undefined;
  } catch {
    return undefined;
  }
}
