// The checks made before money moves, against the real client and the embedded sandbox: the balance
// less what is committed, whether a destination was paid before (the bot's records, the service's
// list), the whitelist, look-alike destinations, and the approval refused on a balance known short.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest, RequestDraft } from '../../src/approvals/index.js';
import { committedAgainst } from '../../src/approvals/preflight.js';
import { toChecksumAddress } from '../../src/format/evm-address.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  DEST,
  type EngineFixture,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const withdrawal = (networkId: string, amount: string, address = DEST, network = networkId): RequestDraft =>
  withdrawalDraft(network, amount, address);

/** A withdrawal filed and approved (one approver at this tier), and sent by the sandbox. */
async function sentWithdrawal(
  fx: EngineFixture,
  networkId: string,
  amount: string,
  address = DEST,
): Promise<ApprovalRequest> {
  const filed = await fileDraft(fx.engine, withdrawal(networkId, amount, address));
  await approveAsSeen(fx.engine, filed.id, APPROVER_A);
  await fx.engine.idle();
  const sent = await fx.engine.get(filed.id);
  if (sent?.state !== 'sent') throw new Error(`not sent: ${sent?.state}`);
  return sent;
}

/** The first whitelisted address the sandbox lists, and its network. */
async function whitelisted(fx: EngineFixture): Promise<{ networkId: string; address: string }> {
  const [first] = await fx.client.getWhitelisted();
  if (!first) throw new Error('the sandbox whitelists nothing');
  return { networkId: first.networkId, address: first.publicKey };
}

/** The same address with its middle changed: same first six and last four characters. */
function poisoned(address: string): string {
  const body = address.slice(2).toLowerCase();
  const middle = [...body.slice(4, -4)].map((c) => (c === 'a' ? 'b' : 'a')).join('');
  return `0x${body.slice(0, 4)}${middle}${body.slice(-4)}`;
}

describe('balance', () => {
  test('shows the balance, nothing committed, and what is left after the request', async ({
    fx,
    networkId,
  }) => {
    const checks = await fx.engine.preflight(withdrawal(networkId, '2000'));
    expect(checks.balance).toMatchObject({
      balance: '1250000.00',
      committed: '0.00',
      committedCount: 0,
      amount: '2000.00',
      after: '1248000.00',
      enough: true,
    });
    expect(Date.parse(checks.balance?.asOf ?? '')).not.toBeNaN();
  });

  test('counts a request sent after the balance was read, and not once the balance shows it', async ({
    fx,
    networkId,
  }) => {
    await fx.client.getBalance(); // the figure is now stored, as of before the withdrawal
    await sentWithdrawal(fx, networkId, '10000');
    const draft = { kind: 'withdraw' as const, amount: '2000' };
    const stored = await partsOf(fx.engine).core.preflight.balanceFor(draft, { stored: true });
    expect(stored).toMatchObject({ balance: '1250000.00', committed: '10000.00', after: '1238000.00' });
    // Read again: the service took the token when it accepted the withdrawal.
    const fresh = await partsOf(fx.engine).core.preflight.balanceFor(draft);
    expect(fresh).toMatchObject({ balance: '1240000.00', committed: '0.00', after: '1238000.00' });
  });

  test('refuses to file more than the balance less what is committed, with the figures', async ({
    fx,
    networkId,
  }) => {
    const checks = await fx.engine.preflight(withdrawal(networkId, '1250000.01'));
    expect(checks.balance).toMatchObject({ after: '-0.01', enough: false });
    await expect(
      fileDraft(fx.engine, withdrawal(networkId, '1250000.01'), { preflight: checks }),
    ).rejects.toThrow(
      /₦1,250,000\.01 is more than the balance \(₦1,250,000\.00\) less what is committed \(₦0\.00\)/,
    );
    expect(await fx.engine.openRequests()).toEqual([]);
  });

  test('refuses an approval while the balance last read does not cover the request', async ({
    fx,
    networkId,
  }) => {
    // Sent first: filed after it, the larger one would bring the requester's total in the window
    // to the two-approver tier (limits over time), and the first would wait for a second approver.
    await sentWithdrawal(fx, networkId, '300000');
    const filed = await fileDraft(fx.engine, withdrawal(networkId, '1000000')); // two approvers at this tier
    await fx.client.getBalance(); // ₦950,000 now
    expect(await approveAsSeen(fx.engine, filed.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'insufficient-balance',
    });
    await fx.engine.idle();
    expect((await fx.engine.get(filed.id))?.approvals).toEqual([]);
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('says the balance is unread when the service does not answer', async ({ fx, networkId }) => {
    fx.sandbox.failNext('GET', '/v1/api/balance', 400, 3, 'Service is currently unavailable.');
    const checks = await fx.engine.preflight(withdrawal(networkId, '2000'));
    expect(checks.balance).toBeUndefined();
    expect(checks.unread).toEqual(['the balance could not be read']);
  });

  test('has no balance check for a bridge: its amount is sent on-chain to the deposit address', async ({
    fx,
  }) => {
    const [origin, destination] = await twoNetworks(fx.client);
    const checks = await fx.engine.preflight({
      kind: 'bridge',
      amount: '5000',
      payload: { originNetworkId: origin, destinationNetworkId: destination, destinationAddress: DEST },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    });
    expect(checks.balance).toBeUndefined();
    expect(checks.unread).toBeUndefined();
  });
});

describe('what counts as committed', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 9, minute)).toISOString();
  const request = (id: string, state: ApprovalRequest['state'], answered?: number): ApprovalRequest =>
    ({
      id,
      kind: 'withdraw',
      amount: '100.00',
      state,
      history: answered === undefined ? [] : [{ at: at(answered), state: 'sent', action: 'sent' }],
    }) as unknown as ApprovalRequest;

  test('counts approved and executing ones, and sent ones the balance figure predates', () => {
    const open = [
      request('A', 'approved'),
      request('B', 'executing'),
      request('C', 'sent', 20), // answered after the read at :10
      request('D', 'sent', 5), // answered before it: the figure shows it
      request('E', 'pending'),
      request('F', 'approved'), // the request being checked
    ];
    const committed = committedAgainst(open, at(10), 'F');
    expect({ total: committed.total.toString(), count: committed.count }).toEqual({
      total: '300.00',
      count: 3,
    });
  });
});

