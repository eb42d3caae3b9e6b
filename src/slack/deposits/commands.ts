// `/cngn deposit` and `/cngn quote`: each opens its modal, prefilled from the words typed; the
// submissions are views.ts's.
import { environmentMarker } from '../../format/display.js';
import { describeError } from '../runtime/errors.js';
import { openModalWhileLoading } from '../runtime/open-modal.js';
import { type CommandContext, READERS, type ReadDeps, type SlackMessage } from '../types.js';
import { errorMessage, FORM_NOT_OPENED } from '../ui/messages.js';
import { toNetworkChoices } from '../ui/modal.js';
import { DEPOSIT, depositModal, QUOTE, quoteModal } from './blocks.js';

/** `/cngn deposit 5000 payer@example.com` prefills amount and e-mail; needs nothing from the service. */
async function depositCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage | undefined> {
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
async function quoteCommand(ctx: CommandContext, deps: ReadDeps): Promise<SlackMessage | undefined> {
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

/** The deposits' /cngn subcommands; the registry puts them in the help's order. */
export const DEPOSIT_SUBCOMMANDS = {
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
};
