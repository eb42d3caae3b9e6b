// A reconciliation pass settles each outcome-unknown request on its own: a request whose step keeps
// failing (its store write refused, pass after pass) is logged with its id and tried again on a later
// pass, and every other request of the pass is still reconciled.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { CLAIM_LEASE_MS } from '../../src/approvals/executor.js';
import { type EngineLog, LOOKED_UP_BEFORE_SENDING } from '../../src/approvals/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  Clock,
  engineOn,
  engineTest,
  withdrawalDraft,
  withdrawCalls,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { withdrawDirectly } from './lookup-support.js';

// The service's list keeps the engine's time, so what it made ages with the engine's clock.
const time: { clock?: Clock } = {};
const test = engineTest.extend('sandboxOptions', {
  now: () => (time.clock ?? new Clock()).now().getTime(),
});

interface Written {
  history?: Array<{ action?: string }>;
}

/** A memory store that refuses every write of `failing.id`'s record that adds the step `action`. */
async function refusingSteps(defer: (cleanup: () => unknown) => void, action: string) {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  const failing = { id: '' };
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'compareAndSet') return value.bind(target);
      return async (key: string, expected: unknown, next: Written) => {
        const adds = next?.history?.some((step) => step.action === action);
        if (failing.id && key === `approval:${failing.id}` && adds) throw new Error('connection lost');
        return target.compareAndSet(key, expected, next);
      };
    },
  }) as Store;
  return { store, failing };
}

test("reconciles the others in the same pass while one parked request's notice cannot be written", async ({
  startEngine,
  defer,
}) => {
  const { store, failing } = await refusingSteps(defer, 'needs-manual-check');
  const logged: Array<{ message: string; fields: unknown }> = [];
  const log: EngineLog = { warn: (message, fields) => void logged.push({ message, fields }) };
  const { fx, networkId } = await engineOn(startEngine, { store, engine: { log } });
  time.clock = fx.clock;
  defer(() => delete time.clock);

  // Approved and never sent; two payments alike made meanwhile: the late lookup parks it for a person.
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, '4321.29'));
  const approved = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!approved.ok || approved.request.state !== 'approved') throw new Error('not approved');
  await withdrawDirectly(fx, networkId, '4321.29');
  await withdrawDirectly(fx, networkId, '4321.29');
  failing.id = filed.id;
  fx.clock.advance(CLAIM_LEASE_MS + 1_000);
  await fx.engine.tick();
  await fx.engine.idle();
  const parked = await fx.engine.get(filed.id);
  expect(parked?.state).toBe('outcome-unknown');
  expect(parked?.history.map((h) => h.action)).toContain(LOOKED_UP_BEFORE_SENDING);
  expect(parked?.history.map((h) => h.action)).not.toContain('needs-manual-check');

  // Another withdrawal whose answer was lost: the service made it, and lists it.
  fx.clock.advance(10 * 60_000);
  fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
  const lost = await fileDraft(fx.engine, withdrawalDraft(networkId, '1234.57'));
  await approveAsSeen(fx.engine, lost.id, APPROVER_A);
  await fx.engine.idle();
  expect((await fx.engine.get(lost.id))?.state).toBe('outcome-unknown');

  logged.length = 0;
  await fx.engine.tick();
  await fx.engine.idle();
  const found = await fx.engine.get(lost.id);
  expect(found?.history.map((h) => h.action)).toContain('reconciled');
  expect(['sent', 'completed']).toContain(found?.state);
  // The one that failed is said by its id, and is still waiting for its notice.
  expect(logged.some((l) => JSON.stringify(l.fields ?? {}).includes(filed.id))).toBe(true);
  expect((await fx.engine.get(filed.id))?.history.map((h) => h.action)).not.toContain('needs-manual-check');

  // The store takes its writes again: a later pass asks the person, once, and nothing is ever sent.
  failing.id = '';
  fx.clock.advance(60 * 60_000);
  await fx.engine.tick();
  await fx.engine.idle();
  const asked = (await fx.engine.get(filed.id))?.history.filter((h) => h.action === 'needs-manual-check');
  expect(asked).toHaveLength(1);
  expect((await fx.engine.get(filed.id))?.state).toBe('outcome-unknown');
  expect(withdrawCalls(fx)).toBe(3);
});

test('settles the others in the same pass while one match cannot be written', async ({
  startEngine,
  defer,
}) => {
  const { store, failing } = await refusingSteps(defer, 'reconciled');
  const logged: Array<{ message: string; fields: unknown }> = [];
  const log: EngineLog = { warn: (message, fields) => void logged.push({ message, fields }) };
  const { fx, networkId } = await engineOn(startEngine, { store, engine: { log } });
  time.clock = fx.clock;
  defer(() => delete time.clock);
  // Two withdrawals whose answers were lost; the service made both, and lists them.
  const lost = async (amount: string) => {
    fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
    await approveAsSeen(fx.engine, filed.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(filed.id))?.state).toBe('outcome-unknown');
    return filed.id;
  };
  const first = await lost('1111.11');
  const second = await lost('2222.22');
  failing.id = first;
  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(second))?.history.map((h) => h.action)).toContain('reconciled');
  expect((await fx.engine.get(first))?.state).toBe('outcome-unknown');
  expect(logged.some((l) => JSON.stringify(l.fields ?? {}).includes(first))).toBe(true);
  // Written again on a later pass, once the store takes it; nothing is ever sent again.
  failing.id = '';
  fx.clock.advance(60 * 60_000);
  await fx.engine.tick();
  await fx.engine.idle();
  expect((await fx.engine.get(first))?.history.map((h) => h.action)).toContain('reconciled');
  expect(withdrawCalls(fx)).toBe(2);
});
