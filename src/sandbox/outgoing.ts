// Money leaving the business: withdrawals, redemptions (with account resolution), bridges and their
// quotes, and the settlement account. Each debits at acceptance and leaves a plan for timeline.ts.
import { Money } from '../format/money.js';
import {
  bankByCode,
  bankByName,
  FAILING_PAYOUT_ACCOUNT,
  FAILING_WITHDRAWAL_ADDRESS,
  type NetworkRecord,
  UNRESOLVABLE_ACCOUNT,
} from './catalog.js';
import { accountHolderName, newEvmAddress } from './names.js';
import {
  badRequest,
  type bankAccountBody,
  type bridgeBody,
  type bridgeQuoteBody,
  type redeemBody,
  type withdrawBody,
} from './rules.js';
import { planFor } from './settlement.js';
import { type Body, HALF_UP, type QuoteRecord, type SandboxState, UNAVAILABLE } from './state.js';
import type { TransactionRecord } from './types.js';

const UNRESOLVABLE = 'Could not resolve account details';
const money = (value: number) => Money.fromService(value);

/** Destination network fee plus a 0.5% service fee (at least ₦10), all in kobo. */
function bridgeFees(amount: Money, destination: NetworkRecord) {
  const networkFee = Money.fromKobo(destination.networkFeeKobo);
  const percent = HALF_UP(amount.kobo, 5n, 1000n);
  const bridgeFee = Money.fromKobo(percent > 1_000n ? percent : 1_000n);
  return { networkFee, bridgeFee, receivable: amount.minus(networkFee).minus(bridgeFee) };
}

function bridgeRoute(state: SandboxState, originId: string, destinationId: string) {
  const origin = state.networkById(originId, 'originNetworkId');
  const destination = state.networkById(destinationId, 'destinationNetworkId');
  if (origin.id === destination.id) {
    throw badRequest('destinationNetworkId: Origin and destination networks must differ');
  }
  return { origin, destination };
}

export function withdraw(
  state: SandboxState,
  body: Body<typeof withdrawBody>,
): {
  tx: TransactionRecord;
  result: { trxRef: string; address: string };
} {
  if (!state.serviceAvailable) throw badRequest(UNAVAILABLE);
  const network = state.networkById(body.networkId, 'networkId');
  const listed = state.whitelist.some(
    (w) => w.networkId === network.id && w.publicKey.toLowerCase() === body.address.toLowerCase(),
  );
  if (state.config.requireWhitelistedAddress && !listed && !body.shouldSaveAddress) {
    throw badRequest('Address is not whitelisted');
  }
  const amount = money(body.amount);
  state.debit(amount);
  if (body.shouldSaveAddress && !listed) state.appendWhitelist(network, body.address);
  const tx = state.record({
    kind: 'WD',
    type: 'withdraw',
    amount,
    from: state.identity.businessAddress,
    receiver: { address: body.address },
    description: `Withdrawal to ${body.address}`,
    network: network.short_name,
  });
  const fails = body.address.toLowerCase() === FAILING_WITHDRAWAL_ADDRESS.toLowerCase();
  state.plans.set(tx.trx_ref, planFor('withdraw', network, fails));
  return { tx, result: { trxRef: tx.trx_ref, address: body.address } };
}

export function verifyAccount(state: SandboxState, accountNumber: string, bankCode: string | undefined) {
  const bank = bankCode ? bankByCode(bankCode) : bankByName(state.settlement.bankName);
  if (!bank || accountNumber === UNRESOLVABLE_ACCOUNT) throw badRequest(UNRESOLVABLE);
  return {
    bank,
    view: {
      accountNumber,
      accountName: state.accountNames.get(accountNumber) ?? accountHolderName(bank.code, accountNumber),
      bankCode: bank.code,
      bankName: bank.name,
    },
  };
}

export function redeem(
  state: SandboxState,
  body: Body<typeof redeemBody>,
): {
  tx: TransactionRecord;
  result: { trxRef: string; address: string };
} {
  if (!state.serviceAvailable) throw badRequest(UNAVAILABLE);
  const { bank, view } = verifyAccount(state, body.accountNumber, body.bankCode);
  const amount = money(body.amount);
  state.debit(amount);
  if (body.saveDetails)
    state.savedRedeemAccounts.push({ bankCode: bank.code, accountNumber: body.accountNumber });
  const tx = state.record({
    kind: 'RD',
    type: 'fiat_redeem',
    amount,
    from: state.identity.businessAddress,
    receiver: { bank, accountNumber: body.accountNumber, accountName: view.accountName },
    description: `Redemption to ${bank.name} ${body.accountNumber}`,
    network: 'xbn',
  });
  const failsOnce = state.failNextRedemption;
  state.failNextRedemption = false;
  state.plans.set(
    tx.trx_ref,
    planFor('fiat_redeem', undefined, failsOnce || body.accountNumber === FAILING_PAYOUT_ACCOUNT),
  );
  return { tx, result: { trxRef: tx.trx_ref, address: newEvmAddress() } };
}

export function quote(state: SandboxState, body: Body<typeof bridgeQuoteBody>) {
  const { origin, destination } = bridgeRoute(state, body.originNetworkId, body.destinationNetworkId);
  const amount = money(body.amount);
  const { networkFee, bridgeFee, receivable } = bridgeFees(amount, destination);
  if (!receivable.isPositive()) throw badRequest('amount: Amount is too small to cover the bridge fees');
  state.quotes.unshift({
    origin: origin.id,
    destination: destination.id,
    address: body.destinationAddress,
    amount,
  });
  return {
    amountReceivable: receivable.toString(),
    networkFee: networkFee.toString(),
    bridgeFee: bridgeFee.toString(),
  };
}

export function bridge(state: SandboxState, body: Body<typeof bridgeBody>) {
  const { origin, destination } = bridgeRoute(state, body.originNetworkId, body.destinationNetworkId);
  // The bridge body carries no amount: the business sends the quoted amount to receivableAddress.
  // The sandbox assumes the latest matching quote was sent (₦1,000 when none was asked for).
  const sameRoute = (q: QuoteRecord) => q.origin === origin.id && q.destination === destination.id;
  const quoted =
    state.quotes.find(
      (q) => sameRoute(q) && q.address.toLowerCase() === body.destinationAddress.toLowerCase(),
    ) ?? state.quotes.find(sameRoute);
  const amount = quoted?.amount ?? Money.parseDecimal('1000');
  state.debit(amount);
  const tx = state.record({
    kind: 'BR',
    type: 'swap',
    amount,
    from: body.senderAddress ?? state.identity.businessAddress,
    receiver: { address: body.destinationAddress },
    description: `Bridge from ${origin.name} to ${destination.name}`,
    network: destination.short_name,
    ...(body.callbackUrl ? { callbackUrl: body.callbackUrl } : {}),
  });
  const plan = planFor('swap', destination, false);
  plan.callbackUrl = body.callbackUrl;
  const { receivable } = bridgeFees(amount, destination);
  plan.receivable = receivable.isPositive() ? receivable : amount;
  state.plans.set(tx.trx_ref, plan);
  return {
    tx,
    result: { receivableAddress: newEvmAddress(), transactionId: tx.id, reference: tx.trx_ref },
  };
}

export function updateSettlement(state: SandboxState, body: Body<typeof bankAccountBody>) {
  state.settlement = { ...body };
  return { ...state.settlement };
}
