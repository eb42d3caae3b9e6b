// `/cngn settlement [bank] [account]`: the settlement account modal, prefilled from the arguments.

import type { ApprovalSlackDeps } from '../../types.js';
import { type CommandContext, type FeatureSubcommand, REQUESTERS } from '../../types.js';
import { settlementModal } from '../blocks/bank-modal.js';
import { findBank, looksLikeAccount, openModal } from './filing.js';

async function settlementCommand(command: CommandContext, deps: ApprovalSlackDeps): Promise<undefined> {
  return openModal(command, deps, async () => {
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

export const SETTLEMENT_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'settlement',
  usage: 'settlement [bank] [account]',
  summary: 'change the settlement bank account (needs approval)',
  who: REQUESTERS,
  example: 'settlement gtbank 0123456789',
  needs: 'approvals',
  run: settlementCommand,
};
