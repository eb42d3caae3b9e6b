// A SIGTERM while the store is down just after money went out: the answer's write is being retried
// (for minutes, by design), but shutdown waits only its drain bound, then leaves loudly, with the
// reference in the log. After a restart, recovery finds the request sent but unrecorded, calls it
// outcome unknown and finds it in the transaction list: recorded, never sent again. On every store.
import { describe, expect } from 'vitest';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import type { EngineLog } from '../../src/approvals/index.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, engineTest as test, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

/** The store, unreachable while `outage.down` (every call fails, as on a lost connection). */
function withOutage(inner: Store) {
  const outage = { down: false };
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'close') return value.bind(target);
      return (...args: unknown[]) =>
        outage.down
          ? Promise.reject(new Error('store unreachable'))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  }) as Store;
  return { store, outage };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`shutdown during a store outage after the call on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('stops within its bound, logs the unrecorded reference, and recovery records it after a restart, sending once', async ({
      oneReplica,
      startEngine,
      sandbox,
    }) => {
      const a = await oneReplica(`shutdown-unrecorded-${kind.name}`);
      const { store, outage } = withOutage(a);
      const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const log: EngineLog = {
        warn: (message, fields) => void logged.push({ message, ...(fields ? { fields } : {}) }),
      };
      // The default retry of the answer's write: up to five minutes.
      const fx = await startEngine({ store, engine: { log } });
      const [networkId] = await twoNetworks(fx.client);
      // The store goes down the moment the service has answered the money call.
      const send = fx.client.withdraw.bind(fx.client);
      fx.client.withdraw = async (input) => {
        const answer = await send(input);
        outage.down = true;
        return answer;
      };
      const posted = sandbox.count('POST', '/v1/api/withdraw');
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '321'));
      expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
      await until(() => logged.some((l) => l.message.startsWith('service answer not recorded yet')));

      const began = Date.now();
      await fx.engine.stop({ drainMs: 200 }); // SIGTERM
      expect(Date.now() - began).toBeLessThan(5_000);
      const lost = logged.find((l) => l.message.startsWith('SERVICE ANSWER NOT RECORDED at shutdown'));
      expect(lost?.fields).toMatchObject({ requestId: request.id, result: 'sent' });
      const reference = lost?.fields?.reference;
      expect(reference).toMatch(/\S/);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(posted + 1);

      // The store is back; the bot starts again. Its lease could not be ended: it runs out.
      outage.down = false;
      fx.clock.advance(EXECUTION_LEASE_MS + 1_000);
      const { engine: restarted } = await fx.another({ engine: { log } });
      await restarted.start();
      await restarted.stop();
      const stored = await restarted.get(request.id);
      expect(stored?.state).toBe('sent');
      expect(stored?.outcome?.reference).toBe(reference);
      expect(stored?.history.map((h) => h.action)).toEqual([
        'filed',
        'approved',
        'executing',
        'interrupted',
        'reconciled',
      ]);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(posted + 1);
    });
  });
}
