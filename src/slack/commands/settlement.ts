// `/cngn settlement [bank] [account]`: the settlement account modal, prefilled from the arguments.
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { settlementModal } from '../blocks/approval-modals-bank.js';
import { type ApprovalCommand, findBank, looksLikeAccount, openModal } from './approval-command.js';

export async function settlementCommand(command: ApprovalCommand, deps: ApprovalSlackDeps): Promise<void> {
  await openModal(command, deps, async () => {
    const account = command.args.find(looksLikeAccount);
    const words = command.args.filter((a) => a !== account);
    const bank = words.length > 0 ? findBank(await deps.api.getBanks(), words) : undefined;
    return settlementModal({
      prefill: { account },
      ...(bank ? { bank } : {}),
      environment: deps.environmentLabel,
    });
  });
}
