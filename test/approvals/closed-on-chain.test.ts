// A request the bot closed (completed, failed, cancelled, rejected after approval, expired) keeps its
// real approvals and its filing seal. Where the bot holds the audit signing key, a store writer who sets
// it back to approved, or marks it interrupted, never has it sent, or completed by the tracker, again:
// its closing is on the signed audit chain, read before and under the claim and again right before the
// call (closed-on-chain.ts). The request ends as the chain records it, and the note is one the alerts
// channel hears. Without the key nothing changes.
import { describe, expect } from 'vitest';
import {
  CHAIN_UNREAD_AT_CALL,
  CLOSED_ON_CHAIN,
  ClosedOnChain,
  NOT_SHOWN_OPEN,
  SENT_ON_CHAIN,
} from '../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { type ApprovalRequest, LOOKED_UP_BEFORE_SENDING, needsAPerson } from '../../src/approvals/index.js';
import { AuditLog } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { VerifiedClosings } from '../../src/audit/verified-closings.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { capturedLog } from '../support/captured-log.js';
import { REQUESTER, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { liftFreeze } from '../support/unfreeze.js';
import {
  approvedAndCalled,
  approvedUnsent,
  approvedWithdrawal,
  execute,
  leftToAPerson,
  revive,
  revivedApproved,
  test,
} from './closed-support.js';
import { ADE, BOLA, CHIDI, DAY, DAYO, policy, withdrawal, withdrawCalls } from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** Failed before sending with the chain's note, which the alerts channel hears. */
function failedAsClosed(request: ApprovalRequest | undefined, closedAs: string): void {
  expect(request?.state).toBe('failed');
  const note = request?.history.at(-1)?.note ?? '';
  expect(note).toContain(`${CLOSED_ON_CHAIN} (${closedAs},`);
  expect(needsAPerson(note)).toBe(true);
}

/**
 * Outcome unknown, never "nothing sent": the chain's note says the call was made, and a person is asked
 * to check it with the service (the reconciler leaves it alone: the bot no longer holds the call's record).
 */
function leftToAPersonAsSent(request: ApprovalRequest | undefined, sentAs: string): void {
  const step = leftToAPerson(request, `${SENT_ON_CHAIN} (${sentAs},`);
  expect(request?.outcome?.nothingSent).toBeUndefined();
  expect(step?.state).toBe('outcome-unknown');
  expect(request?.history.at(-1)?.action).toBe('needs-manual-check');
}

describe('with the audit signing key, a closed withdrawal set back to approved in the store', () => {
  test('completed: sent once, not sent again, and completed as the chain records', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request, approval } = await approvedAndCalled(fx, withdrawal(networkId, '1500'), {
      settled: true,
    });
    expect(approval).toMatchObject({ ok: true });
    expect((await engine.get(request.id))?.state).toBe('completed');
    expect(withdrawCalls(fx)).toBe(1);

    await revive(fx.store, request.id);
    const settled = await execute(engine, request.id);
    expect(settled?.state).toBe('completed');
    const step = settled?.history.at(-1);
    expect(step).toMatchObject({ state: 'completed', action: LOOKED_UP_BEFORE_SENDING });
    expect(step?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(needsAPerson(step?.note ?? '')).toBe(true);
    expect(settled?.outcome?.nothingSent).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('sent, its answer not yet in: not sent again, and left to a person as sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request, approval } = await approvedAndCalled(fx, withdrawal(networkId, '1500'));
    expect(approval).toMatchObject({ ok: true });
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);

    await revive(fx.store, request.id);
    leftToAPersonAsSent(await execute(engine, request.id), 'sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('sent with no answer (outcome unknown): not sent again, and left to a person as sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    fx.sandbox.failNext('POST', '/v1/api/withdraw', 400, 1, 'Bad Request Error');
    const { request, approval } = await approvedAndCalled(fx, withdrawal(networkId, '1500'));
    expect(approval).toMatchObject({ ok: true });
    expect((await engine.get(request.id))?.state).toBe('outcome-unknown');
    expect(withdrawCalls(fx)).toBe(1);

    await revive(fx.store, request.id);
    leftToAPersonAsSent(await execute(engine, request.id), 'outcome-unknown');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('failed by the service: not sent again', async ({ fx, engine, networkId }) => {
    const dead = withdrawalDraft(networkId, '1500', '0x000000000000000000000000000000000000dEaD');
    const { request } = await approvedAndCalled(fx, dead, { settled: true });
    expect((await engine.get(request.id))?.state).toBe('failed');

    await revive(fx.store, request.id);
    failedAsClosed(await execute(engine, request.id), 'failed');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('cancelled by its requester after approval: never sent', async ({ fx, engine, networkId }) => {
    const request = await approvedWithdrawal(engine, networkId);
    expect(await engine.cancel(request.id, REQUESTER)).toMatchObject({ ok: true });

    await rewrite(fx.store, request.id, revivedApproved, { audited: false });
    failedAsClosed(await execute(engine, request.id), 'cancelled');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('rejected after approval: never sent', async ({ fx, engine, networkId }) => {
    const request = await approvedWithdrawal(engine, networkId);
    expect(await rejectAsSeen(engine, request.id, ADE, 'wrong supplier')).toMatchObject({ ok: true });

    await rewrite(fx.store, request.id, revivedApproved, { audited: false });
    failedAsClosed(await execute(engine, request.id), 'rejected');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('expired, then approved in the store: never sent', async ({ fx, engine, networkId }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    fx.clock.advance(DAY + 1_000);
    await engine.tick();
    expect((await engine.get(request.id))?.state).toBe('expired');

    const at = fx.clock.now().toISOString();
    await rewrite(
      fx.store,
      request.id,
      (stored) =>
        ({
          ...stored,
          state: 'approved',
          approvals: [{ user: DAYO, at }],
          history: [
            ...stored.history.slice(0, 1),
            { at, state: 'approved', action: 'approved', actor: DAYO },
          ],
        }) as ApprovalRequest,
      { audited: false },
    );
    failedAsClosed(await execute(engine, request.id), 'expired');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a second send reads only the new part of the chain', async ({ fx, engine, networkId }) => {
    await approvedAndCalled(fx, withdrawal(networkId, '1500'));
    const log = partsOf(engine).core.repo.auditLog;
    const entries = log.entries.bind(log);
    let wholeReads = 0;
    log.entries = (environment) => {
      wholeReads += 1;
      return entries(environment);
    };
    const { request: second } = await approvedAndCalled(fx, withdrawal(networkId, '1600'));
    expect((await engine.get(second.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(2);
    expect(wholeReads).toBe(0);
  });
});

describe('with the audit signing key, the check before the claim', () => {
  test('a chain read that fails once leaves the request approved; the next sweep sends it', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await approvedWithdrawal(engine, networkId);
    const log = partsOf(engine).core.repo.auditLog;
    const head = log.head.bind(log);
    let failures = 1;
    log.head = (environment) => {
      if (failures-- > 0) return Promise.reject(new Error('the store did not answer'));
      return head(environment);
    };
    await expect(partsOf(engine).executor.execute(request.id)).rejects.toThrow('the store did not answer');
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);

    await engine.tick();
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('comes before the late lookup: a revived request approved long ago is settled by the chain', async ({
    fx,
    engine,
    networkId,
  }) => {
    const { request } = await approvedAndCalled(fx, withdrawal(networkId, '1500'), { settled: true });
    expect((await engine.get(request.id))?.state).toBe('completed');

    await revive(fx.store, request.id);
    fx.clock.advance(5 * 60_000); // its approval is older than the claim lease: a late send
    const lists = fx.sandbox.count('GET', '/v1/api/transactions');
    const settled = await execute(engine, request.id);
    expect(settled?.state).toBe('completed');
    expect(settled?.history.at(-1)?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(fx.sandbox.count('GET', '/v1/api/transactions')).toBe(lists);
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('with the audit signing key, what the chain holds but the store does not', () => {
  test('a closing entry whose request write never landed: not sent, and the note says the write may be lost', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await approvedWithdrawal(engine, networkId);
    // The bot appended the step's entry, then stopped before writing the request (entry first).
    const stored = await engine.get(request.id);
    await partsOf(engine).core.repo.auditLog.append('sandbox', {
      at: fx.clock.now().toISOString(),
      requestId: request.id,
      kind: 'withdraw',
      action: 'cancelled',
      state: 'cancelled',
      actor: REQUESTER,
      step: stored?.history.length ?? 0,
    });
    const failed = await execute(engine, request.id);
    failedAsClosed(failed, 'cancelled');
    expect(failed?.history.at(-1)?.note).toContain("the bot's own write of that step never landed");
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('filed before a break the bot signed on from: it cannot be shown open, and is not sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await approvedWithdrawal(engine, networkId);
    // A store writer appends an entry of their own: the head is no longer one the bot signed, and the
    // bot's next append records that it signs on from there (a head-unverified finding).
    await new AuditLog(fx.store).append('sandbox', {
      at: fx.clock.now().toISOString(),
      kind: 'audit',
      action: 'note',
    });
    // What is filed after the finding goes out as usual (below); its filing records the finding.
    const next = await fileDraft(engine, withdrawal(networkId, '1600'));
    // The break also holds sends frozen until an approved unfreeze (freeze-on-the-signed-chain.md).
    await liftFreeze(engine, ADE, DAYO);
    const failed = await execute(engine, request.id);
    expect(failed?.state).toBe('failed');
    expect(failed?.history.at(-1)?.note).toBe(NOT_SHOWN_OPEN);
    expect(needsAPerson(NOT_SHOWN_OPEN)).toBe(true);
    expect(withdrawCalls(fx)).toBe(0);

    await approveAsSeen(engine, next.id, DAYO);
    await engine.idle();
    expect((await engine.get(next.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('with the audit signing key, an entry edited in place', () => {
  test('a request filed before the edit cannot be shown open: not sent; read from the head back', async ({
    startEngine,
    networkId,
  }) => {
    const auditSeal = { signer: newSigner(), marks: new HeadMarks() };
    const fx = await startEngine({ engine: { policy: policy(), auditSeal } });
    const request = await approvedWithdrawal(fx.engine, networkId);
    const later = await fileDraft(fx.engine, withdrawal(networkId, '1600'));
    // A store writer edits the later request's filing entry: the chain breaks there, after the first
    // request's filing, so only what links back from the head to the edit is trusted.
    const key = 'approvals:audit:sandbox';
    const entries = await fx.store.readList<Record<string, unknown>>(key, 0, -1);
    await fx.store.deleteList(key);
    for (const entry of entries) {
      const edited = entry.requestId === later.id && entry.step === 0;
      await fx.store.appendToList(key, edited ? { ...entry, note: 'edited' } : entry);
    }
    // The bot after a restart: nothing of the chain read before the edit.
    const { engine } = await fx.another({ engine: { policy: policy(), auditSeal } });
    // The break also holds sends frozen until an approved unfreeze (freeze-on-the-signed-chain.md),
    // filed once the bot has written since the restart.
    await fileDraft(engine, withdrawal(networkId, '1700'));
    await liftFreeze(engine, ADE, DAYO);
    const failed = await execute(engine, request.id);
    expect(failed?.state).toBe('failed');
    expect(failed?.history.at(-1)?.note).toBe(NOT_SHOWN_OPEN);
    expect(withdrawCalls(fx)).toBe(0);
  });
});

describe('with the audit signing key, a delegation closed after approval', () => {
  test('marked interrupted in the store and listed: the tracker fails it and grants nothing', async ({
    fx,
    engine,
  }) => {
    const until = new Date(fx.clock.now().getTime() + 3 * DAY);
    const filed = await engine.fileDelegation(CHIDI, BOLA, until);
    await approvedUnsent(engine, filed.id);
    expect(await rejectAsSeen(engine, filed.id, ADE, 'not this week')).toMatchObject({ ok: true });

    await rewrite(
      fx.store,
      filed.id,
      (stored) => {
        const at = fx.clock.now().toISOString();
        return {
          ...revivedApproved(stored),
          state: 'outcome-unknown',
          history: [
            ...revivedApproved(stored).history,
            { at, state: 'outcome-unknown', action: 'interrupted' },
          ],
        } as ApprovalRequest;
      },
      { audited: false },
    );
    await fx.store.addToSet('delegations:sandbox', filed.id);
    await fx.store.addToSet('approvals:open:sandbox', filed.id);
    await engine.tick();
    await engine.idle();

    const request = await engine.get(filed.id);
    failedAsClosed(request, 'rejected');
    expect(request?.history.map((h) => h.action)).not.toContain('completed');
    expect(await engine.delegations()).toEqual([]);
  });
});

describe('without the audit signing key', () => {
  test('nothing changes: a store writer can still have a completed withdrawal sent again', async ({
    startEngine,
    networkId,
  }) => {
    const fx = await startEngine({ engine: { policy: policy() } });
    const { request } = await approvedAndCalled(fx, withdrawal(networkId, '1500'), { settled: true });
    expect((await fx.engine.get(request.id))?.state).toBe('completed');

    // Without the key a store writer can rewrite the chain along with the request: nothing to read.
    await revive(fx.store, request.id);
    expect((await execute(fx.engine, request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(2);
  });
});

describe('with the audit signing key, a chain that cannot be read', () => {
  test('before or under the claim, and settling, the error is thrown; right before the call, the request fails, nothing sent', async () => {
    const unreadable = {
      head: () => Promise.reject(new Error('the store did not answer')),
      entries: () => Promise.resolve([]),
      latest: () => Promise.resolve([]),
    };
    const closings = new VerifiedClosings(unreadable, 'sandbox', {
      signer: newSigner(),
      marks: new HeadMarks(),
    });
    const { logger, entries } = capturedLog('error');
    const refused: string[] = [];
    const check = new ClosedOnChain(closings, logger, (id) => refused.push(id));
    const request = { id: 'AR-UNREAD' } as ApprovalRequest;
    await expect(check.refusal(request, 'claim')).rejects.toThrow('the store did not answer');
    await expect(check.refusal(request, 'settle')).rejects.toThrow('the store did not answer');
    await expect(check.refusal(request, 'send')).rejects.toThrow('the store did not answer');
    expect(await check.failureAtTheCall(request)).toEqual({ to: 'failed', note: CHAIN_UNREAD_AT_CALL });
    expect(needsAPerson(CHAIN_UNREAD_AT_CALL)).toBe(true);
    expect(entries).toMatchObject([
      { level: 'error', message: 'NOT SENT: the signed audit chain could not be read right before the call' },
    ]);
    expect(refused).toEqual([]);
  });
});
