// The passkey pages bundled with esbuild: its service process is stopped once no build in the process
// needs it (the workbench page bundles in the same process), and a later bundle starts it again;
// another build still under way when the pages are done is answered, not cut off.
import childProcess, { type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as esbuild from 'esbuild';
import { test as base, describe, expect, vi } from 'vitest';
import { buildThenStop } from '../../src/esbuild-builds.mjs';
import { bundlePageAssets } from '../../src/signing/assets.js';
import { bundlePageAssets as bundleWorkbenchPage } from '../../src/workbench/page/assets.js';

/** Linux's /proc, where a process's children are listed: elsewhere, that check is left out. */
const PROC = existsSync('/proc/self/task');

const test = base
  // Every esbuild service this process starts meanwhile (esbuild spawns it through child_process).
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('services', async ({}, { onCleanup }) => {
    const spawn = vi.spyOn(childProcess, 'spawn');
    onCleanup(() => spawn.mockRestore());
    return () =>
      spawn.mock.results
        .flatMap((r) => (r.type === 'return' ? [r.value as ChildProcess] : [])) // a spawn that threw has none
        .filter((child) => child.spawnargs.some((a) => a.startsWith('--service=')));
  })
  // Another build, held by its plugin until `release()` and then failing: the test's end releases it
  // too and waits for it, so a test that fails first leaves no build under way (and the service
  // running) for the next files of this worker.
  .extend('heldBuild', async ({ services: _ }, { onCleanup }) => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const built = buildThenStop(esbuild, {
      stdin: { contents: "import './nowhere.js';", resolveDir: import.meta.dirname },
      bundle: true,
      write: false,
      logLevel: 'silent',
      plugins: [{ name: 'held', setup: (build) => build.onStart(() => held) }],
    });
    const ended = built.then(
      () => undefined,
      () => undefined,
    );
    onCleanup(async () => {
      release();
      await ended;
    });
    return { built, release: () => release() };
  });

/** Ended (a child killed has ended once Node has seen it exit). */
async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
}

/** This process's esbuild children, running or exited but not yet reaped, from Linux's /proc. */
function esbuildChildren(): string[] {
  const tasks = `/proc/${process.pid}/task`;
  return readdirSync(tasks)
    .flatMap((task) => readFileSync(`${tasks}/${task}/children`, 'utf8').split(' '))
    .filter((pid) => pid.trim() !== '')
    .flatMap((pid) => {
      try {
        return [readFileSync(`/proc/${pid.trim()}/stat`, 'utf8')];
      } catch (error) {
        // Another child of this process, reaped since the list was read.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    })
    .filter((stat) => stat.includes('(esbuild)'));
}

describe('the passkey pages’ bundle', () => {
  test('leaves no esbuild process once the passkey and workbench pages are bundled, and bundles again', async ({
    services,
  }) => {
    const [pages] = await Promise.all([bundlePageAssets(), bundleWorkbenchPage()]);
    expect(pages.js.length).toBeGreaterThan(0);
    // The service was stopped, not left to run beside the bot; a bundle after that starts it again.
    expect((await bundlePageAssets()).js).toBe(pages.js);
    expect(services().length).toBeGreaterThan(0);
    expect(services().filter((child) => !child.killed && child.exitCode === null)).toEqual([]);
    await Promise.all(services().map(ended));
    if (PROC) expect(esbuildChildren()).toEqual([]);
  });

  test('answers another build still under way when the pages are done, and stops the service after it fails', async ({
    services,
    heldBuild: { built: other, release },
  }) => {
    await bundlePageAssets();
    expect(services().length).toBeGreaterThan(0);
    expect(services().some((child) => child.killed)).toBe(false);
    release();
    await expect(other).rejects.toThrow('Could not resolve "./nowhere.js"');
    expect(services().every((child) => child.killed)).toBe(true);
    await Promise.all(services().map(ended));
    expect(await bundlePageAssets()).toHaveProperty('css');
  });
});
