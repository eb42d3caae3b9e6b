import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The release test installs every dependency into a clean copy of the tree (minutes): it runs on
    // its own, `npm run test:release` (vitest.release.config.ts); so do the image's, with Docker
    // (`npm run test:image`, vitest.image.config.ts).
    exclude: [...configDefaults.exclude, 'test/release.test.ts', 'test/image/**'],
    // Caps, not timings: a passing test never waits for them, and a machine with every core busy
    // (npm run test:stress) still finishes within them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits on an outcome: its default of one second is a timing a busy machine misses.
    expect: { poll: { timeout: 30_000 } },
    pool: 'forks',
    // Most tests wait on sockets, timers and databases rather than the CPU, so one worker more than
    // cores keeps the cores busy (vitest's default on two cores is a single worker). Fewer leave a core
    // idle; more cost more CPU in contention (the files' polling, the servers they start) than they win
    // in waiting. The measurements are in docs/decisions/tests-start-built-bundles.md.
    maxWorkers: availableParallelism() + 1,
    // A worker runs file after file in one module graph: the app, Bolt and undici are loaded once per
    // worker instead of once per file. Every test file starts its own servers and stores and stops
    // them, and none mocks modules, so no file sees another's state; a test that fakes timers or spies
    // on a global puts it back when it ends (afterEach, or the onCleanup of the fixture that made the
    // spy), or the files after it in that worker inherit it.
    isolate: false,
    setupFiles: ['test/support/shared-worker.ts'],
    globalSetup: ['test/support/build-main.ts'],
  },
});
