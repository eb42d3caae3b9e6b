// `/cngn withdraw [amount] [network] [address]`: the withdraw modal, prefilled from the arguments.

import type { ModalView } from '@slack/types';
import type { Network } from '../../../cngn/schemas.js';
import type { CommandContext, FeatureSubcommand } from '../../types.js';
import { toNetworkChoices, withdrawModal } from '../blocks/modals.js';
import type { ApprovalSlackDeps, FieldErrors, Prefill } from '../types.js';
import { findNetwork, looksLikeAddress, looksLikeAmount, openModal } from './filing.js';

/**
 * The withdraw form with the live networks and whitelist (cached reads), prefilled, with any errors
 * under their fields: opened by the command, and shown again when a check after submission failed.
 */
export async function withdrawForm(
  deps: ApprovalSlackDeps,
  prefill: (networks: Network[]) => Prefill,
  errors?: FieldErrors,
): Promise<ModalView> {
  const [networks, whitelist] = await Promise.all([
    deps.api.getNetworks(),
    deps.api.getWhitelisted({ includeNetwork: true }),
  ]);
  const choices = toNetworkChoices(networks);
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
    prefill: prefill(networks),
    ...(errors ? { errors } : {}),
    environment: deps.environmentLabel,
  });
}

export async function withdrawCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, () =>
    withdrawForm(deps, (networks) => ({
      amount: command.args.find(looksLikeAmount),
      network: findNetwork(
        networks,
        command.args.find((a) => !looksLikeAmount(a) && !looksLikeAddress(a)),
      )?.id,
      address: command.args.find(looksLikeAddress),
    })),
  );
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
