// The production build counts its two builds (the bot and the passkey pages) with every other esbuild
// build in the process (src/esbuild-builds.mjs): the count returns to where it was however the build
// ends, and esbuild's service, which stop() would end with every build still under way, is stopped only
// once neither is building; a service that will not stop changes no build's outcome.
import type { BuildOptions } from 'esbuild';
import { test as base, describe, expect, vi } from 'vitest';
import { build } from '../scripts/build.mjs';
import { buildsUnderWay, buildThenStop } from '../src/esbuild-builds.mjs';

// Never written: each build here fails before the build writes anything.
const OUTFILE = 'dist/test-esbuild-builds/main.js';

type Which = 'bot' | 'pages';

const test = base
  /**
   * An esbuild whose builds stay under way until the test answers them (`answer(which, error?)`);
   * what is still under way when the test ends fails then, so the count goes back.
   */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('esbuild', async ({}, { onCleanup }) => {
    const underWay = new Map<Which, { resolve: (result: never) => void; reject: (error: Error) => void }>();
    const esbuild = {
      build: vi.fn(
        (options: BuildOptions) =>
          new Promise<never>((resolve, reject) => {
            underWay.set(options.platform === 'browser' ? 'pages' : 'bot', { resolve, reject });
          }),
      ),
      stop: vi.fn(),
      answer(which: Which, error?: Error) {
        const build = underWay.get(which);
        if (!build) throw new Error(`no ${which} build under way`);
        underWay.delete(which);
        if (error) build.reject(error);
        else build.resolve({ outputFiles: [], metafile: { inputs: {} }, warnings: [], errors: [] } as never);
      },
    };
    onCleanup(() => {
      for (const build of underWay.values()) build.reject(new Error('the test ended'));
    });
    return esbuild;
  });

describe('the production build’s share of esbuild', () => {
  test('counts nothing under way once esbuild could not even start', async ({ esbuild }) => {
    const before = buildsUnderWay();
    esbuild.build.mockImplementation(() => {
      throw new Error('spawn esbuild EAGAIN');
    });
    await expect(build({ outfile: OUTFILE, esbuild })).rejects.toThrow('spawn esbuild EAGAIN');
    expect(buildsUnderWay()).toBe(before);
    expect(esbuild.stop).toHaveBeenCalled();
  });

  test('lets the pages finish when the bot’s build fails, then fails with the bot’s error', async ({
    esbuild,
  }) => {
    const before = buildsUnderWay();
    const built = build({ outfile: OUTFILE, esbuild });
    const outcome = built.then(
      () => 'built',
      (error: Error) => error.message,
    );
    esbuild.answer('bot', new Error('could not resolve "./missing.js"'));
    // Every reaction to the bot's failure runs before this turn of the event loop ends.
    await new Promise(setImmediate);
    expect(esbuild.stop).not.toHaveBeenCalled();
    expect(buildsUnderWay()).toBe(before + 1);
    esbuild.answer('pages');
    expect(await outcome).toBe('could not resolve "./missing.js"');
    expect(esbuild.stop).toHaveBeenCalledOnce();
    expect(buildsUnderWay()).toBe(before);
  });
});

describe('a build whose esbuild service will not stop', () => {
  test('still gives its caller the build’s result, or the build’s own error', async ({ esbuild }) => {
    esbuild.stop.mockRejectedValue(new Error('the service is already gone'));
    const built = buildThenStop(esbuild, { platform: 'node' });
    esbuild.answer('bot');
    await expect(built).resolves.toMatchObject({ errors: [] });
    const failed = buildThenStop(esbuild, { platform: 'node' });
    esbuild.answer('bot', new Error('could not resolve "./missing.js"'));
    await expect(failed).rejects.toThrow('could not resolve "./missing.js"');
    expect(esbuild.stop).toHaveBeenCalledTimes(2);
  });
});
