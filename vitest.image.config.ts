// `npm run test:image`: the image built from the Dockerfile and run by Docker (test/image/). Needs a
// Docker daemon and, the first time on a machine without an image registry, minutes to make the
// stand-in base; kept out of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 2_400_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
