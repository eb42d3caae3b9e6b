// The freeze of sends holds from the signed audit chain as well as from the store's record, where the
// bot holds the audit signing key: a store writer (write access to the store, not the key) who writes
// the record lifted, or deletes it, does not let an approved withdrawal go out; an unfreeze approved by
// another approver still lifts it. Without the key, the record alone decides, as it always did.
import { describe, expect } from 'vitest';
import type { FreezeChange } from '../../src/approvals/index.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { auditHeadKey, auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { capturedLog } from '../support/captured-log.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  engineTest,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

const FREEZE_KEY = 'approvals:freeze:sandbox';
const log = () => capturedLog('info');

/** The engine holding an audit signing key, its log read back. */
const test = engineTest
  .extend('captured', () => log())
  .extend('engineOptions', ({ captured }) => ({
    engine: { auditSeal: { signer: newSigner(), marks: new HeadMarks() }, log: captured.logger },
  }));

/** File a withdrawal and approve it (one approval is enough below ₦1,000,000). */
async function approvedWithdrawal(fx: EngineFixture, networkId: string): Promise<string> {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '1500.50'));
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
  return request.id;
}

/** File the unfreeze as `requester` and have `approver` approve it. */
async function unfreeze(fx: EngineFixture, requester: string, approver: string) {
  const filed = await fx.engine.fileUnfreeze(requester);
  if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
  return { id: filed.request.id, approval: await approveAsSeen(fx.engine, filed.request.id, approver) };
}

/** What a store writer writes over the freeze record: lifted by a request nobody approved. */
const forgedLift = (frozenAt: string) => ({
  state: 'lifted',
  at: new Date(Date.parse(frozenAt) + 1000).toISOString(),
  by: APPROVER_A,
  requestId: 'AR-FORGED',
  frozen: { by: APPROVER_B, reason: 'checking a look-alike address', at: frozenAt },
});

/** Frozen by APPROVER_B with a withdrawal approved and held; the freeze changes heard from then on. */
async function frozenWithHeld(fx: EngineFixture, networkId: string) {
  await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
  const held = await approvedWithdrawal(fx, networkId);
  await fx.engine.idle();
  const heard: FreezeChange[] = [];
  fx.engine.onFreezeChange(async (change) => {
    heard.push(change);
  });
  const freeze = await fx.engine.currentFreeze();
  if (!freeze) throw new Error('not frozen');
  return { held, heard, freeze };
}

/** The sweep, then everything it started. */
async function sweep(fx: EngineFixture): Promise<void> {
  await fx.engine.tick();
  await fx.engine.idle();
}

describe('with the audit signing key, a store writer', () => {
  test('who writes the freeze record lifted does not let an approved withdrawal go out, and is reported once', async ({
    fx,
    networkId,
    captured,
  }) => {
    const { held, heard, freeze } = await frozenWithHeld(fx, networkId);
    await fx.store.set(FREEZE_KEY, forgedLift(freeze.at));

    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B, at: freeze.at });
    await sweep(fx);
    await sweep(fx);
    expect(withdrawCalls(fx)).toBe(0);
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(heard).toEqual([{ heldByChain: expect.objectContaining({ by: APPROVER_B, at: freeze.at }) }]);
    expect(await fx.engine.freezeSends(APPROVER_A, 'is it still frozen?')).toMatchObject({
      ok: false,
      reason: 'already-frozen',
      freeze: { by: APPROVER_B, at: freeze.at },
    });
    const errors = captured.entries.filter(
      (e) => e.level === 'error' && /changed outside the bot/.test(String(e.message)),
    );
    expect(errors).toHaveLength(1);
  });

  test('who deletes the freeze record does not let an approved withdrawal go out', async ({
    fx,
    networkId,
  }) => {
    const { held, freeze } = await frozenWithHeld(fx, networkId);
    await fx.store.delete(FREEZE_KEY);

    await sweep(fx);
    expect(withdrawCalls(fx)).toBe(0);
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(await fx.engine.currentFreeze()).toMatchObject({ at: freeze.at });
  });

  test('who deletes the freeze record while nothing waits to be sent is found by the next sweep', async ({
    fx,
    captured,
  }) => {
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    const heard: FreezeChange[] = [];
    fx.engine.onFreezeChange(async (change) => {
      heard.push(change);
    });
    await fx.store.delete(FREEZE_KEY);
    await sweep(fx);
    expect(heard).toEqual([{ heldByChain: expect.objectContaining({ by: APPROVER_B }) }]);
    expect(captured.entries.filter((e) => e.level === 'error')).toHaveLength(1);
  });

  test('is undone by an unfreeze another approver approves: then the held withdrawal goes out once', async ({
    fx,
    networkId,
  }) => {
    const { held, freeze } = await frozenWithHeld(fx, networkId);
    await fx.store.delete(FREEZE_KEY);
    const filed = await fx.engine.fileUnfreeze(APPROVER_A);
    if (!filed.ok) throw new Error(`unfreeze not filed: ${filed.reason}`);
    expect(filed.request.payload).toMatchObject({ frozenBy: APPROVER_B, frozenAt: freeze.at });
    expect(await approveAsSeen(fx.engine, filed.request.id, APPROVER_B)).toMatchObject({ ok: false });
    await sweep(fx);
    expect(withdrawCalls(fx)).toBe(0);

    expect(await approveAsSeen(fx.engine, filed.request.id, REQUESTER)).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect((await fx.engine.get(filed.request.id))?.state).toBe('completed');
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    await sweep(fx);
    expect((await fx.engine.get(held))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });
});

