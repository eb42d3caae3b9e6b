// Every connection of the PostgreSQL store has the server's statement limit before it carries a query,
// set without ever sending a query on a connection still busy with another; a connection the limit
// cannot be set on is closed unused and its query fails saying why, rather than running without it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import { postgresPool } from '../../src/store/postgres-pool.js';
import { capturedLog } from '../support/captured-log.js';
import { bundled } from '../support/node-entry.js';
import { postgresAvailable } from '../support/postgres.js';
import { testPrefix } from '../support/redis.js';
import { databaseTest } from '../support/test-database.js';
import { waitUntil } from '../support/webhook-rig.js';

const hasPostgres = await postgresAvailable();
/** Past the largest statement_timeout the server takes (INT_MAX ms): it refuses the SET. */
const REFUSED_TIMEOUT_MS = 2 ** 31;
/**
 * The password of `passwordUrl()`: the refused limit as written, so that the server's refusal
 * (`invalid value for parameter "statement_timeout": "2147483648"`) quotes it, and only the store's
 * scrubbing keeps it out of a message or a log line.
 */
const PASSWORD = String(REFUSED_TIMEOUT_MS);
/** The server's refusal as a message or log may carry it: the password taken out. */
const SCRUBBED_REFUSAL = 'invalid value for parameter "statement_timeout": "***"';

/** Every text the log's entries carry (their numbers, the refused limit among them, are no text). */
const textsOf = (entries: Array<Record<string, unknown>>): string =>
  entries.flatMap((entry) => Object.values(entry).filter((value) => typeof value === 'string')).join('\n');

/** How many connections to the database at `url` carry the application_name `name`. */
async function connectionsNamed(url: string, name: string): Promise<number> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      'SELECT count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [name],
    );
    return Number(rows[0]?.count);
  } finally {
    await client.end();
  }
}

interface FirstQueries {
  warnings: string[];
  timeouts: string[];
  connections: number;
  deprecationsObservable: boolean;
}

/**
 * `firstQueries(url, prefix)`, what postgres-first-queries.ts reports from a process of its own, and
 * `passwordUrl()`, the file's database with a password in its URL (trust auth ignores it).
 */
const it = databaseTest
  .extend('firstQueries', async ({ defer }) => {
    const entry = await bundled('test/store/postgres-first-queries.ts');
    return async (url: string, prefix: string): Promise<FirstQueries> => {
      // Without NODE_OPTIONS: a --no-deprecation there would silence the very warning looked for.
      const { NODE_OPTIONS: _, ...env } = process.env;
      const child = spawn(process.execPath, [entry, url, prefix], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      defer(() => child.kill('SIGKILL'));
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      return JSON.parse(out) as FirstQueries;
    };
  })
  .extend('passwordUrl', ({ database }) => async () => {
    const url = new URL(await database.url());
    url.password = PASSWORD;
    return url.toString();
  });

describe.runIf(hasPostgres)('postgres store connections', () => {
  it('sets statement_timeout before the first query of each new connection, never queueing behind it', async ({
    database,
    firstQueries,
  }) => {
    const report = await firstQueries(await database.url(), testPrefix('first-queries'));
    expect(report.deprecationsObservable).toBe(true);
    // node-postgres: "Calling client.query() when the client is already executing a query is deprecated"
    expect(report.warnings).toEqual([]);
    expect(report.connections).toBeGreaterThan(1);
    expect(report.timeouts.length).toBeGreaterThan(1);
    for (const timeout of report.timeouts) expect(timeout).toBe('13s');
  });

  it('fails a query whose new connection refuses the statement timeout, and closes that connection', async ({
    passwordUrl,
  }) => {
    const url = await passwordUrl();
    const captured = capturedLog('warn');
    const name = `cngn-desk-refused-${process.pid}`;
    const server = new URL(url).host;
    const pool = postgresPool({
      url,
      server,
      name,
      connectTimeoutMs: 10_000,
      queryTimeoutMs: 15_000,
      statementTimeoutMs: REFUSED_TIMEOUT_MS,
      log: captured.logger,
    });
    try {
      const error = await pool.query('SELECT 1').catch((e: unknown) => e as Error & { code?: string });
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(
        `could not set statement_timeout on a new connection to PostgreSQL at ${server} (${SCRUBBED_REFUSAL}); the connection was closed unused`,
      );
      expect((error as { code?: string }).code).toBe('22023'); // invalid_parameter_value
      expect(pool.totalCount).toBe(0);
      await waitUntil(async () => (await connectionsNamed(url, name)) === 0);
      expect(captured.entries).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: expect.stringContaining('did not set statement_timeout on a new connection'),
          statementTimeoutMs: REFUSED_TIMEOUT_MS,
          reason: SCRUBBED_REFUSAL,
        }),
      ]);
      expect(textsOf(captured.entries)).not.toContain(PASSWORD);
      expect(String((error as Error).stack)).not.toContain(PASSWORD);
    } finally {
      await pool.end();
    }
  });

  it('refuses to start on a server that will not take the statement timeout, and logs why', async ({
    passwordUrl,
  }) => {
    const captured = capturedLog('warn');
    const url = await passwordUrl();
    const error = await PostgresStore.connect(url, testPrefix('refused'), {
      statementTimeoutMs: REFUSED_TIMEOUT_MS,
      log: captured.logger,
    }).then(
      (store) => store.close(),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(
      `PostgreSQL at ${new URL(url).host} refused to set up the store (could not set statement_timeout `,
    );
    expect((error as Error).message).toContain(SCRUBBED_REFUSAL);
    expect((error as Error).message).not.toContain(PASSWORD);
    expect(captured.entries.length).toBeGreaterThan(0);
    expect(textsOf(captured.entries)).not.toContain(PASSWORD);
  });
});
