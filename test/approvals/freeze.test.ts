// The freeze of sends in the engine, against the real client and the embedded sandbox: while frozen
// nothing reaches the service and approved requests stay approved, held; the unfreeze is a request
// another approver than the one who froze approves, and then what was held goes out, once, unless it
// expired. (The freeze racing a send, on every store: freeze-race.test.ts.)
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { type FreezeChange, START_FROZEN_ACTOR } from '../../src/approvals/freeze.js';
import { HELD_ACTION, type RequestOf } from '../../src/approvals/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  OUTSIDER,
  REQUESTER,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

/** File a withdrawal and approve it (one approval is enough below ₦1,000,000). */
async function approvedWithdrawal(fx: EngineFixture, networkId: string, amount = '1500.50'): Promise<string> {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
  return request.id;
}

/** File the unfreeze as `requester` and have `approver` approve it. */
async function unfreeze(fx: EngineFixture, requester: string, approver: string) {
  const filed = await fx.engine.fileUnfreeze(requester);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  return { id: filed.request.id, approval: await approveAsSeen(fx.engine, filed.request.id, approver) };
}

describe('while sends are frozen', () => {
  test('sends nothing: an approved withdrawal stays approved, held, and says so once', async ({
    fx,
    networkId,
  }) => {
    expect(await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address')).toMatchObject({
      ok: true,
      freeze: { by: APPROVER_B, reason: 'checking a look-alike address' },
      underway: [],
    });
    const id = await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    await fx.engine.tick(); // the sweep does not send it either, nor say it twice
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(0);
    const held = await fx.engine.get(id);
    expect(held?.state).toBe('approved');
    expect(held?.history.filter((h) => h.action === HELD_ACTION)).toHaveLength(1);
  });

  test('refuses a freeze by someone who is no approver, and a second freeze, changing nothing', async ({
    fx,
  }) => {
    expect(await fx.engine.freezeSends(OUTSIDER, 'I think something is wrong')).toEqual({
      ok: false,
      reason: 'not-approver',
    });
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    await fx.engine.freezeSends(APPROVER_A, 'first reason');
    expect(await fx.engine.freezeSends(APPROVER_B, 'second reason')).toMatchObject({
      ok: false,
      reason: 'already-frozen',
      freeze: { by: APPROVER_A, reason: 'first reason' },
    });
  });

  test('refuses a reason too short or too long, before asking who freezes', async ({ fx }) => {
    const badReason = { ok: false, reason: 'bad-reason' };
    expect(await fx.engine.freezeSends(APPROVER_A, 'no')).toEqual(badReason);
    expect(await fx.engine.freezeSends(APPROVER_A, 'x'.repeat(301))).toEqual(badReason);
    expect(await fx.engine.freezeSends(OUTSIDER, '  no  ')).toEqual(badReason);
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    // The switch itself still refuses one, for any caller that reaches past the engine's check.
    await expect(partsOf(fx.engine).core.freeze.freeze(APPROVER_A, 'no')).rejects.toThrow(/reason/);
  });

  test('hands a claimed, unmarked request back, approved and held, when the freeze came after its claim', async ({
    fx,
    networkId,
  }) => {
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '2000'));
    await partsOf(fx.engine).core.approve(request.id, APPROVER_A); // approved; nothing claimed it yet
    const claimed = await partsOf(fx.engine).executor.claimExecution(request.id);
    if (!claimed) throw new Error('not claimed');
    await fx.engine.freezeSends(APPROVER_B, 'stop everything');
    expect(await partsOf(fx.engine).executor.markSending(claimed)).toBeUndefined();
    const back = await fx.engine.get(request.id);
    expect(back?.state).toBe('approved');
    expect(back?.execution).toBeUndefined();
    expect(back?.history.at(-1)?.action).toBe(HELD_ACTION);
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('holds whitelist additions and settlement changes too, but writes a delegation', async ({
    fx,
    networkId,
  }) => {
    await fx.engine.freezeSends(APPROVER_A, 'stop everything');
    const whitelist = await fileDraft(fx.engine, {
      kind: 'whitelist',
      payload: { networkId, address: '0x52908400098527886E0F7030069857D2E4169EE7' },
      display: {},
      requester: REQUESTER,
    });
    await approveAsSeen(fx.engine, whitelist.id, APPROVER_B);
    const delegation = await fx.engine.fileDelegation(
      APPROVER_A,
      'U_AWAY',
      new Date(Date.now() + 86_400_000),
    );
    await approveAsSeen(fx.engine, delegation.id, APPROVER_B);
    await fx.engine.idle();
    expect((await fx.engine.get(whitelist.id))?.state).toBe('approved');
    expect(fx.sandbox.count('POST', '/v1/api/whitelist')).toBe(0);
    expect((await fx.engine.get(delegation.id))?.state).toBe('completed');
  });

  test('expires a held request once its expiry has passed, and never sends it', async ({ fx, networkId }) => {
    await fx.engine.freezeSends(APPROVER_B, 'stop everything');
    const id = await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    fx.clock.advance(25 * 3_600_000); // past the 24 h lifetime
    await fx.engine.tick();
    const { id: lift } = await unfreeze(fx, APPROVER_B, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(lift))?.state).toBe('completed');
    const expired = await fx.engine.get(id);
    expect(expired?.state).toBe('expired');
    expect(expired?.history.at(-1)?.note).toContain('held by a freeze');
    expect(withdrawCalls(fx)).toBe(0);
  });
});

