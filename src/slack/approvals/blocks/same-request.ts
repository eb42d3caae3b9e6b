// "Same amount and destination as AR-… (pending, filed 35 seconds ago)": the same payment filed again
// (approvals/same-request.ts), wherever the request is shown, and in the form that asks "file it
// again?" before filing. Pure: a request or its mark and the time in, mrkdwn or Block Kit out.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest, SameRequestMark } from '../../../approvals/index.js';
import { relative } from '../../../format/display.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';

const SAME_REQUEST = 'Same amount and destination as';

/** Where the other request was when this one was filed, and how long ago it was filed or sent. */
function whereWords(mark: SameRequestMark, now: Date): string {
  const age = relative(mark.at, now);
  if (mark.state === 'pending') return `pending, filed ${age}`;
  return mark.state === 'sent' ? `sent ${age}` : `sent ${age}, outcome unknown`;
}

/** `:repeat: *Same amount and destination as AR-…* (pending, filed 35 seconds ago)` (mrkdwn). */
function sameRequestText(mark: SameRequestMark, now: Date): string {
  return `:repeat: *${SAME_REQUEST} ${escapeMrkdwn(mark.id)}* (${whereWords(mark, now)})`;
}

/** The line for a filed request, saying whether its requester was asked; undefined when none matched. */
export function sameRequestLine(request: ApprovalRequest, now: Date): string | undefined {
  const mark = request.earlier?.same;
  if (!mark) return undefined;
  const asked = mark.confirmed ? '. The requester was shown it and filed this one too.' : '';
  return `${sameRequestText(mark, now)}${asked}`;
}

/** The line as its own block, right under the purpose: approvers must see it before the figures' checks. */
export function sameRequestNotice(request: ApprovalRequest, now: Date): KnownBlock[] {
  const text = sameRequestLine(request, now);
  return text ? [{ type: 'section', text: { type: 'mrkdwn', text } }] : [];
}

/** The form's question before filing the same payment again: the match and the box to tick. */
export function sameRequestInputs(id: string, mark: SameRequestMark | undefined, now: Date): KnownBlock[] {
  if (!mark) return [];
  const again = {
    text: { type: 'plain_text' as const, text: 'File it again: this is another payment' },
    value: 'again',
  };
  return [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${sameRequestText(mark, now)}\nIs this the same payment twice? If it is another payment, tick the box to file it again; approvers will see the two linked.`,
      },
    },
    {
      type: 'input',
      block_id: id,
      optional: false,
      label: { type: 'plain_text', text: 'File it again?' },
      element: {
        type: 'checkboxes',
        action_id: id,
        options: [again],
        ...(mark.confirmed ? { initial_options: [again] } : {}),
      },
    },
  ];
}
