// After the money call, the service's answer is written to the store. That write is retried (it is a
// store write, never the call) with backoff, so a store that fails a few times does not lose the
// answer; one that keeps failing gets the answer logged with its reference, and the sweep says the
// request was sent but not recorded, not that it was never started.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { AnswerNotRecordedError } from '../../src/approvals/executor.js';
import type { EngineLog } from '../../src/approvals/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { APPROVER_A, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

/**
 * `world(times, forMs)`: an engine whose store fails its writes of the request as sent `times` times
 * (Infinity: always), retrying them for forMs, and a withdrawal approved on it, not yet executed.
 */
const test = engineTest.extend(
  'world',
  async ({ startEngine, defer }) =>
    async (times: number, forMs: number) => {
      const inner = await createStore('memory://');
      defer(() => inner.close());
      let failures = 0;
      const store = new Proxy(inner, {
        get: (target, property) => {
          const value: unknown = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          if (property !== 'compareAndSet' && property !== 'set') return value.bind(target);
          return async (key: string, ...rest: unknown[]) => {
            const next = (property === 'set' ? rest[0] : rest[1]) as { state?: string } | undefined;
            if (key.startsWith('approval:') && next?.state === 'sent' && failures < times) {
              failures += 1;
              throw new Error('connection lost');
            }
            return (value as (...a: unknown[]) => Promise<unknown>).call(target, key, ...rest);
          };
        },
      }) as Store;
      const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
      const log: EngineLog = {
        warn: (message, fields) => void logged.push({ message, ...(fields ? { fields } : {}) }),
      };
      const fx = await startEngine({
        store,
        engine: { log, recordRetry: { firstDelayMs: 1, maxDelayMs: 4, forMs } },
      });
      const [networkId] = await twoNetworks(fx.client);
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '321'));
      await partsOf(fx.engine).core.approve(request.id, APPROVER_A);
      return { fx, id: request.id, logged, failures: () => failures };
    },
);

test('records the answer after the store failed its first writes, sending once', async ({ world }) => {
  const { fx, id, failures } = await world(3, 60_000);
  const done = await partsOf(fx.engine).executor.execute(id);
  expect(failures()).toBe(3);
  expect(done?.state).toBe('sent');
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  const stored = await fx.engine.get(id);
  expect(stored?.state).toBe('sent');
  expect(stored?.outcome?.reference).toMatch(/\S/);
});

test('logs the answer with its reference when the store never takes it, and the sweep says so', async ({
  world,
}) => {
  const { fx, id, logged } = await world(Number.POSITIVE_INFINITY, 20);
  await fx.engine.tick(); // the sweep starts it
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  const lost = logged.find((l) => l.message.startsWith('SERVICE ANSWER NOT RECORDED'));
  expect(lost?.fields).toMatchObject({
    requestId: id,
    result: 'sent',
    reference: expect.stringMatching(/\S/),
  });
  // Still executing under the lease: nothing was sent twice, and the lease running out reconciles it.
  expect((await fx.engine.get(id))?.state).toBe('executing');
  const swept = logged.find((l) => l.fields?.requestId === id && l.message.startsWith('service answered'));
  expect(swept?.message).toContain('not recorded');
  expect(swept?.fields?.error).toContain(AnswerNotRecordedError.name);
  expect(logged.map((l) => l.message)).not.toContain('approved request not started; will retry');
});
