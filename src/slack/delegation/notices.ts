// The delegate hears, by DM, when a delegation to them takes effect or is revoked (the delegator hears
// through the presenter's requester notes). Runs on the replica that persisted the step; each notice is
// claimed in the store before it is sent, so none goes twice. A delegate who may no longer act here (a
// guest, deactivated, of another workspace) is told nothing: the delegation is being ended on their account.
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine } from '../../approvals/index.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import { delegateNotice } from '../ui/delegations.js';

/** Kept as long as a delegation can run, with room to spare. */
const CLAIM_TTL_MS = 100 * 86_400_000;

export function tellDelegates(
  engine: ApprovalEngine,
  client: WebClient,
  store: Store,
  /** Whether Slack describes the user as able to act here (the gate's directory). */
  mayAct: (user: string) => Promise<boolean>,
  log?: Pick<Logger, 'warn'>,
): void {
  engine.onChange(async (request) => {
    if (request.kind !== 'delegation') return;
    const text = delegateNotice(request);
    if (!text) return;
    const key = `delegation-dm:${request.id}:${request.history.length - 1}`;
    try {
      if (!(await mayAct(request.payload.delegate))) return;
      if (!(await store.setIfAbsent(key, request.payload.delegate, CLAIM_TTL_MS))) return;
      // Posting to a user id lands in the app's DM with them.
      await client.chat.postMessage({ channel: request.payload.delegate, text });
    } catch (error) {
      log?.warn('could not tell a delegate of their delegation', {
        requestId: request.id,
        error: String(error),
      });
    }
  });
}
