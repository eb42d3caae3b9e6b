// `/cngn withdraw [amount] [network] [address]`: the withdraw modal, prefilled from the arguments.

import type { CommandContext, FeatureSubcommand } from '../../types.js';
import { toNetworkChoices, withdrawModal } from '../blocks/modals.js';
import type { ApprovalSlackDeps } from '../types.js';
import { findNetwork, looksLikeAddress, looksLikeAmount, openModal } from './filing.js';

export async function withdrawCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
    const [networks, whitelist] = await Promise.all([
      deps.api.getNetworks(),
      deps.api.getWhitelisted({ includeNetwork: true }),
    ]);
    const choices = toNetworkChoices(networks);
    const network = findNetwork(
      networks,
      command.args.find((a) => !looksLikeAmount(a) && !looksLikeAddress(a)),
    );
    const enabled = new Set(choices.map((c) => c.id));
    return withdrawModal({
      networks: choices,
      whitelist: whitelist
        .filter((w) => enabled.has(w.networkId))
        .map((w) => ({
          networkId: w.networkId,
          networkName: w.network?.name ?? networks.find((n) => n.id === w.networkId)?.name ?? '',
          address: w.publicKey,
        })),
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
  who: 'anyone',
  example: 'withdraw 1500 base 0xabc…',
  needs: 'approvals',
  run: withdrawCommand,
};
