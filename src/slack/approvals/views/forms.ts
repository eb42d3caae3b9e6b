import { purposeProblem } from '../../../approvals/index.js';
import { amountReason, Money } from '../../../format/money.js';
import { type AddressFamily, checkWalletAddress, familyOf } from '../../../format/wallet-address.js';
import { type Parsed, readSelect, readText, type ViewValues } from '../../ui/view-values.js';
import { parseBankOption, REDEEM, SETTLEMENT } from '../blocks/bank-modal.js';
import { BRIDGE, REJECT, WHITELIST, WITHDRAW } from '../blocks/modals.js';
import type { BankChoice } from '../types.js';

const readChecked = (values: ViewValues, id: string): boolean =>
  (values[id]?.[id]?.selected_options ?? []).length > 0;

function amountField(
  text: string,
  minimum: { amount: Money; message: string },
  errors: Record<string, string>,
  id: string,
): string {
  try {
    const amount = Money.parse(text);
    if (amount.compare(minimum.amount) < 0) {
      errors[id] = `Amount: ${minimum.message}`;
      return '';
    }
    amount.toWireNumber(); // refuse what cannot be sent exactly
    return amount.toString();
  } catch (error) {
    errors[id] = `Amount: ${amountReason(error)}`;
    return '';
  }
}

const POSITIVE = { amount: Money.parse('0.01'), message: 'must be more than 0' };
const REDEEM_MINIMUM = { amount: Money.parse('1'), message: 'must be at least ₦1' };

/** Network id → address family for the non-EVM networks a modal offered; absent = EVM. */
export type Families = Record<string, AddressFamily>;

function addressField(
  text: string,
  errors: Record<string, string>,
  id: string,
  family: AddressFamily = 'evm',
  label = 'Address',
): string {
  const check = checkWalletAddress(family, text);
  if (!check.ok) errors[id] = `${label}: ${check.reason}`;
  return check.ok ? check.address : '';
}

function accountField(text: string, errors: Record<string, string>, id: string): string {
  const digits = text.replace(/\s+/g, '');
  if (!/^\d{10}$/.test(digits)) errors[id] = 'Account number: must be exactly 10 digits';
  return digits;
}

function purposeField(text: string, errors: Record<string, string>, id: string): string {
  const problem = purposeProblem(text);
  if (problem) errors[id] = `Purpose: ${problem}`;
  return text;
}

function networkField(
  value: string | undefined,
  allowed: string[],
  errors: Record<string, string>,
  id: string,
) {
  if (!value || !allowed.includes(value)) errors[id] = 'Network: choose one of the enabled networks';
  return value ?? '';
}

const result = <T>(errors: Record<string, string>, value: T): Parsed<T> =>
  Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };

export function parseWithdraw(values: ViewValues, allowedNetworks: string[], families: Families = {}) {
  const errors: Record<string, string> = {};
  const amount = amountField(readText(values, WITHDRAW.amount), POSITIVE, errors, WITHDRAW.amount);
  const networkId = networkField(
    readSelect(values, WITHDRAW.network),
    allowedNetworks,
    errors,
    WITHDRAW.network,
  );
  const typed = readText(values, WITHDRAW.address);
  const chosen = readSelect(values, WITHDRAW.whitelisted);
  let address = '';
  if (typed && chosen) {
    errors[WITHDRAW.address] = 'Address: choose a whitelisted address or type one, not both';
  } else if (chosen) {
    const [chosenNetwork = '', chosenAddress = ''] = chosen.split('|');
    if (networkId && chosenNetwork !== networkId) {
      errors[WITHDRAW.whitelisted] = 'Whitelisted address: it is whitelisted on another network';
    }
    address = chosenAddress;
  } else if (typed) {
    address = addressField(typed, errors, WITHDRAW.address, familyOf(families, networkId));
  } else {
    errors[WITHDRAW.address] = 'Address: choose a whitelisted address or type one';
  }
  const shouldSaveAddress = readChecked(values, WITHDRAW.save);
  const purpose = purposeField(readText(values, WITHDRAW.purpose), errors, WITHDRAW.purpose);
  const compared = readChecked(values, WITHDRAW.compared);
  const again = readChecked(values, WITHDRAW.again);
  return result(errors, { amount, networkId, address, shouldSaveAddress, chosen, compared, again, purpose });
}

export function parseBridge(values: ViewValues, allowedNetworks: string[], families: Families = {}) {
  const errors: Record<string, string> = {};
  const amount = amountField(readText(values, BRIDGE.amount), POSITIVE, errors, BRIDGE.amount);
  const origin = networkField(readSelect(values, BRIDGE.origin), allowedNetworks, errors, BRIDGE.origin);
  const destination = networkField(
    readSelect(values, BRIDGE.destination),
    allowedNetworks,
    errors,
    BRIDGE.destination,
  );
  if (origin && origin === destination)
    errors[BRIDGE.destination] = 'To network: must differ from the origin network';
  const address = addressField(
    readText(values, BRIDGE.address),
    errors,
    BRIDGE.address,
    familyOf(families, destination),
    'Destination address',
  );
  const senderText = readText(values, BRIDGE.sender);
  const sender = senderText
    ? addressField(senderText, errors, BRIDGE.sender, familyOf(families, origin), 'Sender address')
    : undefined;
  const purpose = purposeField(readText(values, BRIDGE.purpose), errors, BRIDGE.purpose);
  const compared = readChecked(values, BRIDGE.compared);
  const again = readChecked(values, BRIDGE.again);
  return result(errors, { amount, origin, destination, address, sender, compared, again, purpose });
}

export function parseWhitelist(values: ViewValues, allowedNetworks: string[], families: Families = {}) {
  const errors: Record<string, string> = {};
  const networkId = networkField(
    readSelect(values, WHITELIST.network),
    allowedNetworks,
    errors,
    WHITELIST.network,
  );
  const address = addressField(
    readText(values, WHITELIST.address),
    errors,
    WHITELIST.address,
    familyOf(families, networkId),
  );
  const compared = readChecked(values, WHITELIST.compared);
  return result(errors, { networkId, address, compared });
}

function bankField(values: ViewValues, id: string, errors: Record<string, string>): BankChoice | undefined {
  const bank = parseBankOption(readSelect(values, id) ?? '');
  if (!bank) errors[id] = 'Bank: choose a bank from the list';
  return bank;
}

export function parseRedeem(values: ViewValues) {
  const errors: Record<string, string> = {};
  const amount = amountField(readText(values, REDEEM.amount), REDEEM_MINIMUM, errors, REDEEM.amount);
  const bank = bankField(values, REDEEM.bank, errors);
  const accountNumber = accountField(readText(values, REDEEM.account), errors, REDEEM.account);
  const purpose = purposeField(readText(values, REDEEM.purpose), errors, REDEEM.purpose);
  const again = readChecked(values, REDEEM.again);
  return result(errors, { amount, bank: bank as BankChoice, accountNumber, again, purpose });
}

export function parseSettlement(values: ViewValues) {
  const errors: Record<string, string> = {};
  const bank = bankField(values, SETTLEMENT.bank, errors);
  const accountNumber = accountField(readText(values, SETTLEMENT.account), errors, SETTLEMENT.account);
  return result(errors, { bank: bank as BankChoice, accountNumber });
}

export function parseReject(values: ViewValues) {
  const errors: Record<string, string> = {};
  const reason = readText(values, REJECT.reason);
  if (reason.length < 3) errors[REJECT.reason] = 'Reason: say in a few words why (at least 3 characters)';
  if (reason.length > 500) errors[REJECT.reason] = 'Reason: at most 500 characters';
  return result(errors, { reason });
}
