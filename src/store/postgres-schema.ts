// The PostgreSQL store's tables, created or brought up to date at start-up: one transaction, under a
// transaction-scoped advisory lock so two replicas starting at once migrate one after the other (the
// second finds the work done), with the version in `schema_version`. A hand-written list of steps:
// with one version there is nothing a migration tool would add but a dependency and its own tables.
import type pg from 'pg';
import { StoreErrorCode } from './errors.js';

/** Any fixed number: the advisory lock every replica takes around the migration (per database). */
const MIGRATION_LOCK = '7461436710432555';

/** Step n (from 1) brings the schema from version n - 1 to n. Never edit a step once released. */
const STEPS: readonly string[] = [
  `
  -- keyv's own table (key, value), as @keyv/postgres reads and writes it; TEXT keys, not its
  -- VARCHAR(255), so a long key is never refused. Values are keyv's JSON ({"value", "expires"}).
  CREATE TABLE IF NOT EXISTS keyv (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- Whether a keyv value has expired at now_ms: keyv writes the expiry into the value itself.
  CREATE OR REPLACE FUNCTION store_expired(value TEXT, now_ms BIGINT) RETURNS BOOLEAN
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN jsonb_typeof(value::jsonb -> 'expires') = 'number'
                      THEN (value::jsonb ->> 'expires')::numeric < now_ms
                      ELSE false END $$;

  -- Append-only lists: the head row holds the length (its row lock orders concurrent appends), the
  -- items one row each, as the JSON text written (TEXT, not JSONB, keeps it byte for byte).
  CREATE TABLE store_lists (
    namespace TEXT NOT NULL,
    list TEXT NOT NULL,
    length BIGINT NOT NULL,
    PRIMARY KEY (namespace, list)
  );
  CREATE TABLE store_list_items (
    namespace TEXT NOT NULL,
    list TEXT NOT NULL,
    position BIGINT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (namespace, list, position)
  );

  CREATE TABLE store_set_members (
    namespace TEXT NOT NULL,
    set_name TEXT NOT NULL,
    member TEXT NOT NULL,
    PRIMARY KEY (namespace, set_name, member)
  );

  -- Named locks with a lease on the database's clock: taken when absent or expired, renewed while
  -- the holder runs, deleted by their holder only (token).
  CREATE TABLE store_locks (
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    token TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (namespace, name)
  );
  `,
  `
  -- The expiry read from the value's text, never by parsing the value as jsonb: jsonb refuses the
  -- escapes JSON writes for a NUL character or a lone surrogate, which TEXT holds, so a value carrying
  -- one (an outside name, a webhook field) could be written but never read or claimed again, and the
  -- sweep failed for the whole namespace. keyv writes the expiry last, at the value's top level.
  CREATE OR REPLACE FUNCTION store_expired(value TEXT, now_ms BIGINT) RETURNS BOOLEAN
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT COALESCE(
             substring(value from ',"expires":(-?[0-9]+(?:[.][0-9]+)?)}$')::numeric < now_ms,
             false) $$;
  `,
];

const SCHEMA_VERSION = STEPS.length;

class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
  readonly code = StoreErrorCode.SchemaTooNew;
}

/** Create or migrate the schema; safe when several replicas call it at once. Returns the version. */
export async function migrate(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  const lost = () => {}; // a connection lost mid-way fails the query under way; nothing else to do
  client.on('error', lost);
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const current = await versionOf(client);
    if (current > SCHEMA_VERSION) {
      throw new SchemaTooNewError(
        `the database's schema is version ${current}, newer than this version of cngn-desk knows ` +
          `(${SCHEMA_VERSION}): run the newer version, or point STORE_URL at another database`,
      );
    }
    if (current === SCHEMA_VERSION) {
      await client.query('COMMIT');
      return current; // nothing to create: a user without DDL rights starts on a migrated database
    }
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_version (
         singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
         version INTEGER NOT NULL
       )`,
    );
    for (const step of STEPS.slice(current)) await client.query(step);
    await client.query(
      `INSERT INTO schema_version (version) VALUES ($1)
       ON CONFLICT (singleton) DO UPDATE SET version = excluded.version`,
      [SCHEMA_VERSION],
    );
    await client.query('COMMIT');
    return SCHEMA_VERSION;
  } catch (error) {
    failure = error as Error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', lost);
    client.release(failure); // a connection that failed is closed, not handed out again
  }
}

/** The schema's version, 0 when the database has none of our tables yet. */
async function versionOf(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ found: string | null }>(
    "SELECT to_regclass('schema_version')::text AS found",
  );
  if (!rows[0]?.found) return 0;
  const version = await client.query<{ version: number }>('SELECT version FROM schema_version');
  return version.rows[0]?.version ?? 0;
}
