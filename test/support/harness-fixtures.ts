// The harness (the real bot over HTTP with a fake Slack and the embedded sandbox, test/support/harness.ts)
// and the fuzz bot as fixtures on botTest (vitest test.extend): `h`, one harness with the defaults for
// the whole file; `harness`, one of the test's own with the defaults; `startHarness(options)`, one of the test's own, stopped after the test; `fuzzBot`, one
// fuzz bot for the whole file. A test may stop its own harness (to see what stopping does); it is
// not stopped twice. A file whose shared bot needs other settings extends with
// `fileHarness(options)` or `fileFuzzBot(options)` under a name of its own: a top-level
// `test.override` would change the fixtures of this module, which the next files of the worker share.
import { botTest } from './bot.js';
import { type FuzzBot, startFuzzBot } from './fuzz.js';
import { type Harness, type HarnessOptions, startHarness } from './harness.js';

type FileCleanup = { onCleanup: (cleanup: () => Promise<void>) => void };

/** A file-scoped fixture: one harness with `options`, started for the file's first test that names it. */
export function fileHarness(options: HarnessOptions = {}) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  return async ({}: object, { onCleanup }: FileCleanup): Promise<Harness> => {
    const h = await startHarness(options);
    onCleanup(() => h.stop());
    return h;
  };
}

/** A file-scoped fixture: one fuzz bot with `options` (its log lines and the process's faults kept). */
export function fileFuzzBot(options: HarnessOptions = {}) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  return async ({}: object, { onCleanup }: FileCleanup): Promise<FuzzBot> => {
    const bot = await startFuzzBot(options);
    onCleanup(() => bot.stop());
    return bot;
  };
}

export const harnessTest = botTest
  .extend('h', { scope: 'file' }, fileHarness())
  .extend('harness', async ({ defer }) => {
    const harness = await startHarness();
    defer(() => harness.stop());
    return harness;
  })
  .extend('fuzzBot', { scope: 'file' }, fileFuzzBot())
  .extend('startHarness', async ({ defer }) => async (options: HarnessOptions = {}) => {
    const h = await startHarness(options);
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= h.stop();
      return stopping;
    };
    defer(stop);
    return { ...h, stop };
  });
