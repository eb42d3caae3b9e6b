// The /cngn registry and router: every subcommand, as its feature declares it (name, usage, help line,
// who it is for, the feature it needs, handler), in the help's order. The router acks first, finds the
// entry, runs it, and answers privately. Unknown input gets the help with a "did you mean".
import type { App, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import { escapeMrkdwn } from '../format/mrkdwn.js';
import { DEAD_LETTERS_SUBCOMMAND } from './alerts/dead-letter-command.js';
import type { DeadLetterSlackDeps } from './alerts/types.js';
import { BRIDGE_SUBCOMMAND } from './approvals/commands/bridge.js';
import { EXTEND_SUBCOMMAND } from './approvals/commands/extend.js';
import { PENDING_SUBCOMMAND } from './approvals/commands/pending.js';
import { POLICY_SUBCOMMAND, type PolicyFacts } from './approvals/commands/policy.js';
import { REDEEM_SUBCOMMAND } from './approvals/commands/redeem.js';
import { RESOLVE_SUBCOMMAND } from './approvals/commands/resolve.js';
import { SETTLEMENT_SUBCOMMAND } from './approvals/commands/settlement.js';
import { WHITELIST_ADD_SUBCOMMAND } from './approvals/commands/whitelist-add.js';
import { WITHDRAW_SUBCOMMAND } from './approvals/commands/withdraw.js';
import type { ApprovalSlackDeps } from './approvals/types.js';
import { AUDIT_SUBCOMMANDS } from './audit/command.js';
import { DELEGATE_SUBCOMMAND } from './delegation/command.js';
import { FREEZE_SUBCOMMAND, UNFREEZE_SUBCOMMAND } from './freeze/command.js';
import { helpMessage, TX_PAGE_ACTIONS } from './reads/blocks.js';
import { READ_SUBCOMMANDS, type ReadDeps, txPage } from './reads/commands.js';
import { REPORT_SUBCOMMAND } from './reports/command.js';
import { commandDelivery, type Deliveries, type DeliveryTurn } from './runtime/deliveries.js';
import { describeError } from './runtime/errors.js';
import { afterAck, type InFlight } from './runtime/in-flight.js';
import { postToResponseUrl } from './runtime/response-url.js';
import type { CommandContext, FeatureSubcommand, SlackMessage, Subcommand } from './types.js';
import { errorMessage, noticeMessage, withEnvironment } from './ui/messages.js';

/** An entry of the registry: a read runs with the router's deps; the others with their feature's. */
type Entry =
  | (Subcommand<ReadDeps> & { needs?: undefined })
  | FeatureSubcommand<'approvals', ApprovalSlackDeps>
  | FeatureSubcommand<'policy', PolicyFacts>
  | FeatureSubcommand<'deadLetters', DeadLetterSlackDeps>;

const HELP: Subcommand<ReadDeps> = {
  name: 'help',
  usage: 'help',
  summary: 'this list',
  who: 'anyone',
  example: 'help',
  run: async () => help(),
};

/** Every /cngn subcommand, in the order a treasury operator needs them (the help's order). */
export const REGISTRY: readonly Entry[] = [
  READ_SUBCOMMANDS.balance,
  READ_SUBCOMMANDS.tx,
  REPORT_SUBCOMMAND,
  READ_SUBCOMMANDS.deposit,
  WITHDRAW_SUBCOMMAND,
  REDEEM_SUBCOMMAND,
  READ_SUBCOMMANDS.quote,
  BRIDGE_SUBCOMMAND,
  READ_SUBCOMMANDS.accounts,
  READ_SUBCOMMANDS.networks,
  READ_SUBCOMMANDS.banks,
  READ_SUBCOMMANDS.whitelist,
  WHITELIST_ADD_SUBCOMMAND,
  SETTLEMENT_SUBCOMMAND,
  PENDING_SUBCOMMAND,
  EXTEND_SUBCOMMAND,
  DELEGATE_SUBCOMMAND,
  FREEZE_SUBCOMMAND,
  UNFREEZE_SUBCOMMAND,
  // What the policy shows (approvers, limits used) is the treasury's business: for readers.
  POLICY_SUBCOMMAND,
  AUDIT_SUBCOMMANDS.list,
  AUDIT_SUBCOMMANDS.verify,
  AUDIT_SUBCOMMANDS.archive,
  AUDIT_SUBCOMMANDS.export,
  DEAD_LETTERS_SUBCOMMAND,
  RESOLVE_SUBCOMMAND,
  HELP,
];

/** The entries `/cngn help` shows, one line each, in order. */
export const SUBCOMMANDS: readonly Entry[] = REGISTRY.filter((entry) => entry.inHelp !== false);

const NOT_CONFIGURED = 'Approvals are not configured: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS.';

/**
 * The entry the words name, and the words after its name: two words first (`audit verify`,
 * `whitelist add`), then one. Case does not matter.
 */
export function findSubcommand(words: string[]): { entry: Entry; args: string[] } | undefined {
  const [first = '', second = ''] = words.map((word) => word.toLowerCase());
  const both = REGISTRY.find((entry) => entry.name === `${first} ${second}`);
  if (both) return { entry: both, args: words.slice(2) };
  const one = REGISTRY.find((entry) => entry.name === first);
  return one ? { entry: one, args: words.slice(1) } : undefined;
}

export interface RouterDeps extends ReadDeps {
  /** Each delivery of /cngn runs once, across replicas. */
  deliveries: Deliveries;
  /** Post-ack work is tracked here so shutdown can let it finish. */
  inFlight?: InFlight;
  /** Set when the approvals feature is wired (money-moving subcommands). */
  approvals?: ApprovalSlackDeps | undefined;
  /** Set when approvals are wired: what `/cngn policy` shows. */
  policy?: PolicyFacts | undefined;
  /** Set when alerts are posted and approvals are wired (approvers re-post). */
  deadLetters?: DeadLetterSlackDeps | undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

export function suggest(word: string): string | undefined {
  const ranked = SUBCOMMANDS.map((s) => ({ name: s.name, d: distance(word.toLowerCase(), s.name) })).sort(
    (a, b) => a.d - b.d,
  );
  const best = ranked[0];
  return best && best.d <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

export function help(word?: string): SlackMessage {
  if (!word) return helpMessage(SUBCOMMANDS);
  const guess = suggest(word);
  const notice = `I don't know \`${escapeMrkdwn(word)}\`.${guess ? ` Did you mean \`/cngn ${guess}\`?` : ''}`;
  return helpMessage(SUBCOMMANDS, notice);
}

/** What one delivery of /cngn carries that its answer needs. */
type CommandDelivery = Pick<SlashCommand, 'text' | 'user_id' | 'channel_id' | 'trigger_id' | 'response_url'>;

const STILL_RUNNING =
  'This command was already received and is still being handled, so it was not run again. Its answer comes once it is done.';

/**
 * Run a /cngn delivery once (deliveries.ts): a repeat of its trigger_id, on any replica, is answered
 * with what the first one answered, and runs nothing.
 */
async function answerOnce(command: CommandDelivery, client: WebClient, deps: RouterDeps): Promise<void> {
  const post = (message: SlackMessage) =>
    postToResponseUrl(command.response_url, { response_type: 'ephemeral', ...message });
  const run = (respond: (message: SlackMessage) => Promise<void>) =>
    routeCommand(
      command.text,
      {
        userId: command.user_id,
        channelId: command.channel_id,
        triggerId: command.trigger_id,
        client,
        respond,
      },
      deps,
    );
  // Slack gives every invocation a trigger_id; without one there is nothing to tell a repeat by.
  if (!command.trigger_id) return run(post);
  let turn: DeliveryTurn<SlackMessage[]>;
  try {
    turn = await deps.deliveries.claim<SlackMessage[]>(commandDelivery(command.trigger_id));
  } catch (error) {
    return post(errorMessage(describeError(error, deps.logger, '/cngn').text));
  }
  if (!turn.first) {
    const answers = (await turn.answer()) ?? [
      withEnvironment(noticeMessage(STILL_RUNNING), deps.api.environment),
    ];
    for (const message of answers) await post(message);
    return;
  }
  const said: SlackMessage[] = [];
  try {
    await run(async (message) => {
      said.push(message);
      // Answers waiting on one service read resume together: each is sent on a turn of its own.
      await deps.inFlight?.turn();
      await post(message);
    });
  } finally {
    await turn.answered(said).catch((error: unknown) => {
      deps.logger.warn('could not record the answer to a command', { error: String(error) });
    });
  }
}

/**
 * The app asks Slack to escape the command text (so `@person` arrives as `<@U…|name>`); links and
 * e-mail addresses then arrive wrapped too (`<http://x.ng|x.ng>`, `<mailto:a@b.ng|a@b.ng>`): they are
 * unwrapped to what was typed (the label; the target without `mailto:` when there is none). Slack also
 * writes a typed `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;`: decoded after the unwrapping (so a typed `<`
 * never makes markup), `&amp;` last (a typed `&lt;` stays `&lt;`). Mentions of people and channels stay
 * as Slack sent them.
 */
export function unwrapLinks(text: string): string {
  return text
    .replace(
      /<((?:mailto:|https?:\/\/)[^|>\s]+)(?:\|([^>]*))?>/g,
      (_, target: string, label: string | undefined) => label || target.replace(/^mailto:/, ''),
    )
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

type Reply = (message: SlackMessage) => Promise<void>;

/**
 * The entry's handler with the deps it needs, and how its answers are sent; undefined when its feature
 * is not configured here. Approval answers that name the environment in their own heading are sent as
 * they are (one marker per answer is enough); every other answer gets the marker added.
 */
function bind(
  entry: Entry,
  deps: RouterDeps,
  replies: { marked: Reply; ownMarker: Reply },
): { run: (command: CommandContext) => Promise<SlackMessage | undefined>; reply: Reply } | undefined {
  switch (entry.needs) {
    case undefined:
      return { run: (command) => entry.run(command, deps), reply: replies.marked };
    case 'policy': {
      const facts = deps.policy;
      return facts && { run: (command) => entry.run(command, facts), reply: replies.marked };
    }
    case 'approvals': {
      const approvals = deps.approvals;
      return approvals && { run: (command) => entry.run(command, approvals), reply: replies.ownMarker };
    }
    case 'deadLetters': {
      const letters = deps.deadLetters;
      return letters && { run: (command) => entry.run(command, letters), reply: replies.ownMarker };
    }
  }
}

export async function routeCommand(
  text: string,
  ctx: Omit<CommandContext, 'args'>,
  deps: RouterDeps,
): Promise<void> {
  const words = unwrapLinks(text).trim().split(/\s+/).filter(Boolean);
  const first = words[0] ?? '';
  const name = first.toLowerCase();
  const reply = (message: SlackMessage) => ctx.respond(withEnvironment(message, deps.api.environment));
  const approvalReply = (message: SlackMessage) =>
    deps.approvals && message.text.endsWith(`· ${deps.approvals.environmentLabel}`)
      ? ctx.respond(message)
      : reply(message);
  try {
    const found = findSubcommand(words);
    if (!found) return await reply(help(first));
    const bound = bind(found.entry, deps, { marked: reply, ownMarker: approvalReply });
    if (!bound) return await reply(errorMessage(NOT_CONFIGURED));
    const answer = await bound.run({ ...ctx, args: found.args, respond: bound.reply });
    if (answer) await bound.reply(answer);
  } catch (error) {
    await reply(errorMessage(describeError(error, deps.logger, `/cngn ${name}`).text));
  }
}

// The page a Next / Previous button carries; anything else (not a positive whole number) reads as 1.
const pageSchema = z
  .string()
  .regex(/^[1-9]\d{0,4}$/)
  .transform(Number)
  .catch(1);
const responseUrlSchema = z.url({ protocol: /^https?$/ });

export function registerCommands(app: App, deps: RouterDeps): void {
  app.command('/cngn', async ({ ack, command, client }) => {
    await ack();
    // The answer reports its own failures to the user; only a post that failed is left to log.
    afterAck(
      deps.inFlight,
      () => answerOnce(command, client, deps),
      deps.logger,
      '/cngn',
      command.trigger_id,
    );
  });

  // Next / Previous on the transaction list: the same private message is replaced in place.
  app.action<import('@slack/bolt').BlockAction<import('@slack/bolt').ButtonAction>>(
    TX_PAGE_ACTIONS,
    async ({ ack, action, body }) => {
      await ack();
      const page = pageSchema.parse(action.value);
      // The list is a private message: only its response_url can replace it.
      const target = responseUrlSchema.safeParse(body.response_url);
      if (!target.success) {
        deps.logger.warn('a transaction page click came without a response_url: nothing to update');
        return;
      }
      const work = async () => {
        let message: SlackMessage;
        try {
          message = await txPage(page, deps);
        } catch (error) {
          message = errorMessage(describeError(error, deps.logger, 'tx page').text);
        }
        await postToResponseUrl(target.data, {
          replace_original: true,
          ...withEnvironment(message, deps.api.environment),
        });
      };
      afterAck(deps.inFlight, work, deps.logger, 'tx page', body.trigger_id);
    },
  );
}
