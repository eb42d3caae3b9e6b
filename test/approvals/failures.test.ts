// Which answers to a money POST prove nothing was done (failed) and which leave the outcome unknown
// (reconciled, never resent): the service says never to retry a 400 on a money POST blindly.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { failedCallOutcome } from '../../src/approvals/service-call.js';
import { classifyFailure as custodyFailure } from '../../src/cngn/custody-gateway.js';
import { CngnError, CngnResponseError, CngnTransportError, RateBudgetError } from '../../src/cngn/errors.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

const WITHDRAW = 'POST /v1/api/withdraw';

/** What a failed money call leaves the request as: the gateway's reading, then the engine's. */
const classifyFailure = (error: unknown) => failedCallOutcome(custodyFailure(error) ?? error);

describe('classifying a failed call', () => {
  test.each([
    ['Permission denied', 403],
    ['IP address not whitelisted', 403],
    ['Could not determine client IP address', 403],
    ['Security context not found', 403],
    ['amount: Number must be greater than or equal to 1', 400],
    ['amount: Minimum amount is 100 NGN', 400],
    ['Service is currently unavailable. Please try again later.', 400],
    ['Insufficient balance', 400],
    ['No token provided', 400],
    ['Invalid token prefix', 400],
    ['Invalid api key', 400],
    ['Merchant not found', 400],
    ['Decryption failed', 400],
    ['Missing encryption data, key, or IV', 400],
    ['Could not resolve account details', 400],
    ['Too many requests. Please try again later.', 429],
  ])('calls "%s" (%i) failed: the service refused before acting', (message, status) => {
    expect(classifyFailure(new CngnError(message, status, WITHDRAW))).toEqual({
      to: 'failed',
      note: message,
    });
  });

  test.each([
    ['Bad Request Error', 400],
    ['Insufficient balance', 500],
    ['Error: Insufficient balance', 400],
    ['Permission denied', 500],
    ['Number must be greater than or equal to 1', 400],
    ['Address is not whitelisted', 400],
    ['Transaction not found', 400],
    ['No Test SSH Key found', 400],
    ['Something went wrong', 418],
    ['TypeError: Cannot read properties of undefined', 500],
    ['Error: upstream timeout', 400],
    ['Withdrawal: queued for processing', 400],
    ['amount: looks fine but the answer was a 500', 500],
  ])('calls "%s" (%i) outcome-unknown: it does not prove nothing was done', (message, status) => {
    const result = classifyFailure(new CngnError(message, status, WITHDRAW));
    expect(result.to).toBe('outcome-unknown');
    expect(result.note).toContain(message);
  });

  test('knows a refused connection sent nothing, and a timeout may have', () => {
    expect(classifyFailure(new CngnTransportError('refused', WITHDRAW, false)).to).toBe('failed');
    expect(classifyFailure(new CngnTransportError('timeout', WITHDRAW, true)).to).toBe('outcome-unknown');
    expect(classifyFailure(new RateBudgetError(30)).to).toBe('failed');
    expect(classifyFailure(new CngnResponseError('unreadable', WITHDRAW, 'moves-money')).to).toBe(
      'outcome-unknown',
    );
    expect(classifyFailure(new Error('boom')).to).toBe('outcome-unknown');
  });
});

describe('a refused withdrawal through the sandbox', () => {
  const withdrawal = (networkId: string, amount: string) => withdrawalDraft(networkId, amount);

  async function approveAndRun(fx: EngineFixture, networkId: string, amount: string) {
    const request = await fileDraft(fx.engine, withdrawal(networkId, amount));
    const approved = await approveAsSeen(fx.engine, request.id, APPROVER_A);
    expect(approved).toMatchObject({ ok: true, request: { state: 'approved' } });
    await fx.engine.idle();
    return fx.engine.get(request.id);
  }

  test('marks an unexplained 400 outcome-unknown, to be reconciled, and never sends it again', async ({
    fx,
    networkId,
  }) => {
    fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Bad Request Error');
    const after = await approveAndRun(fx, networkId, '640');
    expect(after?.state).toBe('outcome-unknown');
    expect(after?.history.at(-1)?.note).toContain('Bad Request Error');
    await fx.engine.tick();
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  });

  test('marks a withdrawal larger than the balance failed, nothing sent, and never looks it up', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawal(networkId, '1250000.01')); // the sandbox holds ₦1,250,000.00
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await approveAsSeen(fx.engine, request.id, APPROVER_B); // its tier needs two
    await fx.engine.idle();
    const after = await fx.engine.get(request.id);
    expect(after?.state).toBe('failed');
    expect(after?.outcome).toMatchObject({ reason: 'Insufficient balance', nothingSent: true });
    expect(after?.outcome?.reference).toBeUndefined();
    await fx.engine.tick();
    expect((await fx.engine.get(after?.id ?? ''))?.history).toEqual(after?.history);
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    expect(fx.sandbox.balance()).toBe('1250000.00');
  });

  test('marks a validation answer failed with its message', async ({ fx, networkId }) => {
    fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'amount: Amount is too large');
    const after = await approveAndRun(fx, networkId, '650');
    expect(after?.state).toBe('failed');
    expect(after?.outcome?.reason).toBe('amount: Amount is too large');
  });

  test('marks a permission refusal failed', async ({ fx, networkId }) => {
    fx.sandbox.setPermission('sendCrypto', false);
    const after = await approveAndRun(fx, networkId, '660');
    expect(after?.state).toBe('failed');
    expect(after?.outcome?.reason).toBe('Permission denied');
  });

  test('marks an IP refusal failed', async ({ fx, networkId }) => {
    fx.sandbox.setIpAllowed(false);
    const after = await approveAndRun(fx, networkId, '670');
    expect(after?.state).toBe('failed');
    expect(after?.outcome?.reason).toContain('IP address not whitelisted');
  });
});

describe('a money call whose request budget cannot be read from the store', () => {
  test('is failed with nothing sent, not left outcome unknown', async ({ startEngine, defer }) => {
    const controls = new StoreControls();
    const store = await createStore('memory://');
    defer(() => store.close());
    const fx = await startEngine({ store: controls.wrap(store) });
    const [networkId] = await twoNetworks(fx.client);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '660'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A);
    const heal = controls.failReads('cngn:rate:'); // the store fails just as the call takes its slot
    const after = await partsOf(fx.engine).executor.execute(request.id);
    heal();
    expect(after?.state).toBe('failed');
    expect(after?.outcome?.reason).toContain('nothing was sent');
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });
});
