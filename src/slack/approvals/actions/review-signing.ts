// Where an approval must be signed with a passkey (docs/passkeys.md), the review offers no submit: it
// links to the signing page with a one-time link issued as it opens, for this approver, this request
// and the round shown (PasskeyBook.issueLink: 10 minutes, used once). An approver who holds no passkey
// is told how to register one. Review all leaves such requests out of its boxes. The link button's
// own click reaches the bot too: it is acked and changes nothing.
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { type ApprovalRequest, PasskeyBook } from '../../../approvals/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { type ReviewSigning, SIGN_LINK_ACTION } from '../blocks/review.js';

/**
 * Must `request` be signed by its approvers now (the engine's rule, and the first passkeys)? With
 * `user`: must theirs be (an approver holding a passkey signs a registration, click or not for others)?
 */
export function mustSign(deps: ApprovalSlackDeps, request: ApprovalRequest, user?: string): Promise<boolean> {
  const signatures = deps.engine.passkeys.signatures();
  return user === undefined ? signatures.required(request) : signatures.requiredOf(request, user);
}

/** How `user` approves `request` in the review: undefined for a click; else the signing link, or why none. */
export async function reviewSigning(
  deps: ApprovalSlackDeps,
  who: { user: string; team: string | undefined },
  request: ApprovalRequest,
): Promise<ReviewSigning | undefined> {
  if (!(await mustSign(deps, request, who.user))) return undefined;
  if ((await deps.engine.passkeys.passkeysOf(who.user)).length === 0) return { noPasskey: true };
  if (!deps.passkeyLink) return { noPage: true };
  const book = new PasskeyBook(deps.store, deps.engine.environment());
  const token = await book.issueLink({
    page: 'sign',
    user: who.user,
    team: who.team ?? '',
    requestId: request.id,
    round: request.round,
  });
  return { link: deps.passkeyLink('sign', token) };
}

/** The signing link's click: Slack opens the page itself; the bot acks and does nothing else. */
export function registerSignLink(app: App): void {
  app.action<BlockAction<ButtonAction>>(SIGN_LINK_ACTION, async ({ ack }) => {
    await ack();
  });
}
