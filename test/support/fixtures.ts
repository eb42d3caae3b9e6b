// The fixtures most test files share (vitest test.extend). A test names what it needs in its first
// argument; each fixture is set up for that test only and stopped after it, whether the test passed
// or not, so a file has no set-up or clean-up code of its own for these. Everything a fixture starts
// is stopped through `defer`, in one list, last started first: an engine stops before its store and
// its sandbox.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base } from 'vitest';
import { type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';

/** A sandbox that settles nothing on its own (tests settle explicitly) and enforces no rate limit. */
const QUIET_SANDBOX: SandboxOptions = { settleDelayMs: 3_600_000, rateLimit: false };

/**
 * `defer(cleanup)` registers clean-up for the end of the test; `sandbox` is the embedded sandbox with
 * QUIET_SANDBOX and `sandboxOptions` on top (`test.override('sandboxOptions', …)` in a describe).
 */
export const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('defer', async ({}, { onCleanup }) => {
    const cleanups: Array<() => unknown> = [];
    onCleanup(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });
    return (cleanup: () => unknown) => void cleanups.push(cleanup);
  })
  .extend('sandboxOptions', {} as SandboxOptions)
  .extend('sandbox', async ({ sandboxOptions, defer }) => {
    const sandbox = await startSandbox({ ...QUIET_SANDBOX, ...sandboxOptions });
    defer(() => sandbox.stop());
    return sandbox;
  });

/**
 * `test` plus `tempDir`, one temporary directory for the whole file (a file-scoped fixture), removed
 * after the file's last test.
 */
export const tempDirTest = test
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('tempDir', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-test-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  });

/** A folder of its own in memory (Linux's /dev/shm) where it can be made, else in the temporary folder. */
export function inMemoryDir(): string {
  try {
    return mkdtempSync(join('/dev/shm', 'cngn-test-'));
  } catch {
    return mkdtempSync(join(tmpdir(), 'cngn-test-'));
  }
}

/**
 * `tempDirTest` with the folder in memory where the system has one: for SQLite files whose tests are
 * about what is written and read back, not what survives a power cut. On a disk, the sync at every
 * commit waits on a disk a busy machine shares, and is most of such a test's time.
 */
export const memoryDirTest = test
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('tempDir', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = inMemoryDir();
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  });
