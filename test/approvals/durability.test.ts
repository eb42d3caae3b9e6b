// A crash between the writes of one step (the store has no multi-key transaction) never loses the
// step's audit entry, and never shows a step that did not happen.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, type EngineFixture, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { crashingTest as test } from './crashing-store.js';

/** A request is written by a plain set (filing) or, inside a locked section, a compare-and-set. */
const isRequestWrite = (method: string) => method === 'set' || method === 'compareAndSet';

/** The audit log, as /cngn audit shows it, against the request's own history. */
async function auditOf(fx: EngineFixture, request: ApprovalRequest) {
  const audit = (await fx.engine.audit(50)).filter((e) => e.requestId === request.id);
  const history = (await fx.engine.get(request.id))?.history ?? [];
  return { audit: audit.map((e) => e.action), history: history.map((h) => h.action) };
}

test('keeps the audit entry of a step when the process dies right after writing it', async ({
  fx,
  crashing,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '120'));
  let requestWritten = false;
  crashing.crashAt((method, key) => {
    if (isRequestWrite(method) && key === `approval:${request.id}`) requestWritten = true;
    return requestWritten && !isRequestWrite(method) && method !== 'get' && method !== 'withLock';
  });
  await partsOf(fx.engine)
    .core.approve(request.id, APPROVER_A)
    .catch(() => undefined);
  crashing.disarm();
  const { audit, history } = await auditOf(fx, request);
  expect(audit).toEqual(history);
});

test('never shows an audited step whose request write was lost', async ({ fx, crashing, networkId }) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '130'));
  crashing.crashAt((method, key) => isRequestWrite(method) && key === `approval:${request.id}`);
  await expect(partsOf(fx.engine).core.approve(request.id, APPROVER_A)).rejects.toThrow('died');
  expect((await fx.engine.get(request.id))?.state).toBe('pending');
  expect((await auditOf(fx, request)).audit).toEqual(['filed']);
  // Clicked again, it goes through once and the log shows each step once.
  await approveAsSeen(fx.engine, request.id, APPROVER_A);
  await fx.engine.idle();
  const { audit, history } = await auditOf(fx, request);
  expect(audit).toEqual(['filed', 'approved', 'executing', 'sent']);
  expect(audit).toEqual(history);
});

test('says so when sending an approved request could not start, and the sweep sends it once', async ({
  fx,
  crashing,
  networkId,
}) => {
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '140'));
  let holds = 0;
  // The approval goes through; the store then fails as the background start takes the lock.
  crashing.crashAt(
    (method, key) => method === 'withLock' && key === `approval:${request.id}` && ++holds === 2,
  );
  expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
  await fx.engine.idle();
  const told = await fx.engine.get(request.id);
  expect(told?.state).toBe('approved');
  expect(told?.history.at(-1)).toMatchObject({ action: 'execution-delayed' });
  expect(told?.history.at(-1)?.note).toContain('nothing was sent');
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  await fx.engine.tick();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});