describe('lifting the freeze', () => {
  test('is a request: refused to the approver who froze, sent on by another, and then the held one goes out once', async ({
    fx,
    networkId,
  }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const id = await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    const filed = await fx.engine.fileUnfreeze(APPROVER_B);
    if (!filed.ok) throw new Error('not filed');
    expect(filed.request).toMatchObject({
      kind: 'unfreeze',
      requiredApprovals: 1,
      payload: { frozenBy: APPROVER_B, reason: 'checking a look-alike address' },
    });
    // The one who froze cannot lift it, nor can its requester (here the same person).
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_B)).toMatchObject({ ok: false });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeDefined();
    expect(withdrawCalls(fx)).toBe(0);
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_A)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    expect((await fx.engine.get(filed.request.id))?.state).toBe('completed');
    expect((await fx.engine.get(id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
    await fx.engine.tick();
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('refuses the approver who froze even when someone else filed the unfreeze', async ({ fx }) => {
    await fx.engine.freezeSends(APPROVER_B, 'stop everything');
    const filed = await fx.engine.fileUnfreeze(APPROVER_A);
    if (!filed.ok) throw new Error('not filed');
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_B)).toMatchObject({
      ok: false,
      reason: 'froze',
    });
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'requester',
    });
    expect(await approveAsSeen(fx.engine, filed.request.id, REQUESTER)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeUndefined();
  });

  test('is refused when nothing is frozen, by someone who is no approver, and while another waits', async ({
    fx,
  }) => {
    expect(await fx.engine.fileUnfreeze(APPROVER_A)).toEqual({ ok: false, reason: 'not-frozen' });
    await fx.engine.freezeSends(APPROVER_A, 'stop everything');
    expect(await fx.engine.fileUnfreeze(OUTSIDER)).toEqual({ ok: false, reason: 'not-approver' });
    const first = await fx.engine.fileUnfreeze(APPROVER_A);
    expect(first.ok).toBe(true);
    expect(await fx.engine.fileUnfreeze(APPROVER_B)).toMatchObject({
      ok: false,
      reason: 'already-waiting',
      request: { id: first.ok ? first.request.id : '' },
    });
  });

  test('puts every freeze and every lift in the audit chain, which stays intact', async ({ fx }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const { id } = await unfreeze(fx, APPROVER_B, APPROVER_A);
    await fx.engine.idle();
    const entries = (await fx.engine.audit(50)).filter((e) => e.kind === 'freeze');
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['frozen', APPROVER_B],
      ['unfrozen', APPROVER_A],
    ]);
    expect(entries[0]?.note).toBe('checking a look-alike address');
    expect(entries[1]?.subject).toBe(id);
    expect((await fx.engine.verifyAudit()).ok).toBe(true);
  });
});

