// An approvals engine wired to the real client and the embedded sandbox over real HTTP, with a clock
// the test can move (expiry) and a webhook receiver that feeds the engine's subscriber.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApprovalPolicy, parseTiers } from '../../src/access/index.js';
import { ApprovalEngine, type ApprovalEngineOptions, type RequestDraft } from '../../src/approvals/index.js';
import type { AuditDraft } from '../../src/audit/log.js';
import { CngnClient } from '../../src/cngn/client.js';
import { custodyGateway, custodyReport } from '../../src/cngn/custody-gateway.js';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { testPrefix } from './redis.js';
import { type StoreKindName, storesTest } from './shared-stores.js';

export const REQUESTER = 'U_REQUESTER';
export const APPROVER_A = 'U_APPROVER_A';
export const APPROVER_B = 'U_APPROVER_B';
export const OUTSIDER = 'U_OUTSIDER';

export class Clock {
  offsetMs = 0;
  now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface EngineFixtureOptions {
  tiers?: string;
  ttlMs?: number;
  sandbox?: Sandbox;
  sandboxOptions?: SandboxOptions;
  store?: Store;
  engine?: Partial<ApprovalEngineOptions>;
  /** Short timeouts so a dropped response becomes an unknown outcome quickly. */
  headersTimeoutMs?: number;
}

export interface EngineFixture {
  sandbox: Sandbox;
  store: Store;
  client: CngnClient;
  engine: ApprovalEngine;
  clock: Clock;
  /**
   * A second engine on the same store and sandbox (another replica, or the bot after a restart);
   * `environment: 'test'` talks to the same sandbox as a `cngn_test_` key would, not as SANDBOX.
   */
  another(options?: AnotherOptions): Promise<{ engine: ApprovalEngine; client: CngnClient }>;
  /** Deliver the sandbox's webhooks to the engine's subscriber. */
  receiveWebhooks(): Promise<void>;
  /** Stop the engine, then close what it opened; once (a later call waits for the first). */
  close(): Promise<void>;
  /**
   * The process is gone: what it opened is closed, but its engine is never stopped (it drains nothing
   * and ends no lease), and a later close does nothing more.
   */
  kill(): Promise<void>;
}

export interface AnotherOptions {
  store?: Store;
  environment?: 'sandbox' | 'test';
  engine?: Partial<ApprovalEngineOptions>;
}

/** An engine fixture started by hand: only a fixture's body (here or in a support file) calls it. */
export async function startEngineFixture(options: EngineFixtureOptions = {}): Promise<EngineFixture> {
  const sandbox =
    options.sandbox ??
    (await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false, ...options.sandboxOptions }));
  const store = options.store ?? (await createStore('memory://'));
  const clock = new Clock();
  const clients: CngnClient[] = [];
  let server: Server | undefined;

  const build = (onStore: Store, more: AnotherOptions = {}) => {
    const client = new CngnClient({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.apiKey,
      encryptionKey: sandbox.encryptionKey,
      privateKey: sandbox.privateKey,
      store: onStore,
      ...(more.environment === 'test' ? {} : { environment: 'sandbox' as const }),
      rateLimit: { limit: 1000, windowSeconds: 60 },
      timeouts: { headersMs: options.headersTimeoutMs ?? 2_000, bodyMs: 2_000 },
    });
    clients.push(client);
    const policy = new ApprovalPolicy({
      approvers: [APPROVER_A, APPROVER_B, REQUESTER],
      tiers: parseTiers(options.tiers ?? '0:1,1000000:2'),
    });
    const engine = new ApprovalEngine({
      store: onStore,
      custody: custodyGateway(client),
      policy,
      ttlMs: options.ttlMs ?? 24 * 3_600_000,
      now: clock.now,
      ...options.engine,
      ...more.engine,
    });
    return { engine, client };
  };

  const first = build(store);
  let closed: Promise<void> | undefined;
  const shutdown = (stopEngine: boolean) =>
    (closed ??= (async () => {
      if (stopEngine) await first.engine.stop();
      for (const client of clients) await client.close();
      if (server) server.close();
      if (!options.sandbox) await sandbox.stop();
      if (!options.store) await store.close();
    })());
  return {
    sandbox,
    store,
    client: first.client,
    engine: first.engine,
    clock,
    another: async (more = {}) => build(more.store ?? store, more),
    receiveWebhooks: async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const event = webhookEventSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          void first.engine.onCustodyReport(custodyReport(event)).finally(() => res.end('ok'));
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      sandbox.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    },
    close: () => shutdown(true),
    kill: () => shutdown(false),
  };
}

