// What stands unsealed is sealed once per environment, at its first start, and that once is on the
// audit chain (sealing-once.ts): a request whose seal a store writer took off after that start stays
// unsealed at every later start (store-writer-seals.test.ts); a chain that does not verify seals nothing.
import { describe, expect } from 'vitest';
import type { ApprovalEngine } from '../../src/approvals/index.js';
import { REQUESTS_SEALED, sealingBegun } from '../../src/approvals/sealing-once.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { fileDraft } from '../support/filing.js';
import { DAYO, auditKeyTest as test, withdrawal, withdrawCalls } from './delegation-support.js';
import { rewrite, unsealed } from './signed-support.js';

/** The `requests-sealed` entries of the engine's audit chain. */
async function sealingEntries(engine: ApprovalEngine): Promise<AuditEntry[]> {
  const entries = await engine.auditRange(undefined, undefined);
  return entries.filter((entry) => entry.action === REQUESTS_SEALED);
}

describe('with the audit signing key', () => {
  test('a request filed before requests were sealed is sealed at the first start, on the record, and sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    await rewrite(fx.store, request.id, unsealed, { audited: false });
    await engine.openTrail();
    expect((await engine.get(request.id))?.sealed).toBeDefined();
    expect(await sealingEntries(engine)).toMatchObject([{ kind: 'audit', subject: request.id }]);
    expect(engine.auditHealth()).toMatchObject({ checked: true, ok: true });
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });

  test('the second start seals nothing, and records nothing again', async ({ fx, engine, networkId }) => {
    const first = await fileDraft(engine, withdrawal(networkId, '1500'));
    await rewrite(fx.store, first.id, unsealed, { audited: false });
    await engine.openTrail();
    const later = await fileDraft(engine, withdrawal(networkId, '1600'));
    await engine.stop();
    await rewrite(fx.store, later.id, unsealed, { audited: false });

    const { engine: restarted } = await fx.another();
    await restarted.openTrail();
    expect((await restarted.get(first.id))?.sealed).toBeDefined();
    expect((await restarted.get(later.id))?.sealed).toBeUndefined();
    expect(await sealingEntries(restarted)).toMatchObject([{ subject: first.id }]);
    await restarted.stop();
  });

  test('a first start on a chain that does not verify seals nothing, and records nothing', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    // Written with an entry appended without the audit signing key: the head no longer verifies.
    await rewrite(fx.store, request.id, unsealed);
    await engine.openTrail();
    expect(engine.auditHealth()).toMatchObject({ checked: true, ok: false });
    expect((await engine.get(request.id))?.sealed).toBeUndefined();
    expect(await sealingEntries(engine)).toEqual([]);
  });
});

describe('sealing has begun', () => {
  const at = '2026-12-01T09:00:00.000Z';
  test('when the chain holds the entry, or starts with the marker of a retention cut', () => {
    const filed: AuditEntry = { at, kind: 'withdraw', action: 'filed', seq: 0, hash: 'a' };
    const sealedOnce: AuditEntry = { at, kind: 'audit', action: REQUESTS_SEALED, seq: 1, hash: 'b' };
    const cutMarker: AuditEntry = { at, kind: 'audit', action: 'cut', hash: 'c' };
    expect(sealingBegun([])).toBe(false);
    expect(sealingBegun([filed])).toBe(false);
    expect(sealingBegun([filed, sealedOnce])).toBe(true);
    expect(sealingBegun([cutMarker, filed])).toBe(true);
  });
});
