// Modals that name a Nigerian bank account: redeem and settlement. The bank picker is an
// external_select (a static select holds at most 100 options; the bank list is longer).

import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { SameRequestMark } from '../../../approvals/index.js';
import { clipMrkdwn } from '../../../format/mrkdwn.js';
import type { FieldErrors, Prefill } from '../../types.js';
import { MAX_OPTION_VALUE, modal, option, textInput, withErrors } from '../../ui/modal.js';
import type { BankChoice } from '../types.js';
import { purposeInput } from './modals.js';
import { sameRequestInputs } from './same-request.js';

export const REDEEM_VIEW = 'redeem.submit';
export const SETTLEMENT_VIEW = 'settlement.submit';

export const REDEEM = {
  amount: 'redeem.amount',
  bank: 'redeem.bank',
  account: 'redeem.account',
  purpose: 'redeem.purpose',
  again: 'redeem.again',
} as const;
export const SETTLEMENT = { bank: 'settlement.bank', account: 'settlement.account' } as const;

/** Action ids whose options are loaded from the bank list as the person types. */
export const BANK_PICKERS = [REDEEM.bank, SETTLEMENT.bank] as const;

function bankPicker(id: string, initial?: BankChoice, listedName?: string): KnownBlock {
  const initialOption = initial && chosenOption(initial, listedName);
  return {
    type: 'input',
    block_id: id,
    label: { type: 'plain_text', text: 'Bank' },
    element: {
      type: 'external_select',
      action_id: id,
      min_query_length: 0,
      placeholder: { type: 'plain_text', text: 'Type to search banks' },
      ...(initialOption ? { initial_option: initialOption } : {}),
    },
  };
}

/**
 * An option's value is `code|name`, read back by its first `|`: a code holding a `|` would read back as
 * another bank's code, and an empty one as none, so such a bank is never offered.
 */
const offerable = (code: string) => code !== '' && !code.includes('|');

/** Slack refuses an option with an empty text: a bank without a name is shown under its code. */
/** An option's text: Slack refuses an empty one, and one of spaces shows nothing to choose by. */
const bankText = (bank: BankChoice, listedName?: string) =>
  bank.name.trim() || listedName?.trim() || bank.code;

/**
 * The option a form shown again starts with: the value the person chose, unchanged (it is what the
 * submission is read by again), shown under the name the service lists when the value carried none (a
 * bank offered under its code alone); none when that value cannot be offered.
 */
function chosenOption(chosen: BankChoice, listedName?: string): PlainTextOption | undefined {
  const value = `${chosen.code}|${chosen.name}`;
  return offerable(chosen.code) && value.length <= MAX_OPTION_VALUE
    ? option(bankText(chosen, listedName), value)
    : undefined;
}

/**
 * The option value carries the code and the name, so a bank listed under a shared code is told apart.
 * A value is never cut (it is what the submission is read by): where code and name pass Slack's 150
 * characters, the value is the code alone when `banks` lists that code once (bankUnderCode reads it back
 * as that bank), and the bank is left out when several share it.
 */
function bankOption(bank: BankChoice, banks: readonly BankChoice[]): PlainTextOption | undefined {
  if (!offerable(bank.code)) return undefined;
  const whole = `${bank.code}|${bank.name}`;
  if (whole.length <= MAX_OPTION_VALUE) return option(bankText(bank), whole);
  const byCode = `${bank.code}|`;
  const alone = banks.filter((b) => b.code === bank.code).length === 1;
  return alone && byCode.length <= MAX_OPTION_VALUE ? option(bankText(bank), byCode) : undefined;
}

export function parseBankOption(value: string): BankChoice | undefined {
  const at = value.indexOf('|');
  if (at <= 0) return undefined;
  return { code: value.slice(0, at), name: value.slice(at + 1) };
}

/**
 * The bank the service lists under the chosen option's code, as listed: its name is the list's, never
 * the option's (a submission's option value is the client's word). Where several share the code, the
 * one of the option's name; 'several' when none of them has it; undefined when none has the code.
 */
export function bankUnderCode(
  banks: readonly BankChoice[],
  chosen: BankChoice,
): BankChoice | 'several' | undefined {
  const underCode = banks.filter((b) => b.code === chosen.code);
  const listed = underCode.length === 1 ? underCode[0] : underCode.find((b) => b.name === chosen.name);
  if (listed) return { code: listed.code, name: listed.name };
  return underCode.length > 1 ? 'several' : undefined;
}

/** Banks whose name or code contains the typed text, at most 100 (Slack's limit). */
export function bankOptions(banks: BankChoice[], query: string): PlainTextOption[] {
  const q = query.trim().toLowerCase();
  return banks
    .filter((b) => !q || b.name.toLowerCase().includes(q) || b.code.includes(q))
    .flatMap((b) => bankOption(b, banks) ?? [])
    .slice(0, 100);
}

const accountInput = (id: string, initial: string | undefined): KnownBlock =>
  textInput(id, 'Account number (10 digits)', { initial, placeholder: '0123456789' });

const note = (text: string): KnownBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clipMrkdwn(text) }],
});

export function redeemModal(input: {
  prefill?: Prefill;
  bank?: BankChoice;
  /** The chosen bank's name as the service lists it, shown when the chosen option carried none. */
  bankListedAs?: string;
  errors?: FieldErrors;
  /** The same payment was filed before: shown, with the box to tick to file it again, as of `now`. */
  sameAs?: { mark: SameRequestMark; now: Date };
  environment: string;
}): ModalView {
  const p = input.prefill ?? {};
  const blocks: KnownBlock[] = [
    textInput(REDEEM.amount, 'Amount (₦, at least 1)', { initial: p.amount, placeholder: '50,000' }),
    bankPicker(REDEEM.bank, input.bank, input.bankListedAs),
    accountInput(REDEEM.account, p.account),
    note('The account name is looked up with the bank before the request is filed.'),
    purposeInput(REDEEM.purpose, p.purpose),
    ...sameRequestInputs(REDEEM.again, input.sameAs?.mark, input.sameAs?.now ?? new Date()),
  ];
  const sameAs = input.sameAs?.mark.id;
  return modal(REDEEM_VIEW, 'Redeem to a bank', withErrors(blocks, input.errors), {
    environment: input.environment,
    ...(sameAs ? { metadata: JSON.stringify({ sameAs }) } : {}),
  });
}

export function settlementModal(input: {
  prefill?: Prefill;
  bank?: BankChoice;
  /** The chosen bank's name as the service lists it, shown when the chosen option carried none. */
  bankListedAs?: string;
  errors?: FieldErrors;
  environment: string;
}): ModalView {
  const p = input.prefill ?? {};
  const blocks: KnownBlock[] = [
    bankPicker(SETTLEMENT.bank, input.bank, input.bankListedAs),
    accountInput(SETTLEMENT.account, p.account),
    note('Redeemed Naira is paid here. The account name is looked up before the request is filed.'),
  ];
  return modal(SETTLEMENT_VIEW, 'Settlement account', withErrors(blocks, input.errors), {
    environment: input.environment,
  });
}
