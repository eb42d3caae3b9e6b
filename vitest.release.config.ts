// `npm run test:release`: the release steps (scripts/release.sh) in a clean copy of the tree. Kept out
// of `npm test`, which stays under three minutes: `npm ci` alone takes longer on a two-core machine.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/release.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
