// What a store writer (write access to the store, not the audit signing key) can no longer do where the
// bot holds that key, whether approvals are signed or not: change a filed request and have it sent
// (its filing seal must hold at the send, request-seal.ts), take its seal off and have the next start
// seal it as it stands (only an environment's first start seals, sealing-once.ts), or write or widen a delegation and have
// approvals through it count (its request's seal must hold where it is used, delegation-requests.ts).
import { describe, expect } from 'vitest';
import { DELEGATION_GONE } from '../../src/approvals/approver-left.js';
import { type ApprovalRequest, NEEDS_A_PERSON_NOTES } from '../../src/approvals/index.js';
import { FILING_SEAL_BROKEN, FILING_SEAL_MISSING } from '../../src/approvals/request-seal.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { fileDraft } from '../support/filing.js';
import {
  BOLA,
  CHIDI,
  DAY,
  DAYO,
  delegate,
  delegateApproves,
  auditKeyTest as test,
  withdrawal,
  withdrawCalls,
} from './delegation-support.js';
import { rewrite, unsealed } from './signed-support.js';

describe('with the audit signing key, approvals by click', () => {
  test('a destination rewritten in the store after filing: nothing is sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    // Unaudited, as a writer without the audit signing key: an unsigned entry would break the signed
    // chain, read before the claim (closed-on-chain.ts), ahead of the seal check this test is about.
    await rewrite(
      fx.store,
      request.id,
      (stored) =>
        ({
          ...stored,
          payload: { ...stored.payload, address: '0x000000000000000000000000000000000000dEaD' },
        }) as ApprovalRequest,
      { audited: false },
    );
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect(await engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FILING_SEAL_BROKEN, nothingSent: true },
    });
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a seal taken off and the amount changed in the store while the bot was stopped: the next start does not seal it, and nothing is sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    await engine.openTrail();
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    expect(request.sealed).toBeDefined();
    await engine.stop();
    const raised = (stored: ApprovalRequest) =>
      ({
        ...unsealed(stored),
        amount: '900000',
        payload: { ...stored.payload, amount: '900000' },
      }) as ApprovalRequest;
    await rewrite(fx.store, request.id, raised, { audited: false });

    const { engine: restarted } = await fx.another();
    await restarted.openTrail();
    expect(restarted.auditHealth()).toMatchObject({ checked: true, ok: true });
    expect((await restarted.get(request.id))?.sealed).toBeUndefined();
    expect(await approveAsSeen(restarted, request.id, DAYO)).toMatchObject({ ok: true });
    await restarted.idle();
    const failed = await restarted.get(request.id);
    expect(failed).toMatchObject({
      state: 'failed',
      outcome: { reason: FILING_SEAL_MISSING, nothingSent: true },
    });
    expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: FILING_SEAL_MISSING });
    expect(withdrawCalls(fx)).toBe(0);
    expect(NEEDS_A_PERSON_NOTES.has(FILING_SEAL_MISSING)).toBe(true); // the alerts channel hears of it
    await restarted.stop();
  });

  test('a request filed unsealed before an upgrade is sealed at start and sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    await rewrite(fx.store, request.id, unsealed, { audited: false });
    await engine.openTrail();
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('with the audit signing key, a delegation', () => {
  test('widened in the store (its cap taken out): the delegate’s approval above the cap does not count', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA, { max: '1000' });
    await rewrite(fx.store, id, (stored) => {
      const { max: _cap, ...payload } = stored.payload as { max?: string };
      return { ...stored, payload } as ApprovalRequest;
    });
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('lengthened in the store after the delegate approved: the send goes back to the approvers', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    const request = await fileDraft(engine, withdrawal(networkId, '1500000'));
    expect(await approveAsSeen(engine, request.id, BOLA)).toMatchObject({ ok: true });
    // Unaudited: an unsigned entry would break the signed chain, and the withdrawal, filed before the
    // break, would fail before its claim (not shown open) ahead of the delegation check judged here.
    await rewrite(
      fx.store,
      id,
      (stored) =>
        ({
          ...stored,
          payload: { ...stored.payload, until: new Date(fx.clock.now().getTime() + 60 * DAY).toISOString() },
        }) as ApprovalRequest,
      { audited: false },
    );
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect(await engine.get(request.id)).toMatchObject({ state: 'pending', reason: DELEGATION_GONE });
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('granted before an upgrade, its request unsealed, is sealed at start and still counts', async ({
    fx,
    engine,
    networkId,
  }) => {
    const id = await delegate(fx, CHIDI, BOLA);
    await rewrite(fx.store, id, unsealed, { audited: false });
    await engine.openTrail();
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  });
});