describe('an unfreeze whose lift went unanswered', () => {
  /** Frozen, a withdrawal held, and an approved unfreeze whose lifting write failed client-side, unapplied. */
  async function liftAnsweredLate(
    startEngine: (options: { store: Store }) => Promise<EngineFixture>,
    defer: (cleanup: () => Promise<unknown>) => void,
  ) {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const fx = await startEngine({ store: controls.wrap(memory) });
    const [networkId] = await twoNetworks(fx.client);
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const held = await approvedWithdrawal(fx, networkId ?? '');
    await fx.engine.idle();
    const late = controls.answerLate(
      'approvals:freeze:',
      (next) => (next as { state?: string }).state === 'lifted',
    );
    const { id, approval } = await unfreeze(fx, APPROVER_B, APPROVER_A);
    expect(approval).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(id))?.state).toBe('outcome-unknown');
    return { fx, held, id, late };
  }

  test('is failed only once the freeze is fenced: the late lift never lands, and nothing held goes out', async ({
    startEngine,
    defer,
  }) => {
    const { fx, held, id, late } = await liftAnsweredLate(startEngine, defer);
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(id)).toMatchObject({ state: 'failed' });
    // The statement the store was still running commits now: refused, since the record it read changed.
    expect(await late.landed()).toBe(false);
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B });
    // A holder that stalled before its read and comes back now is refused too.
    const given = (await fx.engine.get(id)) as RequestOf<'unfreeze'>;
    await expect(partsOf(fx.engine).core.freeze.lift(given)).rejects.toMatchObject({ kind: 'not-done' });
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B });
    await fx.engine.tick();
    await fx.engine.idle();
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);
    // A new unfreeze is filed on the same freeze and lifts it.
    const again = await unfreeze(fx, APPROVER_B, APPROVER_A);
    expect(again.approval).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('is completed, and the lift told, when the late write landed before the sweep looked', async ({
    startEngine,
    defer,
  }) => {
    const { fx, held, id, late } = await liftAnsweredLate(startEngine, defer);
    const heard: FreezeChange[] = [];
    fx.engine.onFreezeChange(async (change) => {
      heard.push(change);
    });
    expect(await late.landed()).toBe(true);
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(id)).toMatchObject({ state: 'completed' });
    expect(heard).toEqual([expect.objectContaining({ by: APPROVER_A, requestId: id })]);
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    expect((await fx.engine.get(held))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('puts the bar in the audit chain after the lift it answers, so the chain never ends "unfrozen"', async ({
    startEngine,
    defer,
  }) => {
    const { fx, id } = await liftAnsweredLate(startEngine, defer);
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(id)).toMatchObject({ state: 'failed' });
    const entries = (await fx.engine.audit(50)).filter((e) => e.kind === 'freeze');
    expect(entries.map((e) => [e.action, e.subject])).toEqual([
      ['frozen', undefined],
      ['unfrozen', id],
      ['unfreeze-barred', id],
    ]);
    expect((await fx.engine.verifyAudit()).ok).toBe(true);
  });

  test('is completed when the late write landed, though sends were frozen again before the sweep', async ({
    startEngine,
    defer,
  }) => {
    const { fx, id, late } = await liftAnsweredLate(startEngine, defer);
    expect(await late.landed()).toBe(true);
    await fx.engine.freezeSends(APPROVER_A, 'a second look');
    await fx.engine.tick();
    await fx.engine.idle();
    expect(await fx.engine.get(id)).toMatchObject({ state: 'completed' });
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_A });
  });
});

describe('a lift told', () => {
  test('once, though its holder told it and stalled, and the sweep settled it again', async ({ fx }) => {
    const heard: FreezeChange[] = [];
    fx.engine.onFreezeChange(async (change) => {
      heard.push(change);
    });
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    await fx.engine.idle();
    heard.length = 0;
    const filed = await fx.engine.fileUnfreeze(APPROVER_B);
    if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
    const { core } = partsOf(fx.engine);
    const at = fx.clock.now().toISOString();
    // The holder: its lift answered, and told; it stalled before recording the request completed, and
    // the request was taken over as of unknown outcome.
    const given = { ...filed.request, approvals: [{ user: APPROVER_A, at }] } as RequestOf<'unfreeze'>;
    await core.freeze.lift(given);
    const step = { at, state: 'outcome-unknown' as const, action: 'interrupted' };
    await core.repo.save({ ...given, state: 'outcome-unknown', history: [...given.history, step] });
    await fx.engine.idle();
    await fx.engine.tick();
    await fx.engine.idle();
    expect((await fx.engine.get(filed.request.id))?.state).toBe('completed');
    expect(heard).toEqual([expect.objectContaining({ requestId: filed.request.id })]);
  });
});

describe('starting frozen', () => {
  test('freezes as the start-up, audited, and leaves a freeze already in place as it is', async ({ fx }) => {
    expect(await fx.engine.freezeAtStart()).toMatchObject({ by: START_FROZEN_ACTOR });
    expect((await fx.engine.audit(5)).at(-1)).toMatchObject({
      kind: 'freeze',
      action: 'frozen',
      actor: START_FROZEN_ACTOR,
    });
    const again = await fx.engine.freezeAtStart();
    expect((await fx.engine.audit(5)).filter((e) => e.kind === 'freeze')).toHaveLength(1);
    expect(again.at).toBe((await fx.engine.currentFreeze())?.at);
    // Anyone but the unfreeze's requester may lift a freeze the start-up made.
    const { approval } = await unfreeze(fx, APPROVER_A, APPROVER_B);
    expect(approval).toMatchObject({ ok: true });
  });
});
