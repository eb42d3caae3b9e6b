// The periodic sweep goes on past one request it cannot handle now: a store that fails writing one
// request's expiry leaves that one for the next pass and still expires the others.
import { expect } from 'vitest';
import type { ApprovalCore } from '../../src/approvals/approval-core.js';
import type { EngineLog } from '../../src/approvals/index.js';
import { sweepInTurn } from '../../src/approvals/sweeps.js';
import { createStore, type Store } from '../../src/store/index.js';
import { DEST, REQUESTER, engineTest as test, twoNetworks } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

test('expires the other requests when one expiry cannot be written, and retries it next time', async ({
  startEngine,
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  let failing = '';
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'compareAndSet') return value.bind(target);
      return async (key: string, expected: unknown, next: { state?: string }) => {
        if (failing && key === `approval:${failing}` && next?.state === 'expired') {
          throw new Error('connection lost');
        }
        return target.compareAndSet(key, expected, next);
      };
    },
  }) as Store;
  const logged: string[] = [];
  const log: EngineLog = { warn: (message) => void logged.push(message) };
  const fx = await startEngine({ store, ttlMs: 3_600_000, engine: { log } });
  const [networkId] = await twoNetworks(fx.client);
  const file = (amount: string) =>
    fileDraft(fx.engine, {
      kind: 'withdraw',
      amount,
      payload: { amount, address: DEST, networkId, shouldSaveAddress: false },
      display: {},
      purpose: 'Supplier payout INV-2231',
      requester: REQUESTER,
    });
  const first = await file('101');
  fx.clock.advance(1_000);
  const second = await file('102');
  failing = first.id;
  fx.clock.advance(2 * 3_600_000);
  await fx.engine.tick();
  expect((await fx.engine.get(first.id))?.state).toBe('pending');
  expect((await fx.engine.get(second.id))?.state).toBe('expired');
  expect(logged).toContain('request not expired; will retry');
  failing = '';
  await fx.engine.tick();
  expect((await fx.engine.get(first.id))?.state).toBe('expired');
});

test('a replica still busy with a sweep leaves the next slot to another, which sweeps', async ({ defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  const core = { options: { store } } as unknown as ApprovalCore;
  const swept: string[] = [];
  const turn = (instance: string, busy: boolean) =>
    sweepInTurn(core, instance, 60_000, {
      daily: async () => {},
      sweep: async () => void swept.push(instance),
      busy: () => busy,
    });
  // Replica A's sweep of the last slot is still running (a long list read): it does not take this one.
  await turn('A', true)();
  await turn('B', false)();
  expect(swept).toEqual(['B']);
});
