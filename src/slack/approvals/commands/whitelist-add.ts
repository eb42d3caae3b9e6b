// `/cngn whitelist add [network] [address]`: the whitelist modal (with the 24 h timelock notice).

import type { ApprovalSlackDeps } from '../../types.js';
import { type CommandContext, type FeatureSubcommand, REQUESTERS } from '../../types.js';
import { toNetworkChoices } from '../../ui/modal.js';
import { whitelistModal } from '../blocks/modals.js';
import { findNetwork, looksLikeAddress, openModal } from './filing.js';

async function whitelistAddCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
    const networks = await deps.api.getNetworks();
    return whitelistModal({
      networks: toNetworkChoices(networks),
      prefill: {
        network: findNetwork(
          networks,
          command.args.find((a) => !looksLikeAddress(a)),
        )?.id,
        address: command.args.find(looksLikeAddress),
      },
      environment: deps.environmentLabel,
    });
  });
}

export const WHITELIST_ADD_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'whitelist add',
  usage: 'whitelist add [network] [address]',
  summary: 'add an address to the whitelist (needs approval)',
  who: REQUESTERS,
  example: 'whitelist add base 0xabc…',
  // The whitelist line of the help shows it: `whitelist [add] …`.
  inHelp: false,
  needs: 'approvals',
  run: whitelistAddCommand,
};
