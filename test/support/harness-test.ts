// The bot of startHarness as fixtures (vitest test.extend): `harness`, one for the test, stopped after
// it; `fileHarness`, one for the whole file, for tests that only read and ask (started by the first test
// that names it, stopped after the file's last).
import { test } from './fixtures.js';
import { startHarness } from './harness.js';

export const harnessTest = test
  .extend('harness', async ({ defer }) => {
    const harness = await startHarness();
    defer(() => harness.stop());
    return harness;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('fileHarness', { scope: 'file' }, async ({}, { onCleanup }) => {
    const harness = await startHarness();
    onCleanup(() => harness.stop());
    return harness;
  });
