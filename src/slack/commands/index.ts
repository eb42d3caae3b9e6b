// The /cngn router: ack first, then find the subcommand, run it, and answer privately. Unknown input
// gets the help with a "did you mean". Approval subcommands are handed to the approvals plugin.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import { escapeMrkdwn } from '../../format/mrkdwn.js';
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { runApprovalCommand } from '../approval-plugin.js';
import type { SlackMessage } from '../blocks/approval-message.js';
import {
  errorMessage,
  type HelpEntry,
  helpMessage,
  noticeMessage,
  TX_PAGE_ACTION,
  withEnvironment,
} from '../blocks/reads.js';
import { describeError } from '../errors.js';
import { afterAck, type InFlight } from '../in-flight.js';
import { postToResponseUrl } from '../response-url.js';
import { type DeadLetterSlackDeps, deadLettersCommand } from './deadletters.js';
import { type PolicyFacts, policyCommand } from './policy.js';
import {
  accountsCommand,
  balanceCommand,
  banksCommand,
  type CommandContext,
  depositCommand,
  networksCommand,
  quoteCommand,
  type ReadDeps,
  txCommand,
  txPage,
  whitelistCommand,
} from './reads.js';

/** A message to send privately, or undefined when the subcommand answered itself (a modal). */
type Answer = (ctx: CommandContext, deps: ReadDeps) => Promise<SlackMessage | undefined>;

interface Subcommand extends HelpEntry {
  name: string;
  run?: Answer;
}

/** The help, in the order a treasury operator needs it. `run` missing = handled by approvals. */
export const SUBCOMMANDS: Subcommand[] = [
  { name: 'balance', usage: 'balance', summary: 'token balance', example: 'balance', run: balanceCommand },
  {
    name: 'tx',
    usage: 'tx [reference]',
    summary: 'recent transactions, or one in full',
    example: 'tx CNGN-WD-0001',
    run: txCommand,
  },
  {
    name: 'deposit',
    usage: 'deposit [amount] [e-mail]',
    summary: "one-time account to pay Naira into (the payer's e-mail is asked for)",
    example: 'deposit 5000 payer@example.com',
    run: depositCommand,
  },
  {
    name: 'withdraw',
    usage: 'withdraw [amount] [network] [address]',
    summary: 'send cNGN to a wallet (needs approval)',
    example: 'withdraw 1500 base 0xabc…',
  },
  {
    name: 'redeem',
    usage: 'redeem [amount] [bank] [account]',
    summary: 'burn cNGN and pay Naira to a bank account (needs approval)',
    example: 'redeem 5000 gtbank 0123456789',
  },
  {
    name: 'quote',
    usage: 'quote [amount] [from] [to] [address]',
    summary: 'bridge fee quote',
    example: 'quote 1500 base bsc 0xabc…',
    run: quoteCommand,
  },
  {
    name: 'bridge',
    usage: 'bridge [amount] [from] [to] [address]',
    summary: 'move cNGN to another network (needs approval)',
    example: 'bridge 100000 base bsc 0xabc…',
  },
  {
    name: 'accounts',
    usage: 'accounts',
    summary: 'dedicated virtual accounts (pay Naira in here)',
    example: 'accounts',
    run: accountsCommand,
  },
  {
    name: 'networks',
    usage: 'networks',
    summary: 'supported networks',
    example: 'networks',
    run: networksCommand,
  },
  {
    name: 'banks',
    usage: 'banks [name]',
    summary: 'supported banks',
    example: 'banks zenith',
    run: banksCommand,
  },
  {
    name: 'whitelist',
    usage: 'whitelist [add] [network] [address]',
    summary: 'whitelisted addresses / add one (needs approval)',
    example: 'whitelist add base 0xabc…',
    run: whitelistCommand,
  },
  {
    name: 'settlement',
    usage: 'settlement [bank] [account]',
    summary: 'change the settlement bank account (needs approval)',
    example: 'settlement gtbank 0123456789',
  },
  { name: 'pending', usage: 'pending', summary: 'open approval requests', example: 'pending' },
  {
    name: 'extend',
    usage: 'extend <request> [duration]',
    summary: 'requester: extend your pending request once, by at most its original lifetime',
    example: 'extend AR-1A2B3C4D5E 12h',
  },
  {
    name: 'delegate',
    usage: 'delegate [@person until <date|duration> [max <amount>] | revoke @person]',
    summary:
      'approvers away: let someone approve in your place for a while (another approver approves it); list or revoke',
    example: 'delegate @bola until 2026-12-24 max 500000',
  },
  {
    name: 'policy',
    usage: 'policy',
    summary: 'who may approve what: tiers, approvers, lifetime, reminders, channels',
    example: 'policy',
  },
  { name: 'audit', usage: 'audit [n]', summary: 'the last n steps of the audit log', example: 'audit 50' },
  {
    name: 'audit verify',
    usage: 'audit verify',
    summary: "approvers: check the audit log's hash chain and name the first broken link",
    example: 'audit verify',
  },
  {
    name: 'audit export',
    usage: 'audit export [from] [to]',
    summary: 'approvers: the audit log as CSV and JSON Lines, sent to you in a DM (dates or 7d, 24h)',
    example: 'audit export 2026-11-01 2026-11-30',
  },
  {
    name: 'deadletters',
    usage: 'deadletters [repost <id|all> <#channel or its ID>]',
    summary: 'alerts Slack refused, with why; approvers re-post one or all to a channel',
    example: 'deadletters',
  },
  {
    name: 'resolve',
    usage: 'resolve <request> completed|failed <note>',
    summary: 'approvers: record what you checked for a request whose outcome is unknown (nothing is sent)',
    example: 'resolve AR-1A2B3C4D5E failed not on the dashboard',
  },
  { name: 'help', usage: 'help', summary: 'this list', example: 'help' },
];

