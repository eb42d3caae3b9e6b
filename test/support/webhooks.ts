// The webhook tests' fixtures (vitest test.extend), on top of `test` (`defer`, `sandbox`):
// `startRig(options)` starts a webhook rig (webhook-rig.ts) and `startHarness(options)` the whole bot
// (harness.ts); each is stopped after the test, passed or failed. A rig stops what it
// made and leaves what it was given (a fake Slack, a store) to whoever started that; a test may stop
// a rig or a harness itself sooner (a restart), and the clean-up then does nothing more.

import { test } from './fixtures.js';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';
import { type Rig, type RigOptions, startRig } from './webhook-rig.js';

/** `stop` that runs once, whoever calls it first: the test (a restart) or the clean-up. */
function once<T extends unknown[]>(stop: (...args: T) => Promise<void>): (...args: T) => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (...args) => {
    stopping ??= stop(...args);
    return stopping;
  };
}

/** The `startRig` fixture, for a test built on other fixtures than `webhooksTest` (the stores'). */
export async function startRigFixture({
  defer,
}: {
  defer: (cleanup: () => unknown) => void;
}): Promise<(options?: RigOptions) => Promise<Rig>> {
  return async (options = {}) => {
    const rig = await startRig(options);
    const stop = once(rig.stop);
    defer(() => stop({ keepFake: options.fake !== undefined, keepStore: options.store !== undefined }));
    return { ...rig, stop };
  };
}

export const webhooksTest = test
  .extend('startRig', startRigFixture)
  .extend('startHarness', async ({ defer }) => async (options: HarnessOptions = {}): Promise<Harness> => {
    const harness = await startHarness(options);
    const stop = once(() => harness.stop());
    defer(stop);
    return { ...harness, stop };
  });
