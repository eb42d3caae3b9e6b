// A replica killed while it shows an approval step leaves the message's display lock behind until its
// lease runs out (live holders renew theirs). With a 2-minute lease, the restart's sweep — which tells
// the presenter when it takes over an interrupted request — waited 2 minutes behind the dead holder
// before it went on sending other approved requests (found by the proof suite's crash line on Redis and
// PostgreSQL). The display lock's lease is no longer than any other lock's.
import { afterAll, expect, it } from 'vitest';
import { createStore, LOCK_DEFAULTS, type Store } from '../../../src/store/index.js';
import { APPROVER_A, approve, fileWithdrawal, startApprovalApp, waitUntil } from './support.js';

const taken: Array<{ name: string; ttlMs: number | undefined }> = [];
const store = await createStore('memory://');
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
afterAll(() => store.close());

it("holds an approval message's display lock, if its holder dies, no longer than the default lock lease", async () => {
  const app = await startApprovalApp({ store: recording });
  const id = await fileWithdrawal(app, '1500');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'sent');
  await app.engine.idle();
  await app.stop();
  const shown = taken.filter((lock) => lock.name.startsWith('approval-shown:'));
  expect(shown.length).toBeGreaterThan(0);
  for (const lock of shown)
    expect(lock.ttlMs ?? LOCK_DEFAULTS.ttlMs).toBeLessThanOrEqual(LOCK_DEFAULTS.ttlMs);
});
