// `/cngn freeze <reason>`: an approver stops every send at once, on every replica, until another
// approver approves `/cngn unfreeze`, which is filed as a request like any other. The engine decides
// and records (approvals/freeze.ts); here the words are read and the answer said privately. The
// approvals channel hears of each freeze and lift from the notices (notices.ts).
import { FREEZE_REASON_MAX, FREEZE_REASON_MIN } from '../../approvals/index.js';
import { escapeMrkdwn, mentionChannel, mentionUser } from '../../format/mrkdwn.js';
import type { ApprovalSlackDeps } from '../types.js';
import { APPROVERS, type FeatureSubcommand, type SlackMessage } from '../types.js';
import { FROZEN_MEANING, frozenBy, mayLift, othersThan, since } from '../ui/freeze.js';
import { requestTitle } from '../ui/words.js';

/** mrkdwn: its `<…>` placeholder written as entities, so Slack shows it as typed. */
const FREEZE_USAGE =
  'Usage: `/cngn freeze &lt;reason&gt;` — e.g. `/cngn freeze a look-alike address was approved; checking`. `/cngn unfreeze` asks to lift it.';

/** An answer made of the bot's own words, mentions and escaped values: already mrkdwn. */
const answer = (text: string): SlackMessage => ({
  text,
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});

async function freezeCommand(args: string[], userId: string, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const reason = args.join(' ').trim();
  const result = await deps.engine.freezeSends(userId, reason);
  if (!result.ok) {
    if (result.reason === 'bad-reason') {
      return answer(
        `Reason: say why sends are frozen, in ${FREEZE_REASON_MIN} to ${FREEZE_REASON_MAX} characters; every request message shows it. Nothing changed. ${FREEZE_USAGE}`,
      );
    }
    if (result.reason === 'not-approver') {
      return answer(
        'Only an approver can freeze sends (a delegate cannot). Nothing changed: if something looks wrong, tell an approver now.',
      );
    }
    return answer(
      `Sends are already frozen (${since(result.freeze)}). ${frozenBy(result.freeze)}. Nothing changed. \`/cngn unfreeze\` asks another approver to lift it.`,
    );
  }
  const late = result.underway.length
    ? ` Already under way when the freeze came, so not stopped: ${result.underway.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ')}.`
    : '';
  return answer(
    `:no_entry: Frozen. From now on ${FROZEN_MEANING}${late} ${mentionChannel(deps.approvalsChannel)} has been told.`,
  );
}

/**
 * Who must approve an unfreeze `userId` filed, in words: "another approver approves it", "2 approvers
 * other than <@A> and you approve it" (mrkdwn).
 */
function approvesIt(frozenBy: string, userId: string, needed: number): string {
  if (needed === 1) {
    return `${frozenBy === userId ? 'another approver' : mayLift(frozenBy, 'you')} approves it`;
  }
  return `${needed} ${frozenBy === userId ? 'other approvers' : `approvers ${othersThan(frozenBy, 'you')}`} approve it`;
}

/** How many there are: "are none", "is only 1", "are only 2". */
const thereAre = (count: number): string =>
  count === 0 ? 'are none' : count === 1 ? 'is only 1' : `are only ${count}`;

async function unfreezeCommand(userId: string, deps: ApprovalSlackDeps): Promise<SlackMessage> {
  const result = await deps.engine.fileUnfreeze(userId);
  if (result.ok) {
    const { frozenBy: froze } = result.request.payload;
    const approve = approvesIt(froze, userId, result.request.requiredApprovals);
    return answer(
      `Filed ${escapeMrkdwn(requestTitle(result.request))}: once ${approve} in ${mentionChannel(deps.approvalsChannel)}, the freeze is lifted and what was approved meanwhile goes out (unless it expired).`,
    );
  }
  switch (result.reason) {
    case 'not-approver':
      return answer('Only an approver can ask to lift the freeze of sends. Nothing was filed.');
    case 'not-frozen':
      return answer('Sends are not frozen, so there is nothing to lift. Nothing was filed.');
    case 'too-few-approvers': {
      const { needed, eligible, frozenBy, freezerMayFile } = result;
      const advice = freezerMayFile
        ? `${mentionUser(frozenBy)}, who froze the sends, can file one that enough approvers can approve.`
        : 'No approver can file one that enough could approve: add approvers, or lower the approvals of the lowest tier.';
      return answer(
        `An unfreeze you file could never be approved: it needs ${needed} approvals from approvers ${othersThan(frozenBy, 'you')}, and there ${thereAre(eligible)}. ${advice} Nothing was filed.`,
      );
    }
    case 'already-waiting':
      return answer(
        `An unfreeze is already waiting for approval${result.request ? ` as ${escapeMrkdwn(requestTitle(result.request))}` : ''} in ${mentionChannel(deps.approvalsChannel)}. Nothing was filed.`,
      );
  }
}

export const FREEZE_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'freeze',
  usage: 'freeze <reason>',
  summary: 'stop every send to the service at once, on every replica (filing and approving go on)',
  who: APPROVERS,
  example: 'freeze a look-alike address was approved; checking',
  needs: 'approvals',
  run: (command, deps) => freezeCommand(command.args, command.userId, deps),
};

export const UNFREEZE_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'unfreeze',
  usage: 'unfreeze',
  summary: 'ask to lift the freeze: another approver (not the one who froze) approves it',
  who: APPROVERS,
  example: 'unfreeze',
  needs: 'approvals',
  run: (command, deps) => unfreezeCommand(command.userId, deps),
};
