// `/cngn extend <request> [duration]`: the requester's one Extend of a pending request, by at most its
// original lifetime (the whole of it when no duration is given). The engine decides and records it.
import { parseDuration } from '../../../config.js';
import type { ApprovalSlackDeps } from '../../types.js';
import { type FeatureSubcommand, FILERS } from '../../types.js';
import { noticeMessage } from '../../ui/messages.js';
import { extendAnswer } from '../blocks/reminders.js';

const EXTEND_USAGE =
  'Usage: `/cngn extend &lt;request&gt; [duration]` — e.g. `/cngn extend AR-1A2B3C4D5E 12h` (at most the original lifetime, once)';

async function extendCommand(args: string[], userId: string, deps: ApprovalSlackDeps): Promise<string> {
  const [rawId = '', rawDuration] = args;
  const id = rawId.toUpperCase();
  if (!/^AR-[0-9A-F]{10}$/.test(id))
    return `Request: give its id as \`/cngn pending\` shows it (AR-…). ${EXTEND_USAGE}`;
  let byMs: number | undefined;
  if (rawDuration) {
    try {
      byMs = parseDuration(rawDuration);
    } catch (error) {
      return `Duration: ${error instanceof Error ? error.message : String(error)}. ${EXTEND_USAGE}`;
    }
  }
  return extendAnswer(await deps.engine.extend(id, userId, byMs));
}

export const EXTEND_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'extend',
  usage: 'extend <request> [duration]',
  summary: 'extend your pending request once, by at most its original lifetime',
  who: FILERS,
  example: 'extend AR-1A2B3C4D5E 12h',
  needs: 'approvals',
  run: async (command, deps) => noticeMessage(await extendCommand(command.args, command.userId, deps)),
};
