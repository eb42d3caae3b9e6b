// A freeze is told to its listeners (the approvals channel, banners, DMs) once, by the first run whose
// pass over claims completes: a `/cngn freeze` or CNGN_START_FROZEN start whose pass stopped on a store
// error has its record written already, and the retry that completes the pass, answered "already
// frozen", tells it then; a freeze told already is not told again.
import { expect } from 'vitest';
import type { FreezeChange } from '../../src/approvals/freeze.js';
import { START_FROZEN_ACTOR } from '../../src/approvals/freeze.js';
import { createStore } from '../../src/store/index.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  type EngineFixtureOptions,
  engineTest as test,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { StoreControls } from '../support/store-controls.js';

/** An engine on a store whose reads of one open request fail until `restore()`; and what it heard. */
async function withFailingPass(
  startEngine: (options: EngineFixtureOptions) => Promise<EngineFixture>,
  defer: (cleanup: () => Promise<void> | void) => void,
) {
  const memory = await createStore('memory://');
  defer(() => memory.close());
  const controls = new StoreControls();
  const fx = await startEngine({ store: controls.wrap(memory) });
  const [networkId] = await twoNetworks(fx.client);
  const pending = await fileDraft(fx.engine, withdrawalDraft(networkId ?? '', '1500'));
  await fx.engine.idle();
  const heard: FreezeChange[] = [];
  fx.engine.onFreezeChange(async (change) => {
    heard.push(change);
  });
  // The pass over claims reads every open request: this one's read fails.
  const restore = controls.failReads(`approval:${pending.id}`);
  return { fx, heard, restore };
}

test('a /cngn freeze whose pass failed is told once by the retry that completes it', async ({
  startEngine,
  defer,
}) => {
  const { fx, heard, restore } = await withFailingPass(startEngine, defer);
  await expect(fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address')).rejects.toThrow();
  restore();
  expect(await fx.engine.currentFreeze()).toMatchObject({ by: APPROVER_B });
  expect(await fx.engine.freezeSends(APPROVER_A, 'retrying the freeze that errored')).toMatchObject({
    ok: false,
    reason: 'already-frozen',
  });
  await fx.engine.idle();
  expect(heard).toEqual([{ frozen: expect.objectContaining({ by: APPROVER_B }), underway: [] }]);
  // Told already: a third run says "already frozen" and tells no one again.
  await fx.engine.freezeSends(APPROVER_A, 'is it still frozen?');
  await fx.engine.idle();
  expect(heard).toHaveLength(1);
});

test('a start-up freeze whose pass failed is told by the next start', async ({ startEngine, defer }) => {
  const { fx, heard, restore } = await withFailingPass(startEngine, defer);
  await expect(fx.engine.freezeAtStart()).rejects.toThrow();
  restore();
  const again = await fx.engine.freezeAtStart();
  again.announce();
  await fx.engine.idle();
  expect(heard).toEqual([{ frozen: expect.objectContaining({ by: START_FROZEN_ACTOR }), underway: [] }]);
  // A later start with the freeze told already announces nothing.
  (await fx.engine.freezeAtStart()).announce();
  await fx.engine.idle();
  expect(heard).toHaveLength(1);
});