export interface RouterDeps extends ReadDeps {
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

export async function routeCommand(
  text: string,
  ctx: Omit<CommandContext, 'args'>,
  deps: RouterDeps,
): Promise<void> {
  const [first = '', ...args] = unwrapLinks(text).trim().split(/\s+/).filter(Boolean);
  const name = first.toLowerCase();
  const reply = (message: SlackMessage) => ctx.respond(withEnvironment(message, deps.api.environment));
  const context: CommandContext = { ...ctx, args, respond: reply };
  // The approval lists name the environment in their own heading; one marker per answer is enough.
  const approvalReply = (message: SlackMessage) =>
    deps.approvals && message.text.endsWith(`· ${deps.approvals.environmentLabel}`)
      ? ctx.respond(message)
      : reply(message);
  try {
    if (name === '' || name === 'help') return await reply(help());
    const isApprovalWhitelist = name === 'whitelist' && args[0]?.toLowerCase() === 'add';
    const own = SUBCOMMANDS.find((s) => s.name === name && s.run);
    if (own?.run && !isApprovalWhitelist) {
      const message = await own.run(context, deps);
      if (message) await reply(message);
      return;
    }
    if (name === 'policy' && deps.policy) return await reply(await policyCommand(ctx.client, deps.policy));
    if (name === 'deadletters' && deps.deadLetters) {
      return await approvalReply(await deadLettersCommand(args, ctx.userId, deps.deadLetters));
    }
    if (deps.approvals && SUBCOMMANDS.some((s) => s.name === name)) {
      const handled = await runApprovalCommand(
        name,
        {
          args,
          userId: ctx.userId,
          triggerId: ctx.triggerId,
          client: ctx.client,
          respond: (textAnswer) => approvalReply(noticeMessage(textAnswer)),
        },
        deps.approvals,
        approvalReply,
      );
      if (handled) return;
    }
    if (SUBCOMMANDS.some((s) => s.name === name)) {
      return await reply(
        errorMessage('Approvals are not configured: set CNGN_APPROVALS_CHANNEL and CNGN_APPROVERS.'),
      );
    }
    await reply(help(first));
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
      () =>
        routeCommand(
          command.text,
          {
            userId: command.user_id,
            channelId: command.channel_id,
            triggerId: command.trigger_id,
            client,
            respond: async (message) => {
              await postToResponseUrl(command.response_url, { response_type: 'ephemeral', ...message });
            },
          },
          deps,
        ),
      deps.logger,
      '/cngn',
    );
  });

  // Next / Previous on the transaction list: the same private message is replaced in place.
  app.action<import('@slack/bolt').BlockAction<import('@slack/bolt').ButtonAction>>(
    new RegExp(`^${TX_PAGE_ACTION.replace('.', '\\.')}\\.`),
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
      afterAck(deps.inFlight, work, deps.logger, 'tx page');
    },
  );
}
