// `/cngn resolve <request> completed|failed <note>`: after the bot asked a person to check an
// outcome-unknown request, or one the service contradicted itself about, with the service, an approver
// (never the requester) records what they found. The step is audited and shown on the request's
// message, and clears a conflict mark; nothing is ever sent or resent.

import { CONFLICT_ACTION } from '../../../approvals/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { APPROVERS, type FeatureSubcommand } from '../../types.js';
import { noticeMessage } from '../../ui/messages.js';
import { refusalText } from '../blocks/lists.js';

const RESOLVE_USAGE =
  'Usage: `/cngn resolve &lt;request&gt; completed|failed &lt;what you checked&gt;` — e.g. `/cngn resolve AR-1A2B3C4D5E failed not on the dashboard, support confirmed`';

async function resolveCommand(args: string[], userId: string, deps: ApprovalSlackDeps): Promise<string> {
  const [rawId = '', rawOutcome = '', ...rest] = args;
  const id = rawId.toUpperCase();
  const outcome = rawOutcome.toLowerCase();
  const note = rest.join(' ').trim();
  if (!/^AR-[0-9A-F]{10}$/.test(id))
    return `Request: give its id as \`/cngn pending\` shows it (AR-…). ${RESOLVE_USAGE}`;
  if (outcome !== 'completed' && outcome !== 'failed')
    return `Outcome: say \`completed\` or \`failed\`. ${RESOLVE_USAGE}`;
  if (note.length < 3 || note.length > 500)
    return `Note: say in a few words what you checked (3 to 500 characters). ${RESOLVE_USAGE}`;
  const result = await deps.engine.resolveByHand(id, userId, outcome, note);
  if (!result.ok) return refusalText(result.reason, result.request);
  const conflicted = result.request.history.some((step) => step.action === CONFLICT_ACTION);
  const cleared = conflicted ? ' The conflicting reports are marked resolved, on the record.' : '';
  return `${id} is now marked *${outcome}*, as you checked.${cleared} The approvals channel shows it; nothing was sent.`;
}

export const RESOLVE_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'resolve',
  usage: 'resolve <request> completed|failed <note>',
  summary: 'record what you checked for a request whose outcome is unknown (nothing is sent)',
  who: APPROVERS,
  example: 'resolve AR-1A2B3C4D5E failed not on the dashboard',
  needs: 'approvals',
  run: async (command, deps) => noticeMessage(await resolveCommand(command.args, command.userId, deps)),
};
