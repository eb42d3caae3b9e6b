// The purpose a requester gave a payment, as approvers read it wherever the request is shown. It is
// outside text: escaped where it enters mrkdwn, its hidden characters marked. Requests filed before
// purposes existed have none, and show nothing in its place.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest } from '../../../approvals/index.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';

/** The purpose as mrkdwn, or undefined when the request has none. */
export function purposeText(request: Pick<ApprovalRequest, 'purpose'>): string | undefined {
  return request.purpose ? escapeMrkdwn(request.purpose) : undefined;
}

/** `*Purpose*` and the text, at full width; nothing for a request without one. */
export function purposeBlocks(request: Pick<ApprovalRequest, 'purpose'>): KnownBlock[] {
  const text = purposeText(request);
  return text ? [{ type: 'section', text: { type: 'mrkdwn', text: `*Purpose*\n${text}` } }] : [];
}