/**
 * The stores fixtures plus `startEngine`: an engine fixture on the test's sandbox (unless the options
 * name another), closed after the test before its store and sandbox; `fx`, one started with
 * `engineOptions` (`test.override('engineOptions', …)` in a describe, `engineTest.extend('engineOptions', …)` for a file); `networkId`, the first
 * network the sandbox lists as enabled.
 */
export const engineTest = storesTest
  .extend('startEngine', async ({ sandbox, defer }) => {
    return async (options: EngineFixtureOptions = {}): Promise<EngineFixture> => {
      const fx = await startEngineFixture({ sandbox, ...options });
      defer(() => fx.close());
      return fx;
    };
  })
  .extend('engineOptions', {} as EngineFixtureOptions)
  .extend('fx', async ({ startEngine, engineOptions }) => startEngine(engineOptions))
  .extend('networkId', async ({ fx }) => (await twoNetworks(fx.client))[0]);

/**
 * engineTest for replicas of one deployment whose tests on a store kind share a sandbox, each counting
 * its calls from where the test starts: `sandbox` is one per store kind (`storeKind`) for the whole
 * file, stopped when the file ends; `connections(name, count)` opens `count` handles on one store of
 * that kind, under a prefix of their own (each its own connection on Redis and PostgreSQL, the one
 * store of the process on memory and SQLite), cleared and closed after the test.
 */
export const replicasTest = engineTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sandboxPerKind', { scope: 'file' }, async ({}, { onCleanup }) => {
    const started = new Map<StoreKindName, Promise<Sandbox>>();
    onCleanup(async () => {
      for (const sandbox of started.values()) await (await sandbox).stop();
    });
    return (kind: StoreKindName): Promise<Sandbox> => {
      const sandbox = started.get(kind) ?? startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
      started.set(kind, sandbox);
      return sandbox;
    };
  })
  .extend('sandbox', async ({ sandboxPerKind, storeKind }) => sandboxPerKind(storeKind))
  .extend('connections', async ({ storeKinds, storeKind, defer }) => {
    const kind = storeKinds.find((k) => k.name === storeKind);
    if (!kind?.up) throw new Error(`no ${storeKind} store here`);
    return async (name: string, count: number): Promise<Store[]> => {
      const prefix = testPrefix(name);
      const stores: Store[] = [];
      while (stores.length < count) {
        const { a, b, close } = await kind.replicas(prefix);
        defer(close);
        if (a === b) return Array.from({ length: count }, () => a);
        stores.push(a, b);
      }
      return stores.slice(0, count);
    };
  });

/** The id of the first network the sandbox lists as enabled, and one more for bridges. */
export async function twoNetworks(client: CngnClient): Promise<[string, string]> {
  const networks = (await client.getNetworks()).filter((n) => !n.isDisabled);
  return [networks[0]?.id ?? '', networks[1]?.id ?? ''];
}

/** An engine started with `options` by a test's `startEngine`, and the first network it lists. */
export async function engineOn(
  startEngine: (options: EngineFixtureOptions) => Promise<EngineFixture>,
  options: EngineFixtureOptions,
): Promise<{ fx: EngineFixture; networkId: string }> {
  const fx = await startEngine(options);
  const [networkId] = await twoNetworks(fx.client);
  return { fx, networkId };
}

/** The withdrawals `fx`'s sandbox has been asked to send. */
export const withdrawCalls = (fx: EngineFixture) => fx.sandbox.count('POST', '/v1/api/withdraw');

export const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

/** A withdrawal of `amount` to DEST on `networkId`, filed by REQUESTER, not saving the address. */
export function withdrawalDraft(networkId: string, amount: string, address = DEST): RequestDraft {
  return {
    kind: 'withdraw',
    amount,
    payload: { amount, address, networkId, shouldSaveAddress: false },
    display: {},
    purpose: 'Supplier payout INV-2231',
    requester: REQUESTER,
  };
}

/** The n-th of a run of audit entries to append: one approval each, a minute apart unless `at` says. */
export function auditDraft(n: number, at = new Date(Date.UTC(2026, 10, 1, 9, n))): AuditDraft {
  return {
    at: at.toISOString(),
    requestId: `AR-${String(n).padStart(10, '0')}`,
    kind: 'withdraw',
    action: 'approved',
    state: 'approved',
    actor: 'UAPPROVERA',
    amount: `${1000 + n}.00`,
  };
}
