// Run once before any test file (vitest globalSetup): dist/main.js, which several files start in a
// child process (support/node-entry.ts), is built here unless fresh, so the workers find it fresh
// instead of each building the same bundle at once on a busy machine.
import { bundledMain } from './node-entry.js';

export default async function setup(): Promise<void> {
  await bundledMain();
}
