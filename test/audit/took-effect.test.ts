// The audit chain is append-only, so an entry written for a step whose save then lost stays in it. Such
// an entry is never credited to anyone: a step took effect only if its request's history holds it with
// the same time, action, actor and principal. And a write that is already known to lose (the request
// changed since the section read it) appends no entry at all. On every store kind.
import { describe, expect } from 'vitest';
import { WriteRefusedError } from '../../src/approvals/approval-core.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { transition } from '../../src/approvals/state-machine.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, APPROVER_B, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

/** An engine (needing two approvals) on replica A of the store, and the network to withdraw on. */
const test = engineTest.extend('engine', async ({ oneReplica, startEngine }) => async (name: string) => {
  const a = await oneReplica(`took-effect-${name}`);
  const fx = await startEngine({ store: a, tiers: '0:2' });
  const [networkId] = await twoNetworks(fx.client);
  return { fx, networkId };
});

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`audit entries of lost writes on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('never credits a step to someone else who wrote at the same moment', async ({ engine }) => {
      const { fx, networkId } = await engine('credit');
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '201'));
      expect(await partsOf(fx.engine).core.approve(request.id, APPROVER_A)).toMatchObject({ ok: true });
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

    test('appends no entry for a write refused because the request changed since it was read', async ({
      engine,
    }) => {
      const { fx, networkId } = await engine('precheck');
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '202'));
      const read = await fx.engine.get(request.id);
      if (!read) throw new Error('not filed');
      // Another replica rejects it while this one (its lock lapsed) still decides on what it read.
      expect(await rejectAsSeen(fx.engine, request.id, APPROVER_B, 'wrong address')).toMatchObject({
        ok: true,
      });
      const late = transition({ ...read, approvals: [{ user: APPROVER_A, at: read.createdAt }] }, 'pending', {
        action: 'approval-added',
        actor: APPROVER_A,
        at: new Date(),
      });
      await expect(partsOf(fx.engine).core.write(read, late)).rejects.toThrow(WriteRefusedError);
      const chained = await partsOf(fx.engine).core.repo.auditLog.entries('sandbox');
      expect(chained.filter((e) => e.requestId === request.id).map((e) => e.action)).toEqual([
        'filed',
        'rejected',
      ]);
      expect((await fx.engine.verifyAudit()).ok).toBe(true);
    });
  });
}
