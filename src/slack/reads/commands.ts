// Subcommands that move no money, and their entries for the command registry. Each reads through the
// client (caches and budget included) and answers with a blocks/ builder; the router has already acked.
import type { CngnApi } from '../../cngn/api.js';
import { CngnErrorCode, cngnCallError } from '../../cngn/errors.js';
import type { Network, Transaction } from '../../cngn/schemas.js';
import { environmentMarker } from '../../format/display.js';
import type { Logger } from '../../log.js';
import type { AlertPlacement } from '../../webhooks/index.js';
import { alertWhereaboutsBlock } from '../alerts/digest-blocks.js';
import type { AlertWhereabouts } from '../alerts/types.js';
import { DEPOSIT, depositModal, QUOTE, quoteModal } from '../deposits/blocks.js';
import type { ReportDeps } from '../reports/types.js';
import { describeError } from '../runtime/errors.js';
import { openModalWhileLoading } from '../runtime/open-modal.js';
import { type CommandContext, READERS, type SlackMessage, type Subcommand } from '../types.js';
import { errorMessage, FORM_NOT_OPENED } from '../ui/messages.js';
import { toNetworkChoices } from '../ui/modal.js';
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

export interface ReadDeps {
  api: CngnApi;
  logger: Logger;
  now: () => Date;
  /** Where the alerts of a transaction are (webhooks' outbox); unset → /cngn tx does not say. */
  alerts?: ((references: Array<string | null | undefined>) => Promise<AlertPlacement[]>) | undefined;
  /** Where `/cngn report` gets its reports; unset → it says reports are not set up. */
  reports?: ReportDeps | undefined;
}

export const TX_PAGE_SIZE = 10;

export async function balanceCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  const { entries, asOf } = await deps.api.getBalanceWithTime({ priority: 'interactive' });
  return balanceMessage(entries, asOf, deps.now());
}

export async function networksCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  return networksMessage(await deps.api.getNetworks());
}

export async function banksCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
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

export async function accountsCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
  return accountsMessage(await deps.api.getDedicatedAccounts());
}

export async function whitelistCommand(_ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
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

export async function txCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage> {
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

/** `/cngn deposit 5000 payer@example.com` prefills amount and e-mail; needs nothing from the service. */
export async function depositCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage | undefined> {
  const [amount, email] = ctx.args;
  const view = depositModal({
    prefill: { [DEPOSIT.amount]: amount, [DEPOSIT.email]: email?.includes('@') ? email : undefined },
    environment: environmentMarker(deps.api.environment),
  });
  try {
    await ctx.client.views.open({ trigger_id: ctx.triggerId, view });
  } catch (error) {
    deps.logger.warn('views.open failed', { error: String(error) });
    return errorMessage(FORM_NOT_OPENED);
  }
  return undefined;
}

/** `/cngn quote 1500 base bsc 0xabc…` prefills amount, networks (by name or code) and address. */
export async function quoteCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage | undefined> {
  const [amount, from, to, address] = ctx.args;
  const environment = environmentMarker(deps.api.environment);
  const opened = await openModalWhileLoading({
    client: ctx.client,
    triggerId: ctx.triggerId,
    environment,
    log: deps.logger,
    describe: (error) => describeError(error, deps.logger, '/cngn quote').text,
    build: async () => {
      const networks = toNetworkChoices(await deps.api.getNetworks());
      const find = (word: string | undefined) =>
        word
          ? networks.find((n) =>
              [n.id, n.name, n.shortName].some((v) => v.toLowerCase() === word.toLowerCase()),
            )?.id
          : undefined;
      return quoteModal({
        networks,
        prefill: {
          [QUOTE.amount]: amount,
          [QUOTE.origin]: find(from),
          [QUOTE.destination]: find(to),
          [QUOTE.address]: address,
        },
        environment,
      });
    },
  });
  return opened ? undefined : errorMessage(FORM_NOT_OPENED);
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
  deposit: {
    name: 'deposit',
    usage: 'deposit [amount] [e-mail]',
    summary: "one-time account to pay Naira into (the payer's e-mail is asked for)",
    who: READERS,
    example: 'deposit 5000 payer@example.com',
    run: depositCommand,
  },
  quote: {
    name: 'quote',
    usage: 'quote [amount] [from] [to] [address]',
    summary: 'bridge fee quote',
    who: READERS,
    example: 'quote 1500 base bsc 0xabc…',
    run: quoteCommand,
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
