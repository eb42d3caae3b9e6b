// An interrupted delegation request that the store says was written is completed by the tracker, and its
// completion on the signed chain grants it: only if its approvals pass the executor's last check again.
// A store writer who marks a request never approved (waiting, rejected) outcome-unknown and lists it as
// a delegation gets it failed, with no completion on the chain, in click mode with the audit signing key
// and where every approval needs a passkey signature. A real grant whose process stopped right after
// writing it is still completed and counts.
import { describe, expect } from 'vitest';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineOn,
  OUTSIDER,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { stoppedAtDelegationWrite } from '../support/stopped-delegation-write.js';
import {
  ADE,
  BOLA,
  CHIDI,
  DAY,
  delegateApproves,
  test as delegationTest,
  policy,
  auditKeyTest as test,
  withdrawCalls,
} from './delegation-support.js';
import { deviceFor, test as passkeyTest, rewrite, signing } from './signed-support.js';

const auditSeal = () => ({ signer: newSigner(), marks: new HeadMarks() });

/** What a store writer makes of a delegation request: interrupted while written, with `approvals`. */
const markedInterrupted =
  (approvals: ApprovalRequest['approvals']) =>
  (stored: ApprovalRequest): ApprovalRequest => {
    const at = new Date(Date.parse(stored.createdAt) + 1000).toISOString();
    return {
      ...stored,
      state: 'outcome-unknown',
      approvals,
      history: [...stored.history, { at, state: 'outcome-unknown', action: 'interrupted' }],
    } as ApprovalRequest;
  };

/** Marked so in the store, listed as a delegation and as open; then the tracker's pass. */
async function launder(
  fx: EngineFixture,
  id: string,
  approvals: ApprovalRequest['approvals'],
): Promise<void> {
  await rewrite(fx.store, id, markedInterrupted(approvals), { audited: false });
  await fx.store.addToSet('delegations:sandbox', id);
  await fx.store.addToSet('approvals:open:sandbox', id);
  await fx.engine.tick();
  await fx.engine.idle();
}

/** The request failed, with no completion of it among its steps. */
async function failedNotCompleted(fx: EngineFixture, id: string): Promise<void> {
  const request = await fx.engine.get(id);
  expect(request?.state).toBe('failed');
  expect(request?.history.map((h) => h.action)).not.toContain('completed');
}

describe('with the audit signing key, approvals by click', () => {
  for (const how of ['pending', 'rejected'] as const) {
    test(`a delegation request ${how === 'pending' ? 'still waiting' : how}, marked interrupted in the store, is failed by the tracker and grants nothing`, async ({
      fx,
      engine,
      networkId,
    }) => {
      const filed = await engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
      if (how === 'rejected') {
        expect(await rejectAsSeen(engine, filed.id, ADE, 'not now')).toMatchObject({ ok: true });
      }
      await launder(fx, filed.id, []);

      await failedNotCompleted(fx, filed.id);
      expect(await engine.liveDelegations()).toEqual([]);
      expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: false, reason: 'not-approver' });
      await engine.idle();
      expect(withdrawCalls(fx)).toBe(0);
    });
  }
  test('a delegation request marked sent in the store, with a reference, is settled by no report from the service', async ({
    fx,
    engine,
  }) => {
    const filed = await engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
    await rewrite(
      fx.store,
      filed.id,
      (stored) =>
        ({
          ...stored,
          state: 'sent',
          outcome: { status: 'pending', reference: 'TX-LAUNDERED' },
        }) as ApprovalRequest,
      { audited: false },
    );
    expect(
      await new ApprovalRepository(fx.store, 'sandbox').indexReference('TX-LAUNDERED', filed.id),
    ).toBeUndefined();
    await fx.store.addToSet('delegations:sandbox', filed.id);
    const report = {
      name: 'withdrawal.completed',
      key: 'withdrawal.completed|TX-LAUNDERED',
      references: ['TX-LAUNDERED'],
      result: 'completed' as const,
      status: 'completed',
    };
    expect(await engine.onCustodyReport(report)).toBeUndefined();
    expect((await engine.get(filed.id))?.state).toBe('sent');
    expect(await engine.liveDelegations()).toEqual([]);
  });
});

describe('with the audit signing key, every approval signed', () => {
  passkeyTest(
    'a delegation request never approved, marked interrupted with an unsigned approval, is failed and grants nothing',
    async ({ startEngine }) => {
      const { fx, networkId } = await engineOn(startEngine, {
        tiers: '0:1',
        engine: { signing, auditSeal: auditSeal() },
      });
      await deviceFor(fx.engine, APPROVER_A);
      await deviceFor(fx.engine, APPROVER_B);
      await deviceFor(fx.engine, OUTSIDER); // the delegate could sign, were the grant in effect
      const until = new Date(fx.clock.now().getTime() + 3 * DAY);
      const filed = await fx.engine.fileDelegation(APPROVER_A, OUTSIDER, until);
      await launder(fx, filed.id, [{ user: APPROVER_B, at: fx.clock.now().toISOString() }]);

      await failedNotCompleted(fx, filed.id);
      expect(await fx.engine.liveDelegations()).toEqual([]);
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
      expect(await fx.engine.passkeys.signingChallenge(request.id, OUTSIDER, request.round)).toMatchObject({
        ok: false,
        refusal: 'not-approver',
      });
      await fx.engine.idle();
      expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
    },
  );
});

delegationTest(
  'with the audit signing key, a real grant whose process stopped after writing it is completed by the tracker and counts',
  async ({ startEngine, defer }) => {
    const inner = await createStore('memory://');
    defer(() => inner.close());
    const { store, stop } = stoppedAtDelegationWrite(inner, { landed: true });
    const { fx, networkId } = await engineOn(startEngine, {
      store,
      engine: { policy: policy(), auditSeal: auditSeal() },
    });
    const filed = await fx.engine.fileDelegation(CHIDI, BOLA, new Date(fx.clock.now().getTime() + 3 * DAY));
    expect(await approveAsSeen(fx.engine, filed.id, ADE)).toMatchObject({ ok: true });
    await expect.poll(async () => inner.setMembers('delegations:sandbox')).toEqual([filed.id]);

    fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
    await fx.engine.tick();
    const settled = await fx.engine.get(filed.id);
    expect(settled?.state).toBe('completed');
    expect(settled?.history.map((h) => h.action)).toEqual(
      expect.arrayContaining(['interrupted', 'completed']),
    );
    stop(new Error('the stopped process never answers'));
    await fx.engine.idle();

    expect((await fx.engine.liveDelegations()).map((d) => d.id)).toEqual([filed.id]);
    expect(await delegateApproves(fx, networkId)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  },
);
