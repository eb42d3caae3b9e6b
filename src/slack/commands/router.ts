// The /cngn router: acks first, finds the registry's entry, runs it with its feature's deps (or says
// the feature is not configured), and answers privately, once per delivery across replicas.
import type { App, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { DeadLetterSlackDeps } from '../alerts/types.js';
import type { PolicyFacts } from '../approvals/commands/policy.js';
import { commandDelivery, type Deliveries, type DeliveryTurn } from '../runtime/deliveries.js';
import { describeError } from '../runtime/errors.js';
import { afterAck, type InFlight } from '../runtime/in-flight.js';
import { unwrapLinks } from '../runtime/links.js';
import { postToResponseUrl } from '../runtime/response-url.js';
import type { ApprovalSlackDeps, CommandContext, ReadDeps, SlackMessage } from '../types.js';
import { errorMessage, noticeMessage, withEnvironment } from '../ui/messages.js';
import { type Entry, findSubcommand, help } from './registry.js';

const NOT_CONFIGURED = 'Approvals are not configured: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS.';

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

/** What one delivery of /cngn carries that its answer needs. */
type CommandDelivery = Pick<
  SlashCommand,
  'text' | 'user_id' | 'team_id' | 'channel_id' | 'trigger_id' | 'response_url'
>;

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
        teamId: command.team_id,
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
      // Each answer is sent on a turn of its own, after the acks read meanwhile.
      await deps.inFlight?.turn();
      await post(message);
    });
  } finally {
    await turn.answered(said).catch((error: unknown) => {
      deps.logger.warn('could not record the answer to a command', { error: String(error) });
    });
  }
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

async function routeCommand(
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
}