describe('with the audit signing key', () => {
  test('an unfreeze approved by another approver lifts the freeze, and the held withdrawal goes out once', async ({
    fx,
    networkId,
  }) => {
    const { held } = await frozenWithHeld(fx, networkId);
    const { approval } = await unfreeze(fx, APPROVER_B, APPROVER_A);
    expect(approval).toMatchObject({ ok: true });
    await fx.engine.idle();
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    await sweep(fx);
    expect((await fx.engine.get(held))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('a lift that went unanswered and was barred leaves the chain frozen: a record written lifted after it lifts nothing', async ({
    startEngine,
    defer,
    captured,
  }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const fx = await startEngine({
      store: controls.wrap(memory),
      engine: { auditSeal: { signer: newSigner(), marks: new HeadMarks() }, log: captured.logger },
    });
    const [networkId] = await twoNetworks(fx.client);
    const { held, freeze } = await frozenWithHeld(fx, networkId ?? '');
    const late = controls.answerLate(FREEZE_KEY, (next) => (next as { state?: string }).state === 'lifted');
    const { id } = await unfreeze(fx, APPROVER_B, APPROVER_A);
    await fx.engine.idle();
    await sweep(fx);
    expect(await fx.engine.get(id)).toMatchObject({ state: 'failed' });
    expect(await late.landed()).toBe(false);

    await memory.set(FREEZE_KEY, forgedLift(freeze.at));
    await sweep(fx);
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B, at: freeze.at });
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a lift of a freeze only the chain held that went unanswered is barred on the chain: sends stay frozen when its write lands', async ({
    startEngine,
    defer,
    captured,
  }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const controls = new StoreControls();
    const fx = await startEngine({
      store: controls.wrap(memory),
      engine: { auditSeal: { signer: newSigner(), marks: new HeadMarks() }, log: captured.logger },
    });
    const [networkId = ''] = await twoNetworks(fx.client);
    await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    await memory.delete(FREEZE_KEY);
    const late = controls.answerLate(FREEZE_KEY, (next) => (next as { state?: string }).state === 'lifted');
    const { id } = await unfreeze(fx, APPROVER_A, REQUESTER);
    await fx.engine.idle();
    expect((await fx.engine.get(id))?.state).toBe('outcome-unknown');
    await sweep(fx);
    expect(await fx.engine.get(id)).toMatchObject({ state: 'failed' });
    expect(await late.landed()).toBe(true);
    const held = await approvedWithdrawal(fx, networkId);
    await sweep(fx);
    expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B });
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a chain that does not verify back to its latest freeze holds sends frozen, until an unfreeze is approved', async ({
    startEngine,
  }) => {
    const signer = newSigner();
    const fx = await startEngine({ engine: { auditSeal: { signer, marks: new HeadMarks() } } });
    const [networkId = ''] = await twoNetworks(fx.client);
    const held = await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
    // A store writer takes an entry out of the middle of the log; the signed head is left as it is.
    const list = auditListKey('sandbox');
    const entries = await fx.store.readList<AuditEntry>(list, 0, -1);
    expect(entries.length).toBeGreaterThan(2);
    await fx.store.deleteList(list);
    for (const entry of entries.filter((_, i) => i !== 1)) await fx.store.appendToList(list, entry);

    // The bot started again (or another replica) reads the chain from the start.
    const again = {
      ...fx,
      ...(await fx.another({ engine: { auditSeal: { signer, marks: new HeadMarks() } } })),
    };
    expect(await again.engine.currentFreeze()).toMatchObject({ by: 'the audit chain' });
    const second = await approvedWithdrawal(again, networkId);
    await again.engine.idle();
    await sweep(again);
    expect((await again.engine.get(held))?.state).toBe('sent');
    expect((await again.engine.get(second))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(1);

    const { approval } = await unfreeze(again, APPROVER_A, APPROVER_B);
    expect(approval).toMatchObject({ ok: true });
    await again.engine.idle();
    await sweep(again);
    expect(await again.engine.currentFreeze()).toBeUndefined();
    expect((await again.engine.get(second))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(2);
    await again.engine.stop();
  });
});

