// The PostgreSQL database of one test file as a file-scoped fixture: created on first use (a file
// whose tests all skip creates none) and dropped after the file's last test.
import { memoryDirTest, tempDirTest } from './fixtures.js';
import { testDatabaseOnce } from './postgres.js';

// biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
const fileDatabase = async ({}, { onCleanup }: { onCleanup: (fn: () => Promise<void>) => void }) => {
  const database = testDatabaseOnce();
  onCleanup(() => database.drop());
  return database;
};

/** `tempDirTest` plus `database`, the file's own test database (`url()` creates it on first use). */
export const databaseTest = tempDirTest.extend('database', { scope: 'file' }, fileDatabase);

/**
 * `databaseTest` with `tempDir` in memory (memoryDirTest): for a file whose SQLite stores are about
 * what is written and read back, not what survives a power cut.
 */
export const memoryDatabaseTest = memoryDirTest.extend('database', { scope: 'file' }, fileDatabase);
