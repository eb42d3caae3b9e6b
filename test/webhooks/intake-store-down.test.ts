// A signed delivery whose event cannot be stored is answered 503 in time — whether the store fails or
// never answers — and the log says the reconciler will find the event later; the sender (who waits
// 10 s and never retries) is never left without an answer.
import { expect } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import { recordingLogger, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest as test } from '../support/webhooks.js';

/**
 * The store the rig uses, whose writes `fail` or `hang` once `down` is true; the store under it is
 * closed after the test (the rig leaves a store it was given).
 */
async function storeThat(
  defer: (cleanup: () => unknown) => void,
  how: 'fail' | 'hang',
): Promise<{ store: Store; down: () => void }> {
  const inner = await createStore('memory://', { prefix: `wh-down-${Math.random()}` });
  defer(() => inner.close());
  let isDown = false;
  const store = new Proxy(inner, {
    get: (t, property) => {
      const value: unknown = Reflect.get(t, property, t);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (!isDown || property === 'close') return (value as (...a: unknown[]) => unknown).apply(t, args);
        return how === 'fail' ? Promise.reject(new Error('connection refused')) : new Promise(() => {});
      };
    },
  });
  return { store, down: () => (isDown = true) };
}

test.for(['fail', 'hang'] as const)(
  'answers 503 when the store writes %s, and logs that the reconciler will find the event',
  async (how, { defer, startRig }) => {
    const { store, down } = await storeThat(defer, how);
    const log = recordingLogger();
    const rig = await startRig({ store, deliver: false, log });
    down();
    const reply = await rig.send(webhookBody('deposit.completed'));
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toEqual({
      ok: false,
      error: 'could not store the event; try again later',
    });
    const errors = log.lines.filter((line) => line.startsWith('error '));
    expect(errors.some((e) => e.includes('the reconciler will find it in the transaction list later'))).toBe(
      true,
    );
  },
);