describe('with the audit signing key, the send path', () => {
  test('reads the chain afresh: a freeze another replica put on the chain after this one’s last read holds the very next send', async ({
    startEngine,
  }) => {
    const signer = newSigner();
    const fx = await startEngine({ engine: { auditSeal: { signer, marks: new HeadMarks() } } });
    const [networkId = ''] = await twoNetworks(fx.client);
    await sweep(fx);
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    // Another replica freezes; its record write is lost (only the chain's entry is there).
    const other = await fx.another({ engine: { auditSeal: { signer, marks: new HeadMarks() } } });
    await other.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
    await fx.store.delete(FREEZE_KEY);
    const held = await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    expect((await fx.engine.get(held))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);
    await other.engine.stop();
  });
});

describe('with the audit signing key, a head that does not verify', () => {
  test('is lifted by the first unfreeze filed for it: the finding the next append records keeps its name', async ({
    startEngine,
  }) => {
    const fx = await startEngine({ engine: { auditSeal: { signer: newSigner(), marks: new HeadMarks() } } });
    const [networkId = ''] = await twoNetworks(fx.client);
    await approvedWithdrawal(fx, networkId);
    await fx.engine.idle();
    expect(withdrawCalls(fx)).toBe(1);
    // A store writer strips the head's signature: this bot signed that head, so it no longer verifies.
    const head = await fx.store.get<Record<string, unknown>>(auditHeadKey('sandbox'));
    const { signature: _, ...unsigned } = head ?? {};
    await fx.store.set(auditHeadKey('sandbox'), unsigned);
    await sweep(fx);
    const held = await fx.engine.currentFreeze();
    expect(held).toMatchObject({ by: 'the audit chain' });
    const second = await approvedWithdrawal(fx, networkId);
    await sweep(fx);
    expect((await fx.engine.get(second))?.state).toBe('approved');
    // The hold is named alike before and after the finding went into the chain.
    expect((await fx.engine.currentFreeze())?.at).toBe(held?.at);

    const { approval } = await unfreeze(fx, APPROVER_A, APPROVER_B);
    expect(approval).toMatchObject({ ok: true });
    await fx.engine.idle();
    await sweep(fx);
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    expect((await fx.engine.get(second))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(2);
  });
});

describe('without the audit signing key', () => {
  test('the store’s record alone decides: a record written lifted lets the held withdrawal go out', async ({
    startEngine,
  }) => {
    const fx = await startEngine();
    const [networkId] = await twoNetworks(fx.client);
    const { held, freeze } = await frozenWithHeld(fx, networkId ?? '');
    await fx.store.set(FREEZE_KEY, forgedLift(freeze.at));
    expect(await fx.engine.currentFreeze()).toBeUndefined();
    await sweep(fx);
    expect((await fx.engine.get(held))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });
});
