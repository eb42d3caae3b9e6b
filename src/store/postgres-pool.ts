// The PostgreSQL store's connection pools (postgres.ts). Each new connection gets the server's own
// statement limit with `SET statement_timeout` before any query of the store runs on it: as a startup
// parameter PgBouncer refuses it ("unsupported startup parameter"), and the bot would not start. The
// SET runs in pg-pool's onConnect hook, which the pool awaits before it hands the connection out, so
// no query is ever sent on a connection still busy with it; one whose SET fails is closed, never used.
import pg from 'pg';
import type { StoreLog } from './types.js';
import { scrubbed } from './url-credentials.js';

/** A PostgreSQL that does not answer within this stops start-up with a clear error. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** A query with no answer by then fails (a partitioned network gives no reset to notice). */
export const QUERY_TIMEOUT_MS = 15_000;

/**
 * The server's own limit on a statement (statement_timeout), a little under the client's: a statement
 * the bot gives up on (a write stuck behind a row lock) is cancelled by the server first, not left to
 * commit after the bot was told it failed. Not a guarantee (an answer lost on the way back), so what
 * must never land late is also fenced (docs/decisions/unanswered-writes-fenced.md).
 */
export const statementTimeoutOf = (queryTimeoutMs: number) =>
  Math.round(queryTimeoutMs - Math.min(2_000, queryTimeoutMs / 4));

export interface PoolSettings {
  url: string;
  /** `host:port` of the URL, for messages: never the user or the password. */
  server: string;
  /** The connections' application_name, as pg_stat_activity shows them. */
  name: string;
  max?: number;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
  statementTimeoutMs: number;
  log?: StoreLog;
}

export function postgresPool(settings: PoolSettings): pg.Pool {
  const { statementTimeoutMs } = settings;
  // 0 would turn the server's limit off.
  if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs <= 0) {
    throw new Error(`statement_timeout must be a whole number of ms above 0 (got ${statementTimeoutMs})`);
  }
  const pool = new pg.Pool({
    connectionString: settings.url,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    query_timeout: settings.queryTimeoutMs,
    keepAlive: true,
    application_name: settings.name,
    ...(settings.max ? { max: settings.max } : {}),
    // Awaited by the pool; when it rejects, the pool closes the connection and fails the waiting query
    // with its error.
    onConnect: (client) => setStatementTimeout(client, settings),
  });
  pool.on('error', () => {}); // a dropped idle connection leaves the pool; the next query reconnects
  return pool;
}

/**
 * Set the limit on a new connection, or fail it: a connection without it could commit a write the bot
 * already called failed, so it must never carry a query.
 */
async function setStatementTimeout(client: pg.ClientBase, settings: PoolSettings): Promise<void> {
  try {
    // Bounded as connecting is: the query waiting for this connection has its own limit after it.
    // pg reads query_timeout from a query's config (client.js); its types leave it out.
    const set: pg.QueryConfig & { query_timeout: number } = {
      text: `SET statement_timeout = ${settings.statementTimeoutMs}`,
      query_timeout: settings.connectTimeoutMs,
    };
    await client.query(set);
  } catch (error) {
    const reason = scrubbed(error, settings.url);
    settings.log?.warn('PostgreSQL did not set statement_timeout on a new connection; it was closed unused', {
      server: settings.server,
      application: settings.name,
      statementTimeoutMs: settings.statementTimeoutMs,
      reason,
    });
    // The server's SQLSTATE, if any, says whether the database refused or was not there (postgres.ts).
    const code = (error as { code?: unknown } | null)?.code;
    throw Object.assign(
      new Error(
        `could not set statement_timeout on a new connection to PostgreSQL at ${settings.server} (${reason}); the connection was closed unused`,
      ),
      typeof code === 'string' ? { code } : {},
    );
  }
}
