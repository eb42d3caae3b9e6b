// The bot with a fake Slack and the embedded sandbox as fixtures (vitest test.extend): `startApp`
// starts the whole bot with approvals wired (startApprovalApp: its own memory store, sandbox and fake
// Slack unless given) and stops it after the test; `app` is one with the defaults; `startControlledApp`
// starts one on a memory store the test controls through `controls` (hold a lock, fail reads, slow
// writes, lose an answer) and `controlledApp` is one such with the defaults.
import { createStore } from '../../src/store/index.js';
import { type ApprovalAppOptions, startApprovalApp } from '../slack/approvals/support.js';
import { test } from './fixtures.js';
import { StoreControls } from './store-controls.js';

export const botTest = test
  .extend('startApp', async ({ defer }) => async (options: ApprovalAppOptions = {}) => {
    const app = await startApprovalApp(options);
    defer(() => app.stop());
    return app;
  })
  .extend('app', async ({ startApp }) => startApp())
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('controls', async ({}) => new StoreControls())
  .extend(
    'startControlledApp',
    async ({ startApp, controls, defer }) =>
      async (options: ApprovalAppOptions = {}) => {
        const store = await createStore('memory://');
        defer(() => store.close());
        return { app: await startApp({ ...options, store: controls.wrap(store) }), store };
      },
  )
  .extend('controlledApp', async ({ startControlledApp }) => startControlledApp());
