// One process per SQLite store file. The lock is an exclusive transaction on a small companion
// database (`<file>.lock`), so the operating system drops it when its holder dies, however it dies:
// a stale lock is simply free. Stores of one process on one file share one lock.
import KeyvSqlite from '@keyv/sqlite';
import { StoreLockedError } from './errors.js';

export const DEFAULT_LOCK_WAIT_MS = 30_000;

interface Held {
  users: number;
  ready: Promise<KeyvSqlite>;
}

const held = new Map<string, Held>();

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

const waited = (ms: number) => (ms >= 1000 ? String(Math.round(ms / 1000)) : (ms / 1000).toFixed(1));

async function acquire(file: string, waitMs: number): Promise<KeyvSqlite> {
  // SQLite's busy handler retries for up to busyTimeout: an overlapping restart gets its turn.
  const connection = new KeyvSqlite({ uri: `sqlite://${file}.lock`, busyTimeout: Math.max(1, waitMs) });
  connection.on('error', () => {}); // the failing query below rejects with the same error
  try {
    await connection.query('BEGIN EXCLUSIVE');
    return connection;
  } catch (error) {
    await connection.disconnect().catch(() => undefined);
    if (!isBusy(error)) throw error;
    throw new StoreLockedError(
      `another cngn-desk is using ${file} (waited ${waited(waitMs)} s); ` +
        'use PostgreSQL (STORE_URL=postgres://…) or Redis for several replicas',
    );
  }
}

/** Hold the file for this process until every returned release has been called. */
export async function lockStoreFile(
  file: string,
  waitMs = DEFAULT_LOCK_WAIT_MS,
): Promise<() => Promise<void>> {
  let entry = held.get(file);
  if (!entry) {
    entry = { users: 0, ready: acquire(file, waitMs) };
    held.set(file, entry);
    const failed = entry;
    entry.ready.catch(() => {
      if (held.get(file) === failed) held.delete(file);
    });
  }
  entry.users += 1;
  const mine = entry;
  try {
    await mine.ready;
  } catch (error) {
    mine.users -= 1;
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    mine.users -= 1;
    if (mine.users > 0) return;
    held.delete(file);
    await (await mine.ready).disconnect(); // closing ends the transaction and frees the file
  };
}
