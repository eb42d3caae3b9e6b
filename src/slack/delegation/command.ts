// `/cngn delegate`: list the delegations in effect (yours; all of them for an approver);
// `/cngn delegate @person until <date|duration> [max <amount>]`: ask that @person may approve in your
// place (filed as a request another approver must approve); `/cngn delegate revoke @person`: end it now.
// The engine decides and records; here the words are read and the answer said.
import { TZDate } from '@date-fns/tz';
import { LONGEST_DELEGATION_MS } from '../../access/index.js';
import type { RequestOf } from '../../approvals/index.js';
import { InvalidDraftError } from '../../approvals/index.js';
import { parseDuration } from '../../config.js';
import { AMOUNT_HINT, amountReason, Money } from '../../format/money.js';
import { escapeMrkdwn, mentionChannel, mentionUser } from '../../format/mrkdwn.js';
import type { ApprovalSlackDeps, FeatureSubcommand, SlackMessage } from '../types.js';
import { delegationList } from '../ui/delegations.js';
import { requestTitle } from '../ui/words.js';

/** mrkdwn: its `<…>` placeholders written as entities, so Slack shows them as typed rather than reading links. */
const DELEGATE_USAGE =
  'Usage: `/cngn delegate @person until &lt;date|duration&gt; [max &lt;amount&gt;]` — e.g. `/cngn delegate @bola until 2026-12-24 max 500000` or `/cngn delegate @bola until 7d`; `/cngn delegate revoke @person`; `/cngn delegate` lists them.';

/** `<@U123|bola>` (a mention, as Slack sends it), `<@U123>`, or a member ID `U123…`. */
function readPerson(word: string | undefined): string | undefined {
  const match =
    /^<@([UW][A-Z0-9]{2,})(?:\|[^>]*)?>$/.exec(word ?? '') ?? /^([UW][A-Z0-9]{2,})$/.exec(word ?? '');
  return match?.[1];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * `2026-12-24` (to the end of that day in Lagos) or a duration from now (`7d`, `12h`, `2w`). Throws with
 * the reason.
 */
function readUntil(word: string | undefined, now: Date): Date {
  const text = (word ?? '').toLowerCase();
  const date = DATE.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]) - 1, Number(date[3])];
    const start = new TZDate(year, month, day, 'Africa/Lagos');
    if (start.getFullYear() !== year || start.getMonth() !== month || start.getDate() !== day) {
      throw new Error('is not a real date');
    }
    return new Date(new TZDate(year, month, day + 1, 'Africa/Lagos').getTime());
  }
  const weeks = /^(\d+)\s*w$/.exec(text);
  const ms = weeks ? Number(weeks[1]) * 7 * 86_400_000 : parseDuration(text);
  // Said here for any length, not only those a date can still hold (`999999999999w` is none).
  if (ms > LONGEST_DELEGATION_MS)
    throw new Error('is longer than a delegation may last: at most 90 days from now');
  return new Date(now.getTime() + ms);
}

/** The cap: one amount as other amounts are typed (`500000`, `₦500,000.50`), positive. */
function readCap(word: string): string {
  const money = Money.parse(word);
  if (!money.isPositive()) throw new Error('must be more than 0');
  money.toWireNumber(); // refuse what cannot be held exactly
  return money.toString();
}

/** An answer made of the bot's own words, mentions and escaped values: already mrkdwn. */
const answer = (text: string): SlackMessage => ({
  text,
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});

async function delegateCommand(
  args: string[],
  userId: string,
  deps: ApprovalSlackDeps,
): Promise<SlackMessage> {
  const now = (deps.now ?? (() => new Date()))();
  const [first, ...rest] = args;
  if (!first) {
    const everyone = await deps.engine.isApprover(userId);
    const live = await deps.engine.liveDelegations();
    const mine = (d: { delegator: string; delegate: string }) =>
      everyone || d.delegator === userId || d.delegate === userId;
    const waiting = (await deps.engine.openRequests()).filter(
      (r): r is RequestOf<'delegation'> =>
        r.kind === 'delegation' && r.state === 'pending' && mine(r.payload),
    );
    return delegationList(live.filter(mine), now, deps.environmentLabel, everyone, waiting);
  }
  if (first.toLowerCase() === 'revoke') {
    const person = readPerson(rest[0]);
    if (!person || rest.length > 1) return answer(`Person: mention one person. ${DELEGATE_USAGE}`);
    const ended = await deps.engine.revokeDelegations(userId, person);
    if (ended.length === 0) {
      return answer(
        `No delegation in effect between you and ${mentionUser(person)}, so nothing changed. (\`/cngn delegate\` lists them; one still waiting for approval is cancelled with Cancel on its message.)`,
      );
    }
    const ids = ended.map((r) => r.id).join(', ');
    return answer(
      `Revoked at once: ${ended.length} delegation${ended.length === 1 ? '' : 's'} (${ids}). Nobody approves in anyone's place through ${ended.length === 1 ? 'it' : 'them'} any more.`,
    );
  }
  return fileDelegation(first, rest, userId, deps, now);
}

