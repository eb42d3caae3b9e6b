// `/cngn withdraw [amount] [network] [address]`: the withdraw modal, prefilled from the arguments.

import type { ApprovalSlackDeps } from '../../types.js';
import { type CommandContext, type FeatureSubcommand, REQUESTERS } from '../../types.js';
import { toNetworkChoices } from '../../ui/modal.js';
import { whitelistChoices, withdrawModal } from '../blocks/modals.js';
import { findNetwork, looksLikeAddress, looksLikeAmount, openModal } from './filing.js';

async function withdrawCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
    const [networks, whitelist] = await Promise.all([
      deps.api.getNetworks(),
      deps.api.getWhitelisted({ includeNetwork: true }),
    ]);
    const network = findNetwork(
      networks,
      command.args.find((a) => !looksLikeAmount(a) && !looksLikeAddress(a)),
    );
    return withdrawModal({
      networks: toNetworkChoices(networks),
      whitelist: whitelistChoices(networks, whitelist),
      prefill: {
        amount: command.args.find(looksLikeAmount),
        network: network?.id,
        address: command.args.find(looksLikeAddress),
      },
      environment: deps.environmentLabel,
    });
  });
}

export const WITHDRAW_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'withdraw',
  usage: 'withdraw [amount] [network] [address]',
  summary: 'send cNGN to a wallet (needs approval)',
  who: REQUESTERS,
  example: 'withdraw 1500 base 0xabc…',
  needs: 'approvals',
  run: withdrawCommand,
};
