// The shared steps of an approval subcommand that opens a filing modal: the router has already acked;
// open a loading modal at once, then fill it with the form once what it needs (cached lists) has been
// read.
import type { ModalView } from '@slack/types';
import type { Bank, Network } from '../../../cngn/schemas.js';
import { hasAddressForm } from '../../../format/wallet-address.js';
import { describeError } from '../../runtime/errors.js';
import { openModalWhileLoading } from '../../runtime/open-modal.js';
import type { ApprovalSlackDeps, CommandContext } from '../../types.js';
import { FORM_NOT_OPENED, noticeMessage } from '../../ui/messages.js';
import type { BankChoice } from '../types.js';

/** Opens the form, or says privately that Slack did not; answers nothing more (undefined). */
export async function openModal(
  command: CommandContext,
  deps: ApprovalSlackDeps,
  build: () => Promise<ModalView>,
): Promise<undefined> {
  const opened = await openModalWhileLoading({
    client: command.client,
    triggerId: command.triggerId,
    environment: deps.environmentLabel,
    build,
    describe: (error) => describeError(error, errorLog(deps)).text,
    log: deps.log,
  });
  if (!opened) await command.respond(noticeMessage(FORM_NOT_OPENED));
  return undefined;
}

/** Unexpected errors go to the approvals log (its `error` is optional). */
const errorLog = (deps: ApprovalSlackDeps) => ({
  error: (message: string, fields?: Record<string, unknown>) => deps.log?.error?.(message, fields),
});

/** An enabled network named by id, name or short code, for prefill. */
export function findNetwork(networks: Network[], word: string | undefined): Network | undefined {
  if (!word) return undefined;
  const w = word.toLowerCase();
  return networks.find(
    (n) => !n.isDisabled && (n.id === word || n.name.toLowerCase() === w || n.short_name.toLowerCase() === w),
  );
}

export const looksLikeAmount = (word: string | undefined) => !!word && /^₦?[\d,]+(\.\d+)?$/.test(word);
/**
 * `0x…`, or a Solana, Tron or XBN address by format (a mistyped one too: the form says why it is
 * refused): network words are far shorter than any of these.
 */
export const looksLikeAddress = (word: string | undefined) =>
  !!word &&
  (/^0x/i.test(word) ||
    (['solana', 'tron', 'stellar'] as const).some((family) => hasAddressForm(family, word)));
export const looksLikeAccount = (word: string | undefined) => !!word && /^\d{10}$/.test(word);

/** A bank named by code or by (part of) its name, for prefill. */
export function findBank(banks: Bank[], words: string[]): BankChoice | undefined {
  for (const word of words) {
    const w = word.toLowerCase();
    const bank = banks.find((b) => b.code === word) ?? banks.find((b) => b.name.toLowerCase().includes(w));
    if (bank) return { code: bank.code, name: bank.name };
  }
  return undefined;
}
