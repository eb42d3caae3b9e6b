// The workbench opens its store itself (startup.ts), before the bot: what that store warns of later
// goes to the bot's log as it does when the bot opens the store from STORE_URL.
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { expect } from 'vitest';
import { start } from '../../src/wiring/startup.js';
import { capturedLog } from '../support/captured-log.js';
import { tempDirTest as it } from '../support/fixtures.js';
import { waitUntil } from '../support/webhook-rig.js';

const PRUNE_FAILED = 'could not delete expired values from the SQLite store; trying again later';

/**
 * A SQLite store file holding one expired value of the bot's namespace that a trigger refuses to
 * delete: the store's first pass over expired values, at open, fails and warns.
 */
async function fileWhosePruneFails(path: string): Promise<void> {
  const db = new sqlite3.Database(path);
  try {
    await new Promise<void>((resolve, reject) =>
      db.exec(
        `CREATE TABLE keyv(key VARCHAR(255) PRIMARY KEY, value TEXT);
         INSERT INTO keyv VALUES ('cngn-desk:stale', '{"value":1,"expires":1}');
         CREATE TRIGGER keep_stale BEFORE DELETE ON keyv WHEN old.key = 'cngn-desk:stale'
           BEGIN SELECT RAISE(ABORT, 'the stale value may not be deleted'); END;`,
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

it('logs a warning of the store the workbench opened', async ({ tempDir, defer }) => {
  const path = join(tempDir, 'workbench-store.sqlite');
  await fileWhosePruneFails(path);
  const { logger, entries } = capturedLog('warn');
  const started = await start(
    { PORT: '0', ADMIN_PORT: '0', STORE_URL: `sqlite://${path}` },
    { print: () => undefined, logger: () => logger },
  );
  defer(() => started.stop());
  expect(started.workbench).toBeDefined();
  await waitUntil(() => entries.some((entry) => entry.message === PRUNE_FAILED));
  expect(entries).toContainEqual(
    expect.objectContaining({
      level: 'warn',
      message: PRUNE_FAILED,
      error: expect.stringContaining('the stale value may not be deleted'),
    }),
  );
});
