// Fixtures (vitest test.extend) for the bot tests that bring their own fake Slack and store, or run two
// replicas on a shared store: `botTest` plus `slack`, a fake Slack; `store`, a memory store; and the
// store kinds of storesTest (`storeKinds`, `storeKind`, `replicas(name)`), so a file starts its replicas
// with `startApp` on them. Each is stopped after the test, after the bots started on it.
import { createStore } from '../../src/store/index.js';
import { botTest } from './bot.js';
import { FakeSlack } from './fake-slack.js';
import { fileStoreKinds, replicasOn, type StoreKindName } from './shared-stores.js';

export const approvalsTest = botTest
  .extend('slack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  .extend('store', async ({ defer }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    return store;
  })
  .extend('storeKinds', { scope: 'file' }, fileStoreKinds)
  .extend('storeKind', 'memory' as StoreKindName)
  .extend('replicas', replicasOn);
