// PostgreSQL tests run whenever a PostgreSQL answers at POSTGRES_URL; with CI=true they are required.
// Each test file gets a database of its own (created here, dropped after), so runs never meet.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A server with trust auth for `postgres` (CI starts one); its maintenance database `postgres`. */
export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let noticed = false;

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  const up = await client.connect().then(
    () => client.query('SELECT 1').then(() => true),
    () => false,
  );
  await client.end().catch(() => undefined);
  if (!up && process.env.CI === 'true') {
    throw new Error(`CI=true requires a PostgreSQL at ${POSTGRES_URL}`);
  }
  if (!up && !noticed)
    console.warn(`[notice] no PostgreSQL at ${POSTGRES_URL}: PostgreSQL tests are skipped`);
  noticed = true;
  return up;
}

export interface TestDatabase {
  /** STORE_URL of the database. */
  url: string;
  /** Drop it, closing whatever connections are left. */
  drop(): Promise<void>;
}

/** A fresh database `cngn_desk_test_<random>` on the server at POSTGRES_URL. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `cngn_desk_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * The shared test database of one test file, created on first use: `url()` opens it, `drop()` (in
 * afterAll) removes it if it was made.
 */
export function testDatabaseOnce(): { url: () => Promise<string>; drop: () => Promise<void> } {
  let database: Promise<TestDatabase> | undefined;
  return {
    url: async () => {
      database ??= createTestDatabase();
      return (await database).url;
    },
    drop: async () => {
      if (database) await (await database).drop();
    },
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
