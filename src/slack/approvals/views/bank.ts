// Submissions of the redeem and settlement modals: the account name is resolved with the service
// BEFORE anything is filed; an unresolvable account shows the form again with the reason under it.
import type { App, ViewSubmitAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { RequestDraft, SameRequestMark } from '../../../approvals/index.js';
import { naira } from '../../../format/display.js';
import { escapeMrkdwn } from '../../../format/mrkdwn.js';
import { withinDeadline } from '../../../store/deadline.js';
import { plainError } from '../../runtime/errors.js';
import type { ApprovalSlackDeps, FieldErrors } from '../../types.js';
import { parseSubmission, readMetadata } from '../../ui/view-values.js';
import {
  BANK_PICKERS,
  bankOptions,
  bankUnderCode,
  REDEEM,
  REDEEM_VIEW,
  redeemModal,
  SETTLEMENT,
  SETTLEMENT_VIEW,
  settlementModal,
} from '../blocks/bank-modal.js';
import type { BankChoice } from '../types.js';
import { ackThenFile, filedView } from './filing.js';
import { parseRedeem, parseSettlement } from './forms.js';
import { fileFromForm, quickBalanceErrors } from './preflight.js';

/** The form's bank and account fields: where a reason is shown. */
interface BankFields {
  bank: string;
  account: string;
}

/**
 * The bank as the service lists it under the chosen code: approvers are shown, and a settlement sends,
 * the listed name, never the one the option carried (a submission's option value is the client's word).
 * The reason under the bank field when the code is not listed or the list cannot be read.
 */
async function listedBank(
  deps: ApprovalSlackDeps,
  chosen: BankChoice,
  fields: BankFields,
): Promise<{ bank: BankChoice } | { errors: FieldErrors }> {
  try {
    const listed = bankUnderCode(await deps.api.getBanks(), chosen);
    if (typeof listed === 'object') return { bank: listed };
    const problem =
      listed === 'several'
        ? 'Bank: the service lists several banks under this code; choose a bank from the list again'
        : 'Bank: not in the service’s bank list; choose a bank from the list';
    return { errors: { [fields.bank]: problem } };
  } catch (error) {
    return { errors: { [fields.bank]: `Bank: the bank list could not be read: ${plainError(error)}` } };
  }
}

/** The resolved name, or the reason it could not be resolved (shown under the account number). */
async function resolveName(
  deps: ApprovalSlackDeps,
  accountNumber: string,
  bankCode: string,
  fields: BankFields,
): Promise<{ name: string } | { errors: FieldErrors }> {
  try {
    const resolved = await deps.api.resolveAccount({ accountNumber, bankCode });
    return { name: resolved.accountName };
  } catch (error) {
    return { errors: { [fields.account]: `Account number: ${plainError(error)}` } };
  }
}

/**
 * Ack, check the bank against the service's list and look the account name up with the bank, then
 * either show the form again with the reason under its field, or file the request under the listed
 * bank and the resolved name.
 */
function resolveThenFile(
  args: Parameters<typeof ackThenFile>[0],
  deps: ApprovalSlackDeps,
  chosen: { bank: BankChoice; accountNumber: string; fields: BankFields },
  then: {
    /** The form again, with the bank as the service lists it once that is known. */
    retry: (errors: FieldErrors, listed?: BankChoice) => ModalView;
    file: (name: string, bank: BankChoice) => Promise<ModalView>;
  },
): Promise<void> {
  return ackThenFile(args, deps, 'Looking up the account name with the bank…', async () => {
    const listed = await listedBank(deps, chosen.bank, chosen.fields);
    if ('errors' in listed) return then.retry(listed.errors);
    const resolved = await resolveName(deps, chosen.accountNumber, listed.bank.code, chosen.fields);
    return 'errors' in resolved
      ? then.retry(resolved.errors, listed.bank)
      : then.file(resolved.name, listed.bank);
  });
}

/** How long the bank picker waits for the bank list before answering with no options. */
const BANK_OPTIONS_DEADLINE_MS = 2_000;

export function registerBankViews(app: App, deps: ApprovalSlackDeps): void {
  registerBankPickers(app, deps);
  registerRedeemSubmission(app, deps);
  registerSettlementSubmission(app, deps);
}

/** The bank pickers of both modals: their options are the service's bank list, filtered by what was typed. */
function registerBankPickers(app: App, deps: ApprovalSlackDeps): void {
  for (const picker of BANK_PICKERS) {
    app.options(picker, async ({ ack, payload }) => {
      // Slack waits 3 s for the options: without the list in time, answer with none rather than not
      // at all. A read that goes on still fills the cache for the next keystroke.
      let banks: Awaited<ReturnType<typeof deps.api.getBanks>> = [];
      try {
        banks = await withinDeadline(deps.api.getBanks(), BANK_OPTIONS_DEADLINE_MS, 'the bank list');
      } catch (error) {
        deps.log?.warn('the bank list could not be read for the bank picker', { error: String(error) });
      }
      await ack({ options: bankOptions(banks, payload.value ?? '') });
    });
  }
}

/** The redeem modal: quick balance check, name look-up, then the full pre-flight checks and filing. */
function registerRedeemSubmission(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(REDEEM_VIEW, async (args) => {
    const parsed = parseSubmission(args.body.view, REDEEM, parseRedeem);
    if (!parsed.ok) return void (await args.ack({ response_action: 'errors', errors: parsed.errors }));
    const v = parsed.value;
    const draft = (accountName?: string, bank: BankChoice = v.bank): RequestDraft => ({
      kind: 'redeem',
      amount: v.amount,
      payload: { amount: v.amount, bankCode: bank.code, accountNumber: v.accountNumber },
      display: { bankName: bank.name, bankCode: bank.code, ...(accountName ? { accountName } : {}) },
      purpose: v.purpose,
      requester: args.body.user.id,
    });
    const fields = { amount: REDEEM.amount };
    const quick = await quickBalanceErrors(deps, draft(), fields);
    if (quick) return void (await args.ack({ response_action: 'errors', errors: quick }));
    const shownFor = readMetadata(args.body.view.private_metadata).sameAs;
    const again = (errors: FieldErrors, listed?: BankChoice, sameAs?: SameRequestMark) =>
      redeemModal({
        prefill: { amount: v.amount, account: v.accountNumber, purpose: v.purpose },
        bank: v.bank,
        ...(listed ? { bankListedAs: listed.name } : {}),
        errors,
        ...(sameAs ? { sameAs: { mark: sameAs, now: deps.now?.() ?? new Date() } } : {}),
        environment: deps.environmentLabel,
      });
    const chosen = { bank: v.bank, accountNumber: v.accountNumber, fields: REDEEM };
    await resolveThenFile(args, deps, chosen, {
      retry: (errors, listed) => again(errors, listed),
      file: async (name, bank) => {
        const comparison = { ticked: false, again: { ticked: v.again, shownFor } };
        const filed = await fileFromForm(deps, draft(name, bank), fields, comparison);
        if (!filed.ok) return again(filed.errors, bank, filed.sameAs);
        return filedView(
          filed.request,
          deps.approvalsChannel,
          `\n${escapeMrkdwn(naira(v.amount))} to *${escapeMrkdwn(name)}* · ${escapeMrkdwn(bank.name)} · ${escapeMrkdwn(v.accountNumber)}.`,
        );
      },
    });
  });
}

/** The settlement-account modal: name look-up, then filing under the resolved name. */
function registerSettlementSubmission(app: App, deps: ApprovalSlackDeps): void {
  app.view<ViewSubmitAction>(SETTLEMENT_VIEW, async (args) => {
    const parsed = parseSubmission(args.body.view, SETTLEMENT, parseSettlement);
    if (!parsed.ok) return void (await args.ack({ response_action: 'errors', errors: parsed.errors }));
    const v = parsed.value;
    const chosen = { bank: v.bank, accountNumber: v.accountNumber, fields: SETTLEMENT };
    await resolveThenFile(args, deps, chosen, {
      retry: (errors, listed) =>
        settlementModal({
          prefill: { account: v.accountNumber },
          bank: v.bank,
          ...(listed ? { bankListedAs: listed.name } : {}),
          errors,
          environment: deps.environmentLabel,
        }),
      file: async (name, bank) => {
        const filed = await deps.engine.file({
          kind: 'settlement',
          payload: { bankName: bank.name, bankAccountName: name, bankAccountNumber: v.accountNumber },
          display: { bankName: bank.name, bankCode: bank.code, accountName: name },
          requester: args.body.user.id,
        });
        // A settlement account has no pre-flight checks: nothing but a thrown error refuses it.
        if (!filed.ok) throw new Error('settlement filing refused without a reason');
        return filedView(
          filed.request,
          deps.approvalsChannel,
          `\nNew settlement account: *${escapeMrkdwn(name)}* · ${escapeMrkdwn(bank.name)} · ${escapeMrkdwn(v.accountNumber)}.`,
        );
      },
    });
  });
}
