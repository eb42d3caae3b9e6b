// Freezing is the safe direction: a /cngn freeze is written whether or not the signed audit chain's
// freeze can be read, when its read fails or does not answer.
import { expect, test } from 'vitest';
import { FreezeSwitch } from '../../src/approvals/freeze.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { createStore } from '../../src/store/index.js';

async function switchReading(read: () => Promise<never>) {
  const store = await createStore('memory://');
  const repo = new ApprovalRepository(store, 'sandbox');
  const freeze = new FreezeSwitch({
    store,
    repo,
    auditLog: repo.auditLog,
    now: () => new Date(),
    onChain: read,
  });
  return { store, freeze };
}

test('a freeze is written when the chain cannot be read', async () => {
  const { store, freeze } = await switchReading(() => Promise.reject(new Error('chain unreadable')));
  expect(await freeze.freeze('U_BOLA', 'checking a look-alike address')).toMatchObject({ ok: true });
  expect(await store.get('approvals:freeze:sandbox')).toMatchObject({ state: 'frozen', by: 'U_BOLA' });
  await store.close();
});

test('a freeze is written when the chain read never answers', async () => {
  const { store, freeze } = await switchReading(() => new Promise<never>(() => {}));
  expect(await freeze.freeze('U_BOLA', 'checking a look-alike address')).toMatchObject({ ok: true });
  expect(await store.get('approvals:freeze:sandbox')).toMatchObject({ state: 'frozen', by: 'U_BOLA' });
  await store.close();
});
