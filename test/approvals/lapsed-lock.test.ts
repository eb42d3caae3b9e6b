// A replica whose request lock lapsed mid-section (a GC pause, a slow store, a renewal stuck behind a
// busy pool) and which writes late never overwrites what another replica wrote meanwhile: its write
// is conditional on what it read, so it is refused, and the step is decided again on the fresh
// request. On every store kind: the lapse is simulated by a lock that keeps nobody out.
import { describe, expect } from 'vitest';
import { MAX_SECTION_RUNS, WriteRefusedError } from '../../src/approvals/approval-core.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { createStore } from '../../src/store/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { LapsedLock } from '../support/lapsed-lock.js';
import { STORE_KINDS } from '../support/shared-stores.js';

/** Replica A (its lock lapses, its writes can be held) and replica B on one store; a withdrawal to file. */
const test = engineTest.extend('pair', async ({ replicas, startEngine }) => {
  return async (name: string, tiers = '0:1') => {
    const { a, b } = await replicas(`lapsed-${name}`);
    const lapsed = new LapsedLock();
    const fa = await startEngine({ store: lapsed.wrap(a), tiers });
    const fb = await startEngine({ store: b, tiers });
    const [networkId] = await twoNetworks(fa.client);
    return { a: fa, b: fb, lapsed, withdrawal: (amount: string) => withdrawalDraft(networkId, amount) };
  };
});
const actions = (request: ApprovalRequest | undefined) => request?.history.map((h) => h.action);

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a late write under a lapsed lock on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('never undoes a rejection with a late approval (nothing is sent)', async ({ pair }) => {
      const { a, b, lapsed, withdrawal } = await pair('approve-reject');
      const request = await fileDraft(a.engine, withdrawal('101'));
      const gate = lapsed.holdWrite((value) => value.state === 'approved');
      const late = approveAsSeen(a.engine, request.id, APPROVER_A);
      await gate.arrived;
      expect(await rejectAsSeen(b.engine, request.id, APPROVER_B, 'wrong address')).toMatchObject({
        ok: true,
      });
      gate.release();
      expect(await late).toMatchObject({ ok: false, reason: 'not-pending' });
      await a.engine.idle();
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('rejected');
      expect(actions(stored)).toEqual(['filed', 'rejected']);
    });

    test('never loses another approval: the late one is added to it', async ({ pair }) => {
      const { a, b, lapsed, withdrawal } = await pair('approve-approve', '0:2');
      const request = await fileDraft(a.engine, withdrawal('102'));
      const gate = lapsed.holdWrite(
        (value) => Array.isArray(value.approvals) && value.approvals.length === 1,
      );
      const late = partsOf(a.engine).core.approve(request.id, APPROVER_A);
      await gate.arrived;
      expect(await partsOf(b.engine).core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      gate.release();
      expect(await late).toMatchObject({ ok: true });
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('approved');
      expect(stored?.approvals.map((x) => x.user)).toEqual([APPROVER_B, APPROVER_A]);
      expect(actions(stored)).toEqual(['filed', 'approval-added', 'approved']);
    });

    // An approved request not yet claimed can be rejected (close-by-person.ts): the late rejection,
    // refused over the approval, is decided again on the approved request and recorded after it.
    test('never writes a late rejection over an approval: it is decided again and lands after it', async ({
      pair,
    }) => {
      const { a, b, lapsed, withdrawal } = await pair('reject-approve');
      const request = await fileDraft(a.engine, withdrawal('103'));
      const gate = lapsed.holdWrite((value) => value.state === 'rejected');
      const late = rejectAsSeen(a.engine, request.id, APPROVER_A, 'too much');
      await gate.arrived;
      expect(await partsOf(b.engine).core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      gate.release();
      expect(await late).toMatchObject({ ok: true, request: { state: 'rejected' } });
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('rejected');
      expect(stored?.approvals.map((x) => x.user)).toEqual([APPROVER_B]);
      expect(actions(stored)).toEqual(['filed', 'approved', 'rejected']);
      expect(await partsOf(b.engine).executor.execute(request.id)).toBeUndefined();
      expect(a.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
    });

    test('never undoes a send with a late rejection: once claimed, it is refused as too late', async ({
      pair,
    }) => {
      const { a, b, lapsed, withdrawal } = await pair('reject-send');
      const request = await fileDraft(a.engine, withdrawal('106'));
      const gate = lapsed.holdWrite((value) => value.state === 'rejected');
      const late = rejectAsSeen(a.engine, request.id, APPROVER_A, 'too much');
      await gate.arrived;
      expect(await approveAsSeen(b.engine, request.id, APPROVER_B)).toMatchObject({ ok: true });
      await b.engine.idle();
      expect((await b.engine.get(request.id))?.state).toBe('sent');
      gate.release();
      expect(await late).toMatchObject({ ok: false, reason: 'already-sending' });
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(actions(stored)).toEqual(['filed', 'approved', 'executing', 'sent']);
      expect(a.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    });

    test('never sends a request rejected while its claim was being written', async ({ pair }) => {
      const { a, b, lapsed, withdrawal } = await pair('claim-reject');
      const request = await fileDraft(a.engine, withdrawal('107'));
      expect(await partsOf(a.engine).core.approve(request.id, APPROVER_A)).toMatchObject({ ok: true });
      const gate = lapsed.holdWrite((value) => value.state === 'executing');
      const late = partsOf(a.engine).executor.execute(request.id);
      await gate.arrived;
      expect(await rejectAsSeen(b.engine, request.id, APPROVER_B, 'wrong address')).toMatchObject({
        ok: true,
      });
      gate.release();
      expect(await late).toBeUndefined();
      await a.engine.idle();
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('rejected');
      expect(actions(stored)).toEqual(['filed', 'approved', 'rejected']);
      expect(a.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
    });

    test("records the executor's late answer onto what another replica wrote meanwhile", async ({ pair }) => {
      const { a, b, lapsed, withdrawal } = await pair('record');
      const request = await fileDraft(a.engine, withdrawal('104'));
      const gate = lapsed.holdWrite((value) => value.state === 'sent');
      expect(await approveAsSeen(a.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
      await gate.arrived;
      await partsOf(b.engine).core.attachMessage(request.id, 'C_APPROVALS', '1700000000.000100');
      gate.release();
      await a.engine.idle();
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(stored?.outcome?.reference).toBeTruthy();
      expect(stored?.announcement).toEqual({ channel: 'C_APPROVALS', ts: '1700000000.000100' });
      expect(actions(stored)).toEqual(['filed', 'approved', 'executing', 'sent']);
    });

    test("never turns another replica's sent request back into a stale approved copy", async ({ pair }) => {
      const { a, b, lapsed, withdrawal } = await pair('stale-approved');
      const request = await fileDraft(a.engine, withdrawal('105'));
      expect(await partsOf(b.engine).core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      const gate = lapsed.holdWrite((value) => value.state === 'approved');
      const late = partsOf(a.engine).core.attachMessage(request.id, 'C_APPROVALS', '1700000000.000200');
      await gate.arrived;
      expect((await partsOf(b.engine).executor.execute(request.id))?.state).toBe('sent');
      gate.release();
      await late;
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(stored?.announcement).toEqual({ channel: 'C_APPROVALS', ts: '1700000000.000200' });
      expect(actions(stored)).toEqual(['filed', 'approved', 'executing', 'sent']);
    });
  });
}

describe('a write refused every time', () => {
  test('gives up after a few fresh reads with an error, writing nothing and telling nobody', async ({
    startEngine,
    defer,
  }) => {
    const inner = await createStore('memory://');
    defer(() => inner.close());
    let refusals = 0;
    // Another replica changes the request between every read and write of this one.
    const store = new Proxy(inner, {
      get: (target, property) => {
        if (property === 'compareAndSet') {
          return async (key: string, expected: unknown, next: unknown) => {
            // The audit chain's head, the limits index and the service's request budget move by
            // compare-and-set too: only the request's writes are refused.
            if (
              key.startsWith('approvals:audit-head:') ||
              key.startsWith('approvals:limits:') ||
              key.startsWith('cngn:rate:')
            ) {
              return target.compareAndSet(key, expected, next);
            }
            if (!key.startsWith('approval:')) throw new Error(`unexpected compare-and-set of ${key}`);
            refusals += 1;
            return false;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const fx = await startEngine({ store });
    const [networkId] = await twoNetworks(fx.client);
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '106'));
    const told: string[] = [];
    fx.engine.onChange(async (r) => void told.push(r.history.at(-1)?.action ?? ''));
    await expect(approveAsSeen(fx.engine, request.id, APPROVER_A)).rejects.toThrow(WriteRefusedError);
    expect(refusals).toBe(MAX_SECTION_RUNS);
    expect(told).toEqual([]);
    expect((await fx.engine.get(request.id))?.state).toBe('pending');
    expect((await fx.engine.audit(10)).map((e) => e.action)).toEqual(['filed']);
  });
});
