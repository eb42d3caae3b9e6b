// A replica killed while it shows an approval step leaves the message's display lock behind until its
// lease runs out (live holders renew theirs). With a 2-minute lease, the restart's sweep — which tells
// the presenter when it takes over an interrupted request — waited 2 minutes behind the dead holder
// before it went on sending other approved requests (found by the proof suite's crash line on Redis and
// PostgreSQL). The display lock's lease is no longer than any other lock's.
import { expect } from 'vitest';
import { createStore, LOCK_DEFAULTS, type Store } from '../../../src/store/index.js';
import { test } from '../../support/fixtures.js';
import { APPROVER_A, approve, fileWithdrawal, startApprovalApp, waitUntil } from './support.js';

/** `recording`, a memory store that writes down every lock taken on it in `taken`, closed after the test. */
const it = test.extend('recording', async ({ defer }) => {
  const taken: Array<{ name: string; ttlMs: number | undefined }> = [];
  const store = await createStore('memory://');
  defer(() => store.close());
  const recording = new Proxy(store, {
    get: (target, property) => {
      if (property === 'withLock') {
        return (name: string, fn: () => Promise<unknown>, options?: Parameters<Store['withLock']>[2]) => {
          taken.push({ name, ttlMs: options?.ttlMs });
          return target.withLock(name, fn, options);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: recording, taken };
});

it("holds an approval message's display lock, if its holder dies, no longer than the default lock lease", async ({
  recording,
}) => {
  const app = await startApprovalApp({ store: recording.store });
  const id = await fileWithdrawal(app, '1500');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.stop();
  const shown = recording.taken.filter((lock) => lock.name.startsWith('approval-shown:'));
  expect(shown.length).toBeGreaterThan(0);
  for (const lock of shown)
    expect(lock.ttlMs ?? LOCK_DEFAULTS.ttlMs).toBeLessThanOrEqual(LOCK_DEFAULTS.ttlMs);
});
