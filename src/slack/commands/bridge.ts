// `/cngn bridge [amount] [from] [to] [address]`: the bridge modal, prefilled from the arguments.
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { bridgeModal, toNetworkChoices } from '../blocks/approval-modals.js';
import {
  type ApprovalCommand,
  findNetwork,
  looksLikeAddress,
  looksLikeAmount,
  openModal,
} from './approval-command.js';

export async function bridgeCommand(command: ApprovalCommand, deps: ApprovalSlackDeps): Promise<void> {
  await openModal(command, deps, async () => {
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
