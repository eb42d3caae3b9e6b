// `/cngn redeem [amount] [bank] [account]`: the redeem modal, prefilled from the arguments.

import type { ApprovalSlackDeps } from '../../types.js';
import { type CommandContext, type FeatureSubcommand, REQUESTERS } from '../../types.js';
import { redeemModal } from '../blocks/bank-modal.js';
import { findBank, looksLikeAccount, looksLikeAmount, openModal } from './filing.js';

async function redeemCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
    const account = command.args.find(looksLikeAccount);
    const amount = command.args.find((a) => looksLikeAmount(a) && a !== account);
    const words = command.args.filter((a) => a !== account && a !== amount);
    const bank = words.length > 0 ? findBank(await deps.api.getBanks(), words) : undefined;
    return redeemModal({
      prefill: { amount, account },
      ...(bank ? { bank } : {}),
      environment: deps.environmentLabel,
    });
  });
}

export const REDEEM_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'redeem',
  usage: 'redeem [amount] [bank] [account]',
  summary: 'burn cNGN and pay Naira to a bank account (needs approval)',
  who: REQUESTERS,
  example: 'redeem 5000 gtbank 0123456789',
  needs: 'approvals',
  run: redeemCommand,
};
