// The SQLite store: keyv + @keyv/sqlite on one file, held by one process at a time (file-lock.ts), its
// claims atomic in the database, its expired values deleted at open and every hour (sqlite-prune.ts).
// index.ts loads this module only when STORE_URL names SQLite: sqlite3's native binding loads with it.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv from 'keyv';
import { DEFAULT_LOCK_WAIT_MS, lockStoreFile } from './file-lock.js';
import { GroupCommit } from './group-commit.js';
import { LocalStore } from './local.js';
import { KeyedMutex } from './mutex.js';
import { SqliteConnection } from './sqlite-connection.js';
import { prefixRange } from './sqlite-keys.js';
import { ExpiryPruner, type PruneOptions } from './sqlite-prune.js';
import { convertLegacySets } from './sqlite-sets.js';
import { useEngineJson } from './sqlite-values.js';
import type { Store, StoreLog, StoreOptions } from './types.js';

/** How long a SQLite statement waits for another connection's write lock before failing. */
const BUSY_TIMEOUT_MS = 10_000;

/** Stores of one process on one SQLite file share their in-process locks. */
const fileMutexes = new Map<string, { users: number; mutex: KeyedMutex }>();

/** A store on the SQLite file at `path`, holding its file lock until closed. */
export async function openSqlite(path: string, prefix: string, options: StoreOptions): Promise<Store> {
  mkdirSync(dirname(path), { recursive: true });
  const release = await lockStoreFile(path, options.fileLockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
  const shared = fileMutexes.get(path) ?? { users: 0, mutex: new KeyedMutex() };
  fileMutexes.set(path, shared);
  shared.users += 1;
  const letGo = async () => {
    shared.users -= 1;
    if (shared.users === 0 && fileMutexes.get(path) === shared) fileMutexes.delete(path);
    await release();
  };
  try {
    return await connectSqlite(path, prefix, {
      mutex: shared.mutex,
      onClose: letGo,
      ...(options.log ? { log: options.log } : {}),
      ...(options.prune ? { prune: options.prune } : {}),
    });
  } catch (error) {
    await letGo();
    throw error;
  }
}

/**
 * A store on the SQLite file without taking the file lock: createStore takes it first. Only tests call
 * this directly, to race claims across connections the way two processes would without the lock.
 */
export async function connectSqlite(
  path: string,
  prefix: string,
  options: { mutex?: KeyedMutex; onClose?: () => Promise<void>; log?: StoreLog; prune?: PruneOptions } = {},
): Promise<Store> {
  const sqlite = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: BUSY_TIMEOUT_MS });
  const keyv = new Keyv({ store: sqlite, namespace: prefix, throwOnErrors: true });
  useEngineJson(keyv);
  const opened: SqliteConnection[] = [];
  let group: GroupCommit | undefined;
  let pruner: ExpiryPruner | undefined;
  try {
    await sqlite.query('SELECT 1'); // open the file (and create the table) now, not on first use
    // keyv's own connection prepares and finalizes a statement per query; from here on every query
    // goes to two connections of ours that keep their statements prepared (sqlite-connection.ts).
    await sqlite.close();
    const writer = await SqliteConnection.open(path, BUSY_TIMEOUT_MS);
    opened.push(writer);
    // Write-ahead log: a commit appends to the log instead of rewriting pages through a rollback
    // journal, and readers do not block the writer. synchronous=FULL keeps every commit durable through
    // a power loss (the log is synced at each commit), not only through a crash of this process.
    await writer.query('PRAGMA journal_mode = WAL');
    await writer.query('PRAGMA synchronous = FULL');
    // The batch outcomes' scratch table (group-commit.ts) never needs a file.
    await writer.query('PRAGMA temp_store = MEMORY');
    // A set stored as one JSON array (the legacy layout, sqlite-sets.ts) becomes one row per member, once.
    const namespaced = (key: string) => (keyv.namespace ? `${keyv.namespace}:${key}` : key);
    await convertLegacySets(
      writer.query,
      sqlite.opts.table ?? 'keyv',
      namespaced('set:'),
      namespaced('setm:'),
    );
    // Statements sent together share one transaction and one synced commit; reads go to a second
    // connection that sees only what is committed.
    const reader = await SqliteConnection.open(path, BUSY_TIMEOUT_MS);
    opened.push(reader);
    await reader.query('PRAGMA query_only = ON');
    const committing = new GroupCommit(writer.query, reader.query, writer.exec);
    group = committing;
    sqlite.query = committing.query as typeof sqlite.query;
    // Expired values are deleted by a pass at open and then every hour, batch by batch through the
    // group commit (sqlite-prune.ts); reads only skip them. Only this namespace's rows.
    const table = sqlite.opts.table ?? 'keyv';
    const range = keyv.namespace ? prefixRange(`${keyv.namespace}:`) : { from: '' };
    const pruning = new ExpiryPruner(committing.query, table, range, options.prune, options.log);
    pruner = pruning;
    sqlite.close = async () => {
      await pruning.stop();
      await committing.idle();
      try {
        await reader.close();
      } finally {
        await writer.close();
      }
    };
  } catch (error) {
    await sqlite.close().catch(() => undefined);
    for (const connection of opened) await connection.close().catch(() => undefined);
    throw error;
  }
  const mutex = options.mutex ?? new KeyedMutex();
  const store = new LocalStore({
    kind: 'sqlite',
    keyv,
    mutex,
    sqlite,
    group,
    pruner,
    onClose: options.onClose,
  });
  pruner.start();
  return store;
}
