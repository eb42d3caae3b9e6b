// `/cngn whitelist add [network] [address]`: the whitelist modal (with the 24 h timelock notice).
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { toNetworkChoices, whitelistModal } from '../blocks/approval-modals.js';
import { type ApprovalCommand, findNetwork, looksLikeAddress, openModal } from './approval-command.js';

export async function whitelistAddCommand(command: ApprovalCommand, deps: ApprovalSlackDeps): Promise<void> {
  await openModal(command, deps, async () => {
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
