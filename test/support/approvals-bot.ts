// Fixtures (vitest test.extend) for the bot tests that bring their own fake Slack and store, or run two
// replicas on a shared store: `botTest` plus `slack`, a fake Slack; `store`, a memory store; and the
// store kinds of storesTest (`storeKinds`, `storeKind`, `replicas(name)`, `oneReplica(name)`), so a
// file starts its replicas with `startApp` on them. Each is stopped after the test, after the bots
// started on it. `presenterTest` adds `boot()`, the whole bot on those with its presenter at hand.
import type { ApprovalPresenter } from '../../src/slack/approvals/presenter.js';
import { createStore } from '../../src/store/index.js';
import {
  APPROVER_A,
  APPROVER_B,
  type ApprovalApp,
  type ApprovalAppOptions,
} from '../slack/approvals/support.js';
import { botTest } from './bot.js';
import { FakeSlack } from './fake-slack.js';
import { fileStoreKinds, oneReplicaOn, replicasOn, type StoreKindName } from './shared-stores.js';

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
  .extend('replicas', replicasOn)
  .extend('oneReplica', oneReplicaOn);

/**
 * approvalsTest, and `boot()`: the whole bot on the test's sandbox, fake Slack and store, approvers A
 * and B at one approval each plus `bootOptions` (a file's own: `presenterTest.extend('bootOptions', …)`),
 * with its presenter; stopping it is a restart's first half.
 */
export const presenterTest = approvalsTest
  .extend('bootOptions', {} as ApprovalAppOptions)
  .extend(
    'boot',
    async ({ startApp, sandbox, slack, store, bootOptions }) =>
      async (): Promise<ApprovalApp & { presenter: ApprovalPresenter }> => {
        const app = await startApp({
          sandbox,
          slack,
          store,
          approvers: [APPROVER_A, APPROVER_B],
          tiers: '0:1',
          ...bootOptions,
        });
        const presenter = app.approvals?.presenter;
        if (!presenter) throw new Error('approvals are not wired');
        return { ...app, presenter };
      },
  );
