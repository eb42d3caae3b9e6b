// `/cngn bridge [amount] [from] [to] [address]`: the bridge modal, prefilled from the arguments.

import type { ApprovalSlackDeps } from '../../types.js';
import { type CommandContext, type FeatureSubcommand, REQUESTERS } from '../../types.js';
import { toNetworkChoices } from '../../ui/modal.js';
import { bridgeModal } from '../blocks/modals.js';
import { findNetwork, looksLikeAddress, looksLikeAmount, openModal } from './filing.js';

async function bridgeCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
    const networks = await deps.api.getNetworks();
    const words = command.args.filter((a) => !looksLikeAmount(a) && !looksLikeAddress(a));
    return bridgeModal({
      networks: toNetworkChoices(networks),
      prefill: {
        amount: command.args.find(looksLikeAmount),
        origin: findNetwork(networks, words[0])?.id,
        destination: findNetwork(networks, words[1])?.id,
        address: command.args.find(looksLikeAddress),
      },
      environment: deps.environmentLabel,
    });
  });
}

export const BRIDGE_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'bridge',
  usage: 'bridge [amount] [from] [to] [address]',
  summary: 'move cNGN to another network (needs approval)',
  who: REQUESTERS,
  example: 'bridge 100000 base bsc 0xabc…',
  needs: 'approvals',
  run: bridgeCommand,
};
