// Money arriving: temporary (one-time) virtual accounts, their payment, and on-chain deposits.
import { Money } from '../format/money.js';
import { BUSINESS_NAME, TEMPORARY_ACCOUNT_BANK } from './catalog.js';
import { newAccountNumber, newEvmAddress, newId, newReference, newTxHash } from './names.js';
import { badRequest, type temporaryAccountBody } from './rules.js';
import { planFor } from './settlement.js';
import { type Body, HALF_UP, type SandboxState } from './state.js';
import type { TransactionRecord } from './types.js';

const money = (value: number) => Money.fromService(value);

export function createTemporaryAccount(state: SandboxState, body: Body<typeof temporaryAccountBody>) {
  const amount = money(body.amount);
  // 1% processing fee capped at ₦2,000; VAT 7.5% of the fee; both rounded half-up to the kobo.
  const feeKobo = [HALF_UP(amount.kobo, 1n, 100n), 200_000n].reduce((a, b) => (a < b ? a : b));
  const vatKobo = HALF_UP(feeKobo, 75n, 1000n);
  const expected = amount.plus(Money.fromKobo(feeKobo)).plus(Money.fromKobo(vatKobo));
  const expiresAtMs = state.config.now() + state.config.temporaryAccountTtlMs;
  const reference = newReference('VA');
  const view = {
    reference,
    paymentReference: `KPY-${newId().replace(/-/g, '').slice(0, 20).toUpperCase()}`,
    amount: amount.toWireNumber(),
    amountExpected: expected.toWireNumber(),
    fee: Money.fromKobo(feeKobo).toWireNumber(),
    vat: Money.fromKobo(vatKobo).toWireNumber(),
    currency: 'NGN',
    status: 'pending',
    narration: body.narration ?? `Deposit for ${BUSINESS_NAME}`,
    accountNumber: newAccountNumber(),
    accountName: body.accountName ?? `${BUSINESS_NAME} CHECKOUT`,
    bankName: TEMPORARY_ACCOUNT_BANK.bankName,
    bankCode: TEMPORARY_ACCOUNT_BANK.bankCode,
    expiresAt: state.expiryText ?? new Date(expiresAtMs).toISOString(),
  };
  state.temporaryAccounts.set(reference, { view, amount, expected, expiresAtMs });
  return view;
}

/** A payment into a temporary account: a pending `fiat_buy` that timeline.ts completes at once. */
export function payTemporaryAccount(
  state: SandboxState,
  reference: string,
  paid?: string,
): TransactionRecord {
  const account = state.temporaryAccounts.get(reference);
  if (!account) throw new Error(`No temporary virtual account with reference ${reference}`);
  if (account.paidRef) throw new Error(`Temporary virtual account ${reference} was already paid`);
  if (state.config.now() > account.expiresAtMs) {
    throw new Error(
      `Temporary virtual account ${reference} expired at ${account.view.expiresAt}; not credited`,
    );
  }
  const amount = paid === undefined ? account.expected : Money.parse(paid);
  if (!amount.equals(account.expected)) {
    throw new Error(`Temporary virtual account ${reference} expects exactly ${account.expected.toString()}`);
  }
  const tx = state.record({
    kind: 'DP',
    type: 'fiat_buy',
    amount: account.amount,
    from: 'Virtual account deposit',
    receiver: { address: state.identity.businessAddress },
    description: `Naira deposit via ${account.view.bankName} ${String(account.view.accountNumber)}`,
    network: 'xbn',
  });
  account.paidRef = tx.trx_ref;
  account.view.status = 'completed';
  state.plans.set(tx.trx_ref, planFor('fiat_buy', undefined, false));
  return tx;
}

export function cryptoDeposit(
  state: SandboxState,
  amountText: string,
  networkShort: string | undefined,
): TransactionRecord {
  const network = state.networkByShortName(networkShort);
  const amount = Money.parse(amountText);
  if (!amount.isPositive()) throw badRequest('amount: Number must be greater than 0');
  const mint = newTxHash();
  const tx = state.record({
    kind: 'CD',
    type: 'crypto_deposit',
    amount,
    from: newEvmAddress(),
    receiver: { address: state.identity.businessAddress },
    description: `On-chain deposit on ${network.name}`,
    network: network.short_name,
    status: 'completed',
  });
  tx.base_trx_hash = mint;
  tx.extl_trx_hash = newTxHash();
  tx.explorer_link = `${network.explorerTx}${mint}`;
  state.credit(amount);
  return tx;
}
