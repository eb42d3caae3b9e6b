// What an approval subcommand gets from the /cngn router, and the shared steps of opening a filing
// modal: the router has already acked; read what the modal needs (cached lists), then open it.
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Bank, Network } from '../../cngn/schemas.js';
import type { ApprovalSlackDeps } from '../actions/approval.js';
import type { BankChoice } from '../blocks/approval-modals-bank.js';
import { plainError } from '../views/approval-filing.js';

export interface ApprovalCommand {
  args: string[];
  userId: string;
  triggerId: string;
  client: WebClient;
  /** Answer privately (ephemeral, through response_url). */
  respond(text: string): Promise<void>;
}

export async function openModal(
  command: ApprovalCommand,
  deps: ApprovalSlackDeps,
  build: () => Promise<ModalView>,
): Promise<void> {
  let view: ModalView;
  try {
    view = await build();
  } catch (error) {
    await command.respond(`Could not open the form: ${plainError(error)}`);
    return;
  }
  try {
    await command.client.views.open({ trigger_id: command.triggerId, view });
  } catch (error) {
    deps.log?.warn('views.open failed', { error: String(error) });
    await command.respond(
      'Slack did not open the form in time (the service was slow). Please run the command again.',
    );
  }
}

/** An enabled network named by id, name or short code, for prefill. */
export function findNetwork(networks: Network[], word: string | undefined): Network | undefined {
  if (!word) return undefined;
  const w = word.toLowerCase();
  return networks.find(
    (n) => !n.isDisabled && (n.id === word || n.name.toLowerCase() === w || n.short_name.toLowerCase() === w),
  );
}

export const looksLikeAmount = (word: string | undefined) => !!word && /^₦?[\d,]+(\.\d+)?$/.test(word);
export const looksLikeAddress = (word: string | undefined) => !!word && /^0x/i.test(word);
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
