// A replica whose request lock lapsed mid-section (a GC pause, a slow store, a renewal stuck behind a
// busy pool) and which writes late never overwrites what another replica wrote meanwhile: its write
// is conditional on what it read, so it is refused, and the step is decided again on the fresh
// request. On every store kind: the lapse is simulated by a lock that keeps nobody out.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SECTION_RUNS, WriteRefusedError } from '../../src/approvals/engine.js';
import type { ApprovalRequest, RequestDraft } from '../../src/approvals/index.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { LapsedLock } from '../support/lapsed-lock.js';
import { testPrefix } from '../support/redis.js';
import { everyStore } from '../support/shared-stores.js';
import { APPROVER_A, APPROVER_B, DEST, REQUESTER, startEngineFixture, twoNetworks } from './fixture.js';

const kinds = await everyStore();
afterAll(async () => {
  for (const kind of kinds) await kind.dispose();
});

for (const kind of kinds) {
  describe.skipIf(!kind.up)(`a late write under a lapsed lock on ${kind.name}`, () => {
    let sandbox: Sandbox;
    let networkId: string;
    const cleanups: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    afterAll(async () => {
      await sandbox.stop();
    });

    /** Replica A (its lock lapses, its writes can be held) and replica B, on one store. */
    async function replicas(name: string, tiers = '0:1') {
      const { a, b, close } = await kind.replicas(testPrefix(`lapsed-${name}`));
      cleanups.push(close);
      const lapsed = new LapsedLock();
      const fa = await startEngineFixture({ sandbox, store: lapsed.wrap(a), tiers });
      cleanups.push(() => fa.close());
      const fb = await startEngineFixture({ sandbox, store: b, tiers });
      cleanups.push(() => fb.close());
      [networkId] = await twoNetworks(fa.client);
      return { a: fa, b: fb, lapsed };
    }
    const withdrawal = (amount: string): RequestDraft => ({
      kind: 'withdraw',
      amount,
      payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
      display: {},
      requester: REQUESTER,
    });
    const actions = (request: ApprovalRequest | undefined) => request?.history.map((h) => h.action);

    it('never undoes a rejection with a late approval (nothing is sent)', async () => {
      const { a, b, lapsed } = await replicas('approve-reject');
      const request = await a.engine.file(withdrawal('101'));
      const gate = lapsed.holdWrite((value) => value.state === 'approved');
      const late = a.engine.approve(request.id, APPROVER_A);
      await gate.arrived;
      expect(await b.engine.reject(request.id, APPROVER_B, 'wrong address')).toMatchObject({ ok: true });
      gate.release();
      expect(await late).toMatchObject({ ok: false, reason: 'not-pending' });
      await a.engine.idle();
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('rejected');
      expect(actions(stored)).toEqual(['filed', 'rejected']);
    });

    it('never loses another approval: the late one is added to it', async () => {
      const { a, b, lapsed } = await replicas('approve-approve', '0:2');
      const request = await a.engine.file(withdrawal('102'));
      const gate = lapsed.holdWrite(
        (value) => Array.isArray(value.approvals) && value.approvals.length === 1,
      );
      const late = a.engine.core.approve(request.id, APPROVER_A);
      await gate.arrived;
      expect(await b.engine.core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      gate.release();
      expect(await late).toMatchObject({ ok: true });
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('approved');
      expect(stored?.approvals.map((x) => x.user)).toEqual([APPROVER_B, APPROVER_A]);
      expect(actions(stored)).toEqual(['filed', 'approval-added', 'approved']);
    });

    it('never undoes an approval with a late rejection', async () => {
      const { a, b, lapsed } = await replicas('reject-approve');
      const request = await a.engine.file(withdrawal('103'));
      const gate = lapsed.holdWrite((value) => value.state === 'rejected');
      const late = a.engine.reject(request.id, APPROVER_A, 'too much');
      await gate.arrived;
      expect(await b.engine.core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      gate.release();
      expect(await late).toMatchObject({ ok: false, reason: 'not-pending' });
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('approved');
      expect(actions(stored)).toEqual(['filed', 'approved']);
    });

    it("records the executor's late answer onto what another replica wrote meanwhile", async () => {
      const { a, b, lapsed } = await replicas('record');
      const request = await a.engine.file(withdrawal('104'));
      const gate = lapsed.holdWrite((value) => value.state === 'sent');
      expect(await a.engine.approve(request.id, APPROVER_A)).toMatchObject({ ok: true });
      await gate.arrived;
      await b.engine.core.attachMessage(request.id, 'C_APPROVALS', '1700000000.000100');
      gate.release();
      await a.engine.idle();
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(stored?.outcome?.reference).toBeTruthy();
      expect(stored?.slackMessage).toEqual({ channel: 'C_APPROVALS', ts: '1700000000.000100' });
      expect(actions(stored)).toEqual(['filed', 'approved', 'executing', 'sent']);
    });

    it("never turns another replica's sent request back into a stale approved copy", async () => {
      const { a, b, lapsed } = await replicas('stale-approved');
      const request = await a.engine.file(withdrawal('105'));
      expect(await b.engine.core.approve(request.id, APPROVER_B)).toMatchObject({ ok: true });
      const gate = lapsed.holdWrite((value) => value.state === 'approved');
      const late = a.engine.core.attachMessage(request.id, 'C_APPROVALS', '1700000000.000200');
      await gate.arrived;
      expect((await b.engine.executor.execute(request.id))?.state).toBe('sent');
      gate.release();
      await late;
      const stored = await b.engine.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(stored?.slackMessage).toEqual({ channel: 'C_APPROVALS', ts: '1700000000.000200' });
      expect(actions(stored)).toEqual(['filed', 'approved', 'executing', 'sent']);
    });
  });
}

describe('a write refused every time', () => {
  it('gives up after a few fresh reads with an error, writing nothing and telling nobody', async () => {
    const inner = await createStore('memory://');
    let refusals = 0;
    // Another replica changes the request between every read and write of this one.
    const store = new Proxy(inner, {
      get: (target, property) => {
        if (property === 'compareAndSet') {
          return async (key: string, expected: unknown, next: unknown) => {
            // The audit chain's head moves by compare-and-set too: only the request's writes are refused.
            if (key.startsWith('approvals:audit-head:')) return target.compareAndSet(key, expected, next);
            if (!key.startsWith('approval:')) throw new Error(`unexpected compare-and-set of ${key}`);
            refusals += 1;
            return false;
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const fx = await startEngineFixture({ store });
    try {
      const [networkId] = await twoNetworks(fx.client);
      const request = await fx.engine.file({
        kind: 'withdraw',
        amount: '106',
        payload: { amount: '106', address: DEST, networkId, shouldSaveAddress: false },
        display: {},
        requester: REQUESTER,
      });
      const told: string[] = [];
      fx.engine.onChange(async (r) => void told.push(r.history.at(-1)?.action ?? ''));
      await expect(fx.engine.approve(request.id, APPROVER_A)).rejects.toThrow(WriteRefusedError);
      expect(refusals).toBe(MAX_SECTION_RUNS);
      expect(told).toEqual([]);
      expect((await fx.engine.get(request.id))?.state).toBe('pending');
      expect((await fx.engine.audit(10)).map((e) => e.action)).toEqual(['filed']);
    } finally {
      await fx.close();
      await inner.close();
    }
  });
});