describe('destinations', () => {
  test('marks a first payment, and not once the bot has paid that destination', async ({ fx, networkId }) => {
    expect((await fx.engine.preflight(withdrawal(networkId, '2000'))).firstPayment).toBe(true);
    await sentWithdrawal(fx, networkId, '1000');
    const again = await fx.engine.preflight(withdrawal(networkId, '2000'));
    expect(again.firstPayment).toBe(false);
    expect(again.unread).toBeUndefined();
  });

  test('knows the same EVM address paid on another EVM network: one key holder, one destination', async ({
    fx,
    networkId,
  }) => {
    const [, other] = await twoNetworks(fx.client);
    await sentWithdrawal(fx, networkId, '1000');
    const there = await fx.engine.preflight(withdrawal(networkId, '2000', DEST.toLowerCase(), other));
    expect(there.firstPayment).toBe(false);
    expect(there.lookAlike).toBeUndefined();
    // A member the bot stored per network before reads the same.
    const elsewhere = '0x1111111111111111111111111111111111111111';
    await fx.store.addToSet(`approvals:paid-destinations:sandbox`, `wallet|${networkId}|${elsewhere}`);
    expect((await fx.engine.preflight(withdrawal(networkId, '2000', elsewhere, other))).firstPayment).toBe(
      false,
    );
  });

  test("knows destinations paid from the service's transaction list", async ({ fx, networkId }) => {
    const networks = await fx.client.getNetworks();
    const listed = (await fx.client.getTransactions({ limit: 50 })).data;
    const paid = listed.find((tx) => tx.trx_type === 'withdraw' && tx.status === 'completed');
    const receiver = paid?.receiver;
    if (!paid || typeof receiver !== 'object' || !receiver?.address) throw new Error('no past withdrawal');
    const network = networks.find((n) => n.short_name === paid.network);
    const draft = withdrawal(networkId, '2000', receiver.address, network?.id);
    expect((await fx.engine.preflight(draft)).firstPayment).toBe(false);

    const redeemed = listed.find((tx) => tx.trx_type === 'fiat_redeem' && tx.status === 'completed');
    const account = redeemed?.receiver;
    if (typeof account !== 'object' || !account?.accountNumber || typeof account.bank !== 'object')
      throw new Error('no past redemption');
    const redemption: RequestDraft = {
      kind: 'redeem',
      amount: '5000',
      payload: { amount: '5000', bankCode: account.bank?.code ?? '', accountNumber: account.accountNumber },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    };
    expect((await fx.engine.preflight(redemption)).firstPayment).toBe(false);
    const elsewhere = { ...redemption, payload: { ...redemption.payload, accountNumber: '0123456789' } };
    expect((await fx.engine.preflight(elsewhere)).firstPayment).toBe(true);
  });

  test('says whether the address is on the whitelist for its network, shown checksummed', async ({
    fx,
    networkId,
  }) => {
    const entry = await whitelisted(fx);
    const draft = (address: string) => withdrawal(networkId, '2000', address, entry.networkId);
    const listed = await fx.engine.preflight(draft(entry.address));
    expect(listed).toMatchObject({
      whitelisted: true,
      network: { enabled: true },
      address: { shown: toChecksumAddress(entry.address), checked: 'checksum' },
    });
    expect(listed.lookAlike).toBeUndefined();
    expect((await fx.engine.preflight(draft(DEST))).whitelisted).toBe(false);
  });

  test('marks a look-alike of a known address and needs one more approver for it', async ({
    fx,
    networkId,
  }) => {
    const entry = await whitelisted(fx);
    const lookalike = poisoned(entry.address);
    const draft = withdrawal(networkId, '2000', lookalike, entry.networkId);
    const checks = await fx.engine.preflight(draft);
    expect(checks.lookAlike).toMatchObject({
      candidate: toChecksumAddress(lookalike),
      known: toChecksumAddress(entry.address),
      knownAs: 'paid', // the sandbox's history paid it, as well as whitelisting it
    });
    expect(checks.lookAlike?.differs.length).toBeGreaterThan(0);
    expect(checks.firstPayment).toBe(true);

    await expect(fileDraft(fx.engine, draft, { preflight: checks })).rejects.toThrow(
      /compare the whole address/,
    );
    const lookAlike = checks.lookAlike && { ...checks.lookAlike, compared: true };
    const filed = await fileDraft(fx.engine, draft, { preflight: { ...checks, lookAlike } });
    expect(filed.requiredApprovals).toBe(2);
    expect(filed.history[0]?.note).toMatch(/looks like an address paid before/);
    await approveAsSeen(fx.engine, filed.id, APPROVER_A);
    expect((await fx.engine.get(filed.id))?.state).toBe('pending');
    await approveAsSeen(fx.engine, filed.id, APPROVER_B);
    expect((await fx.engine.get(filed.id))?.state).not.toBe('pending');
  });

  test('asks no more approvers of a look-alike than there are: a tier needing all of them stays as it is', async ({
    startEngine,
  }) => {
    // Every amount needs 2; A and B are the only approvers besides the requester.
    const fx = await startEngine({ tiers: '0:2' });
    const entry = await whitelisted(fx);
    const draft = withdrawal(entry.networkId, '2000', poisoned(entry.address));
    const checks = await fx.engine.preflight(draft);
    const lookAlike = checks.lookAlike && { ...checks.lookAlike, compared: true };
    const filed = await fileDraft(fx.engine, draft, { preflight: { ...checks, lookAlike } });
    expect(filed.requiredApprovals).toBe(2);
    expect(filed.preflight?.lookAlike?.extra).toBe(false);
    await approveAsSeen(fx.engine, filed.id, APPROVER_A);
    await approveAsSeen(fx.engine, filed.id, APPROVER_B);
    expect((await fx.engine.get(filed.id))?.state).not.toBe('pending');
  });

  test('marks a look-alike of an address the bot paid before', async ({ fx, networkId }) => {
    await sentWithdrawal(fx, networkId, '1000');
    const checks = await fx.engine.preflight(withdrawal(networkId, '2000', poisoned(DEST)));
    expect(checks.lookAlike).toMatchObject({ known: DEST, knownAs: 'paid' });
  });
});
