// The audit chain is append-only, so an entry written for a step whose save then lost stays in it. Such
// an entry is never credited to anyone: a step took effect only if its request's history holds it with
// the same time, action, actor and principal. And a write that is already known to lose (the request
// changed since the section read it) appends no entry at all. On every store kind.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WriteRefusedError } from '../../src/approvals/engine.js';
import type { AuditEntry } from '../../src/approvals/index.js';
import { transition } from '../../src/approvals/state-machine.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { testPrefix } from '../support/redis.js';
import { everyStore } from '../support/shared-stores.js';
import { APPROVER_A, APPROVER_B, startEngineFixture, twoNetworks, withdrawalDraft } from './fixture.js';

const kinds = await everyStore();
afterAll(async () => {
  for (const kind of kinds) await kind.dispose();
});

for (const kind of kinds) {
  describe.skipIf(!kind.up)(`audit entries of lost writes on ${kind.name}`, () => {
    let sandbox: Sandbox;
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

    async function engine(name: string) {
      const { a, close } = await kind.replicas(testPrefix(`took-effect-${name}`));
      cleanups.push(close);
      const fx = await startEngineFixture({ sandbox, store: a, tiers: '0:2' });
      cleanups.push(() => fx.close());
      const [networkId] = await twoNetworks(fx.client);
      return { fx, networkId };
    }

    it('never credits a step to someone else who wrote at the same moment', async () => {
      const { fx, networkId } = await engine('credit');
      const request = await fx.engine.file(withdrawalDraft(networkId, '201'));
      expect(await fx.engine.core.approve(request.id, APPROVER_A)).toMatchObject({ ok: true });
      const stored = await fx.engine.get(request.id);
      const step = stored?.history[1];
      expect(step).toMatchObject({ action: 'approval-added', actor: APPROVER_A });
      const base = {
        at: step?.at ?? '',
        requestId: request.id,
        kind: 'withdraw',
        action: 'approval-added',
        state: 'pending',
        step: 1,
        environment: 'sandbox',
      } satisfies AuditEntry;
      // What B's write of the same step, refused at the same millisecond, leaves just before A's entry.
      const lost: AuditEntry = { ...base, actor: APPROVER_B };
      const asDelegate: AuditEntry = { ...base, actor: APPROVER_A, onBehalfOf: APPROVER_B };
      const real: AuditEntry = { ...base, actor: APPROVER_A };
      expect(await fx.engine.auditTookEffect([lost, asDelegate, real])).toEqual([false, false, true]);
    });

    it('appends no entry for a write refused because the request changed since it was read', async () => {
      const { fx, networkId } = await engine('precheck');
      const request = await fx.engine.file(withdrawalDraft(networkId, '202'));
      const read = await fx.engine.get(request.id);
      if (!read) throw new Error('not filed');
      // Another replica rejects it while this one (its lock lapsed) still decides on what it read.
      expect(await fx.engine.reject(request.id, APPROVER_B, 'wrong address')).toMatchObject({ ok: true });
      const late = transition({ ...read, approvals: [{ user: APPROVER_A, at: read.createdAt }] }, 'pending', {
        action: 'approval-added',
        actor: APPROVER_A,
        at: new Date(),
      });
      await expect(fx.engine.core.write(read, late)).rejects.toThrow(WriteRefusedError);
      const chained = await fx.engine.core.repo.auditLog.entries('sandbox');
      expect(chained.filter((e) => e.requestId === request.id).map((e) => e.action)).toEqual([
        'filed',
        'rejected',
      ]);
      expect((await fx.engine.verifyAudit()).ok).toBe(true);
    });
  });
}
