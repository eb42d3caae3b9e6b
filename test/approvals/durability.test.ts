// A crash between the writes of one step (the store has no multi-key transaction) never loses the
// step's audit entry, and never shows a step that did not happen.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { createStore } from '../../src/store/index.js';
import {
  APPROVER_A,
  type EngineFixture,
  startEngineFixture,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { CrashingStore } from './crashing-store.js';

let crashing: CrashingStore;
let fx: EngineFixture;
let networkId: string;

beforeEach(async () => {
  crashing = new CrashingStore(await createStore('memory://'));
  fx = await startEngineFixture({ store: crashing.store });
  [networkId] = await twoNetworks(fx.client);
});
afterEach(async () => {
  await fx.close();
  await crashing.inner.close();
});

const withdrawal = (amount: string) => withdrawalDraft(networkId, amount);

/** A request is written by a plain set (filing) or, inside a locked section, a compare-and-set. */
const isRequestWrite = (method: string) => method === 'set' || method === 'compareAndSet';

/** The audit log, as /cngn audit shows it, against the request's own history. */
async function auditOf(request: ApprovalRequest) {
  const audit = (await fx.engine.audit(50)).filter((e) => e.requestId === request.id);
  const history = (await fx.engine.get(request.id))?.history ?? [];
  return { audit: audit.map((e) => e.action), history: history.map((h) => h.action) };
}

it('keeps the audit entry of a step when the process dies right after writing it', async () => {
  const request = await fileDraft(fx.engine, withdrawal('120'));
  let requestWritten = false;
  crashing.crashAt((method, key) => {
    if (isRequestWrite(method) && key === `approval:${request.id}`) requestWritten = true;
    return requestWritten && !isRequestWrite(method) && method !== 'get' && method !== 'withLock';
  });
  await partsOf(fx.engine)
    .core.approve(request.id, APPROVER_A)
    .catch(() => undefined);
  crashing.disarm();
  const { audit, history } = await auditOf(request);
  expect(audit).toEqual(history);
});

it('never shows an audited step whose request write was lost', async () => {
  const request = await fileDraft(fx.engine, withdrawal('130'));
  crashing.crashAt((method, key) => isRequestWrite(method) && key === `approval:${request.id}`);
  await expect(partsOf(fx.engine).core.approve(request.id, APPROVER_A)).rejects.toThrow('died');
  expect((await fx.engine.get(request.id))?.state).toBe('pending');
  expect((await auditOf(request)).audit).toEqual(['filed']);
  // Clicked again, it goes through once and the log shows each step once.
  await fx.engine.approve(request.id, APPROVER_A);
  await fx.engine.idle();
  const { audit, history } = await auditOf(request);
  expect(audit).toEqual(['filed', 'approved', 'executing', 'sent']);
  expect(audit).toEqual(history);
});

it('says so when sending an approved request could not start, and the sweep sends it once', async () => {
  const request = await fileDraft(fx.engine, withdrawal('140'));
  let holds = 0;
  // The approval goes through; the store then fails as the background start takes the lock.
  crashing.crashAt(
    (method, key) => method === 'withLock' && key === `approval:${request.id}` && ++holds === 2,
  );
  expect(await fx.engine.approve(request.id, APPROVER_A)).toMatchObject({ ok: true });
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
