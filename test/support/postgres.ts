// PostgreSQL tests run whenever a PostgreSQL answers at POSTGRES_URL; with CI=true they are required.
// Each test file gets a database of its own (created here, dropped after), so runs never meet.
import { randomBytes } from 'node:crypto';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
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

export interface Relay {
  /** The database's URL through the relay. */
  url: string;
  /** Drop every connection and refuse new ones, as a network or a server going away would. */
  cut(): void;
  /** Let connections through again (the same address). */
  restore(): void;
  /** The first bytes each connection sent (its startup packet, on a connection without TLS). */
  startups: Buffer[];
  close(): Promise<void>;
}

/** A TCP relay on 127.0.0.1 to the database at `url`, which a test can cut and restore. */
export async function relayTo(url: string): Promise<Relay> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const startups: Buffer[] = [];
  let open = true;
  const server = createServer((incoming) => {
    incoming.on('error', () => {});
    if (!open) return void incoming.destroy();
    incoming.once('data', (chunk: Buffer) => startups.push(chunk));
    const outgoing = tcpConnect(Number(target.port || 5432), target.hostname);
    for (const socket of [incoming, outgoing]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    incoming.pipe(outgoing).pipe(incoming);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(address.port);
  const cut = () => {
    open = false;
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: relayed.toString(),
    cut,
    startups,
    restore: () => {
      open = true;
    },
    close: async () => {
      cut();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
