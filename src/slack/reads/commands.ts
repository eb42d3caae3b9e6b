import { CngnErrorCode, cngnCallError } from '../../cngn/errors.js';
import type { Network, Transaction } from '../../cngn/schemas.js';
import type { AlertPlacement } from '../../webhooks/index.js';
import { describeError } from '../runtime/errors.js';
import { type CommandContext, READERS, type ReadDeps, type SlackMessage, type Subcommand } from '../types.js';
import type { AlertWhereabouts } from './alert-whereabouts.js';
import { alertWhereaboutsBlock } from './alert-whereabouts.js';
import {
  accountsMessage,
  balanceMessage,
  banksMessage,
  networksMessage,
  txDetailMessage,
  txListMessage,
  whitelistMessage,
} from './blocks.js';
import { txFromAlertsMessage } from './tx-alerts.js';

const TX_PAGE_SIZE = 10;

async function balanceCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  const { entries, asOf } = await deps.api.getBalanceWithTime({ priority: 'interactive' });
  return balanceMessage(entries, asOf, deps.now());
}

async function networksCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  return networksMessage(await deps.api.getNetworks());
}

async function banksCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  const banks = await deps.api.getBanks();
  const filter = ctx.args.join(' ').trim();
  const needle = filter.toLowerCase();
  const matching = needle
    ? banks.filter((b) => b.name.toLowerCase().includes(needle) || b.code === needle)
    : banks;
  return banksMessage(
    [...matching].sort((a, b) => a.name.localeCompare(b.name)),
    filter || undefined,
    banks.length,
  );
}

async function accountsCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  return accountsMessage(await deps.api.getDedicatedAccounts());
}

async function whitelistCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  const [addresses, networks] = await Promise.all([
    deps.api.getWhitelisted({ includeNetwork: true }),
    deps.api.getNetworks(),
  ]);
  return whitelistMessage(addresses, networks, deps.api.environment);
}

export async function txPage(page: number, deps: ReadDeps): Promise<SlackMessage> {
  const result = await deps.api.getTransactions({ page, limit: TX_PAGE_SIZE });
  return txListMessage(result.data, result.pagination, page, deps.now());
}

async function txCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  const reference = ctx.args[0];
  if (!reference) return txPage(1, deps);
  let transaction: Transaction;
  let networks: Network[];
  try {
    [transaction, networks] = await Promise.all([
      deps.api.getTransaction(reference),
      // Only for the network's name (cached for hours): without it the code is shown.
      deps.api.getNetworks().catch((error: unknown) => {
        deps.logger.warn('network list unavailable for tx detail', { error: String(error) });
        return [];
      }),
    ]);
  } catch (error) {
    // The service forgot it or cannot be asked: the alerts that carried it still say what it was.
    const alerts = await alertsOf([reference], ctx, deps);
    if (alerts.length === 0) throw error;
    return txFromAlertsMessage(reference, serviceProblem(error, deps), alerts);
  }
  const message = txDetailMessage(transaction, deps.api.environment, networks);
  const alerts = await alertsOf([reference, transaction.trx_ref, transaction.id], ctx, deps);
  const block = alertWhereaboutsBlock(alerts);
  return block ? { ...message, blocks: [...message.blocks, block] } : message;
}

/** Why the service gave no transaction, as a sentence (mrkdwn: describeError's text is). */
function serviceProblem(error: unknown, deps: ReadDeps): string {
  const known = cngnCallError(error);
  if (known?.code === CngnErrorCode.Refused && known.kind === 'not-found') {
    return 'The service has no transaction under this reference.';
  }
  return `The service could not answer for it just now: ${describeError(error, deps.logger, '/cngn tx').text}`;
}

/** The transaction's alerts, each with a permalink to its message when Slack gives one. */
async function alertsOf(
  references: Array<string | null | undefined>,
  ctx: CommandContext,
  deps: ReadDeps,
): Promise<AlertWhereabouts[]> {
  if (!deps.alerts) return [];
  let placements: AlertPlacement[];
  try {
    placements = await deps.alerts(references);
  } catch (error) {
    deps.logger.warn('alert whereabouts unavailable for tx detail', { error: String(error) });
    return [];
  }
  return Promise.all(
    placements.map(async (placement) => {
      if (placement.state !== 'posted' || !placement.channel || !placement.ts) return placement;
      try {
        const answer = await ctx.client.chat.getPermalink({
          channel: placement.channel,
          message_ts: placement.ts,
        });
        return answer.permalink ? { ...placement, permalink: answer.permalink } : placement;
      } catch (error) {
        // Channel and ts are shown instead.
        deps.logger.warn('chat.getPermalink failed', { error: String(error) });
        return placement;
      }
    }),
  );
}

/** The reads' /cngn subcommands; the registry puts them in the help's order. */
export const READ_SUBCOMMANDS = {
  balance: {
    name: 'balance',
    usage: 'balance',
    summary: 'token balance',
    who: READERS,
    example: 'balance',
    run: balanceCommand,
  },
  tx: {
    name: 'tx',
    usage: 'tx [reference]',
    summary: 'recent transactions, or one in full',
    who: READERS,
    example: 'tx CNGN-WD-0001',
    run: txCommand,
  },
  accounts: {
    name: 'accounts',
    usage: 'accounts',
    summary: 'dedicated virtual accounts (pay Naira in here)',
    who: READERS,
    example: 'accounts',
    run: accountsCommand,
  },
  networks: {
    name: 'networks',
    usage: 'networks',
    summary: 'supported networks',
    who: READERS,
    example: 'networks',
    run: networksCommand,
  },
  banks: {
    name: 'banks',
    usage: 'banks [name]',
    summary: 'supported banks',
    who: READERS,
    example: 'banks zenith',
    run: banksCommand,
  },
  // Its line also shows `whitelist add`, which files a request (approvals).
  whitelist: {
    name: 'whitelist',
    usage: 'whitelist [add] [network] [address]',
    summary: 'whitelisted addresses / add one (needs approval)',
    who: READERS,
    example: 'whitelist add base 0xabc…',
    run: whitelistCommand,
  },
} satisfies Record<string, Subcommand<ReadDeps>>;
