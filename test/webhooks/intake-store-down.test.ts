// A signed delivery whose event cannot be stored is answered 503 in time — whether the store fails or
// never answers — and the log says the reconciler will find the event later; the sender (who waits
// 10 s and never retries) is never left without an answer.
import { afterEach, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import { type Rig, recordingLogger, startRig, webhookBody } from './support.js';

let rig: Rig | undefined;
let inner: Store | undefined;

afterEach(async () => {
  await rig?.stop({ keepStore: true });
  await inner?.close();
  rig = undefined;
});

/** The store the rig uses, whose writes `fail` or `hang` once `down` is true. */
async function storeThat(how: 'fail' | 'hang'): Promise<{ store: Store; down: () => void }> {
  inner = await createStore('memory://', { prefix: `wh-down-${Math.random()}` });
  const target = inner;
  let isDown = false;
  const store = new Proxy(target, {
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

it.each(['fail', 'hang'] as const)(
  'answers 503 when the store writes %s, and logs that the reconciler will find the event',
  async (how) => {
    const { store, down } = await storeThat(how);
    const log = recordingLogger();
    rig = await startRig({ store, deliver: false, log });
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
