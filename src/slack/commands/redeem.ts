// `/cngn redeem [amount] [bank] [account]`: the redeem modal, prefilled from the arguments.
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { redeemModal } from '../blocks/approval-modals-bank.js';
import {
  type ApprovalCommand,
  findBank,
  looksLikeAccount,
  looksLikeAmount,
  openModal,
} from './approval-command.js';

export async function redeemCommand(command: ApprovalCommand, deps: ApprovalSlackDeps): Promise<void> {
  await openModal(command, deps, async () => {
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