async function fileDelegation(
  first: string,
  rest: string[],
  userId: string,
  deps: ApprovalSlackDeps,
  now: Date,
): Promise<SlackMessage> {
  const person = readPerson(first);
  if (!person) {
    return answer(
      `Person: mention them (@name, picked from Slack's list) or give their member ID (U…). ${DELEGATE_USAGE}`,
    );
  }
  if (person === userId) return answer('Person: you cannot delegate to yourself.');
  if (rest[0]?.toLowerCase() !== 'until' || !rest[1]) {
    return answer(`Until: say until when, as a date or a duration. ${DELEGATE_USAGE}`);
  }
  let until: Date;
  try {
    until = readUntil(rest[1], now);
  } catch (error) {
    return answer(`Until: \`${escapeMrkdwn(rest[1])}\` ${(error as Error).message}. ${DELEGATE_USAGE}`);
  }
  const cap = readMax(rest.slice(2));
  if ('refused' in cap) return cap.refused;
  const { max } = cap;
  if (!(await deps.engine.isApprover(userId))) {
    return answer(
      'Only an approver can delegate, and a delegate cannot pass on what was delegated to them. Nothing was filed.',
    );
  }
  // Only a full member of the workspace may approve in anyone's place: no guest, bot, deactivated
  // account or member of another workspace is ever sent a request's figures as a delegate.
  let problem: string | undefined;
  try {
    problem = await deps.delegates?.problem(person);
  } catch {
    return answer(
      `Person: the bot could not check ${mentionUser(person)} with Slack just now. Nothing was filed; try again in a moment.`,
    );
  }
  if (problem) return answer(`${problem} Nothing was filed.`);
  try {
    const request = await deps.engine.fileDelegation(userId, person, until, max);
    return answer(
      `Filed ${requestTitle(request)}: ${mentionUser(person)} may approve in your place once another approver (not you, not them) approves it in ${mentionChannel(deps.approvalsChannel)}.`,
    );
  } catch (error) {
    if (error instanceof InvalidDraftError) return answer(`${error.message}. Nothing was filed.`);
    throw error;
  }
}

/** The optional `max <amount>` after the date: the cap, none, or why it cannot be read. */
function readMax(more: string[]): { max: string | undefined } | { refused: SlackMessage } {
  if (more.length === 0) return { max: undefined };
  if (more[0]?.toLowerCase() !== 'max' || more.length < 2) {
    return {
      refused: answer(
        `Max: say \`max ${escapeMrkdwn('<amount>')}\` after the date, or nothing. ${DELEGATE_USAGE}`,
      ),
    };
  }
  if (more.length > 2) {
    const extra = escapeMrkdwn(more.slice(2).join(' ').slice(0, 100));
    return {
      refused: answer(
        `Max: give one amount after \`max\`; \`${extra}\` is more than that. Write the amount without spaces, e.g. 500000 or ₦500,000.50.`,
      ),
    };
  }
  try {
    return { max: readCap(more[1] ?? '') };
  } catch (error) {
    const reason = amountReason(error);
    return {
      refused: answer(
        reason === AMOUNT_HINT
          ? 'Max: enter an amount with at most 2 decimals, more than 0, e.g. 500000 or ₦500,000.50'
          : `Max: ${reason}`,
      ),
    };
  }
}

/**
 * Anyone who is not a guest may list theirs or revoke (a delegate, an approver who is not a requester);
 * only an approver may file one (checked above).
 */
export const DELEGATE_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'delegate',
  usage: 'delegate [@person until <date|duration> [max <amount>] | revoke @person]',
  summary:
    'approvers away: let someone approve in your place for a while (another approver approves it); list or revoke',
  who: 'anyone',
  example: 'delegate @bola until 2026-12-24 max 500000',
  needs: 'approvals',
  run: (command, deps) => delegateCommand(command.args, command.userId, deps),
};
