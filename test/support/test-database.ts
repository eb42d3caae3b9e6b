// The PostgreSQL database of one test file as a file-scoped fixture: created on first use (a file
// whose tests all skip creates none) and dropped after the file's last test.
import { tempDirTest } from './fixtures.js';
import { testDatabaseOnce } from './postgres.js';

/** `tempDirTest` plus `database`, the file's own test database (`url()` creates it on first use). */
export const databaseTest = tempDirTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('database', { scope: 'file' }, async ({}, { onCleanup }) => {
    const database = testDatabaseOnce();
    onCleanup(() => database.drop());
    return database;
  });
