// `/cngn withdraw [amount] [network] [address]`: the withdraw modal, prefilled from the arguments.
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { toNetworkChoices, withdrawModal } from '../blocks/approval-modals.js';
import {
  type ApprovalCommand,
  findNetwork,
  looksLikeAddress,
  looksLikeAmount,
  openModal,
} from './approval-command.js';

export async function withdrawCommand(command: ApprovalCommand, deps: ApprovalSlackDeps): Promise<void> {
  await openModal(command, deps, async () => {
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
