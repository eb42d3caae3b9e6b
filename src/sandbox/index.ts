// The embedded sandbox: an in-process HTTP fake of the custody service on the real wire protocol,
// with live state (balances move, transactions settle, webhooks fire) and fault injection for tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  curvePublicFromEd25519,
  generateOpenSshKeyPair,
  parseOpenSshPrivateKey,
  sealResponseData,
} from '../cngn/wire.js';
import { Faults } from './faults.js';
import type { HistoryShape } from './history.js';
import { randomSecret } from './names.js';
import { RateLimiter, type RateLimitOptions } from './rate-limit.js';
import { createPipeline, type RequestLogEntry } from './server.js';
import { SandboxState } from './state.js';
import { Timeline } from './timeline.js';
import type { Permission, TransactionRecord } from './types.js';
import { type WebhookDelivery, WebhookSender } from './webhooks.js';

export {
  FAILING_PAYOUT_ACCOUNT,
  FAILING_WITHDRAWAL_ADDRESS,
  UNRESOLVABLE_ACCOUNT,
} from './catalog.js';

export { PAYOUT_FAILED } from './settlement.js';

export { signBody } from './webhooks.js';

export interface SandboxOptions {
  host?: string;
  port?: number;
  /** Default: a fresh `cngn_test_<random>`; a `cngn_live_` key selects live-mode network IDs. */
  apiKey?: string;
  encryptionKey?: string;
  /** OpenSSH text of the business key; only its PUBLIC half is used, to seal response data. */
  privateKey?: string;
  webhookUrl?: string;
  /** Default: fresh; '' sends deliveries unsigned. */
  webhookSecret?: string;
  /** pending → final after this many ms (default 4000). */
  settleDelayMs?: number;
  /** Default 20 requests / 60 s, then the key is blocked for 60 s. */
  rateLimit?: RateLimitOptions | false;
  permissions?: Partial<Record<Permission, boolean>>;
  temporaryAccountTtlMs?: number;
  /** Time between two whitelist additions (default 24 h). */
  whitelistTimelockMs?: number;
  /** Refuse withdrawals to addresses not whitelisted (unless shouldSaveAddress). Default false. */
  requireWhitelistedAddress?: boolean;
  /** Send webhook `data` sealed to the business key instead of plain JSON. Default false. */
  sealWebhookData?: boolean;
  log?: (line: string) => void;
  /** Its clock, in ms: rate-limit windows, expiries, timestamps (default: real time). */
  now?: () => number;
  /**
   * The seeded history: `count` transactions (default 36, 2 to 9 hours apart), spread evenly from
   * `from` (epoch ms) to now when given, e.g. 10,000 over a month for the report's benchmark.
   */
  history?: HistoryShape;
}

export interface Sandbox {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly encryptionKey: string;
  readonly privateKey: string;
  readonly privateKeyFile: string;
  readonly webhookSecret: string;
  setWebhookUrl(url: string | undefined): void;
  readonly requests: ReadonlyArray<RequestLogEntry>;
  count(method: string, pathPrefix: string): number;
  /** Answer `{status, message}` with that HTTP status WITHOUT processing (optional extra headers, e.g. Retry-After). */
  failNext(
    method: string,
    pathPrefix: string,
    status: number,
    times?: number,
    message?: string,
    headers?: Record<string, string>,
  ): void;
  /** Cut the connection WITHOUT processing (a connection error for the client; safe to retry). */
  resetNext(method: string, pathPrefix: string, times?: number): void;
  hold(method: string, pathPrefix: string): { release(): void; arrived: Promise<void> };
  dropResponse(method: string, pathPrefix: string): void;
  /** Redemptions and withdrawals answer `Service is currently unavailable…` while false. */
  setServiceAvailable(available: boolean): void;
  setPermission(permission: Permission, allowed: boolean): void;
  /** While false every keyed call gets 403 `IP address not whitelisted`. */
  setIpAllowed(allowed: boolean): void;
  /** While false every keyed call gets 400 `No Test SSH Key found` (`No Live …` for live keys). */
  setSshKeyUploaded(uploaded: boolean): void;
  /** From now on, this account number (at any known bank) resolves to this name, whatever it holds. */
  setAccountName(accountNumber: string, name: string): void;
  /** Current token balance, e.g. "1250000.00". */
  balance(): string;
  /** One transaction as the API would return it (a copy), without spending rate budget. */
  transaction(reference: string): Readonly<TransactionRecord> | undefined;
  /**
   * A fault: the service's record of this transaction names another amount from now on (its reads and
   * the events it sends later say it), as a service contradicting the call it was given would.
   */
  misstateAmount(reference: string, amount: string): void;
  /** A fault: the service gives this text, no date perhaps, as the transaction's time from now on. */
  misstateTime(reference: string, createdAt: string): void;
  /** A fault: temporary accounts opened from now on give this text as their expiry (undefined: the time). */
  misstateExpiry(text: string | undefined): void;
  /** Every transaction as the list holds it, newest first (copies), without spending rate budget. */
  transactions(): ReadonlyArray<Readonly<TransactionRecord>>;
  setSealWebhookData(sealed: boolean): void;
  payTemporaryAccount(reference: string, amount?: string): Promise<void>;
  simulateCryptoDeposit(input: { amount: string; network?: string }): Promise<{ trx_ref: string }>;
  settleAll(): Promise<void>;
  /** The next redemption's payout fails (`transaction.failed`, token returned), once. */
  failNextRedemption(): void;
  /** The newest temporary (virtual) account's reference, if any was created. */
  latestTemporaryAccount(): string | undefined;
  readonly webhookDeliveries: ReadonlyArray<WebhookDelivery>;
  stop(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? (() => Date.now());
  const log = options.log ?? (() => {});
  const apiKey = options.apiKey ?? `cngn_test_${randomSecret(16)}`;
  const encryptionKey = options.encryptionKey ?? randomSecret(16);
  const privateKey = options.privateKey ?? generateOpenSshKeyPair().privateKey;
  const curvePublic = await curvePublicFromEd25519(parseOpenSshPrivateKey(privateKey).publicKey);
  const webhookSecret = options.webhookSecret ?? `whsec_${randomSecret(20)}`;

  const state = newState(options, apiKey, now);
  const webhooks = new WebhookSender(
    options.webhookUrl,
    webhookSecret,
    (json) => sealResponseData(json, curvePublic),
    log,
  );
  webhooks.sealData = options.sealWebhookData ?? false;
  const timeline = new Timeline(state, webhooks, options.settleDelayMs ?? 4_000, now);
  const faults = new Faults();
  const limiter = new RateLimiter(
    options.rateLimit === undefined ? { limit: 20, windowMs: 60_000, blockMs: 60_000 } : options.rateLimit,
    now,
  );
  const requests: RequestLogEntry[] = [];
  const handle = createPipeline({
    state,
    timeline,
    faults,
    limiter,
    apiKey,
    encryptionKey,
    curvePublic,
    requests,
    now,
    log,
  });
  const { server, baseUrl } = await listen(handle, options, log);

  const keyDir = mkdtempSync(join(tmpdir(), 'cngn-sandbox-'));
  const privateKeyFile = join(keyDir, 'id_ed25519');
  writeFileSync(privateKeyFile, privateKey, { mode: 0o600 });
  log(`sandbox listening on ${baseUrl}`);

  let stopped: Promise<void> | undefined;
  return {
    baseUrl,
    apiKey,
    encryptionKey,
    privateKey,
    privateKeyFile,
    webhookSecret,
    ...controls({ state, timeline, faults, webhooks, requests }),
    stop: () => {
      stopped ??= (async () => {
        faults.releaseAll();
        await timeline.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        rmSync(keyDir, { recursive: true, force: true });
        log('sandbox stopped');
      })();
      return stopped;
    },
  };
}

function newState(options: SandboxOptions, apiKey: string, now: () => number): SandboxState {
  return new SandboxState({
    mode: apiKey.startsWith('cngn_live') ? 'live' : 'test',
    now,
    temporaryAccountTtlMs: options.temporaryAccountTtlMs ?? 30 * 60_000,
    whitelistTimelockMs: options.whitelistTimelockMs ?? 24 * 3_600_000,
    requireWhitelistedAddress: options.requireWhitelistedAddress ?? false,
    history: options.history,
    permissions: { swap: true, fiatDeposit: true, sendCrypto: true, redeem: true, ...options.permissions },
  });
}

/** Serve the pipeline on the port and host asked for (any free port on loopback by default). */
async function listen(
  handle: ReturnType<typeof createPipeline>,
  options: SandboxOptions,
  log: (line: string) => void,
): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`sandbox request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 500, message: 'Internal server error' }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, baseUrl: `http://${host}:${address.port}` };
}

/** What tests and demos drive the sandbox with: its request log, injected faults, state and timeline. */
function controls(parts: {
  state: SandboxState;
  timeline: Timeline;
  faults: Faults;
  webhooks: WebhookSender;
  requests: RequestLogEntry[];
}): Omit<
  Sandbox,
  'baseUrl' | 'apiKey' | 'encryptionKey' | 'privateKey' | 'privateKeyFile' | 'webhookSecret' | 'stop'
> {
  const { state, timeline, faults, webhooks, requests } = parts;
  return {
    setWebhookUrl: (url) => {
      webhooks.url = url;
    },
    requests,
    count: (method, pathPrefix) =>
      requests.filter((r) => r.method === method.toUpperCase() && r.path.startsWith(pathPrefix)).length,
    failNext: (method, pathPrefix, status, times, message, headers) =>
      faults.failNext(method, pathPrefix, status, times, message, headers),
    resetNext: (method, pathPrefix, times) => faults.resetNext(method, pathPrefix, times),
    hold: (method, pathPrefix) => faults.hold(method, pathPrefix),
    dropResponse: (method, pathPrefix) => faults.dropResponse(method, pathPrefix),
    setServiceAvailable: (available) => {
      state.serviceAvailable = available;
    },
    setPermission: (permission, allowed) => {
      state.permissions[permission] = allowed;
    },
    setIpAllowed: (allowed) => {
      state.ipAllowed = allowed;
    },
    setSshKeyUploaded: (uploaded) => {
      state.sshKeyUploaded = uploaded;
    },
    setAccountName: (accountNumber, name) => {
      state.accountNames.set(accountNumber, name);
    },
    balance: () => state.balance.toString(),
    transactions: () => state.transactions.map((tx) => structuredClone(tx)),
    transaction: (reference) => {
      const tx = state.find(reference);
      return tx ? structuredClone(tx) : undefined;
    },
    misstateAmount: (reference, amount) => {
      const tx = state.find(reference);
      if (!tx) throw new Error(`no sandbox transaction ${reference}`);
      tx.amount = amount;
    },
    misstateTime: (reference, createdAt) => {
      const tx = state.find(reference);
      if (!tx) throw new Error(`no sandbox transaction ${reference}`);
      tx.createdAt = createdAt;
    },
    misstateExpiry: (text) => {
      state.expiryText = text;
    },
    setSealWebhookData: (sealed) => {
      webhooks.sealData = sealed;
    },
    payTemporaryAccount: (reference, amount) => timeline.payTemporaryAccount(reference, amount),
    simulateCryptoDeposit: (input) => timeline.simulateCryptoDeposit(input),
    settleAll: () => timeline.settleAll(),
    failNextRedemption: () => {
      state.failNextRedemption = true;
    },
    latestTemporaryAccount: () => [...state.temporaryAccounts.keys()].at(-1),
    webhookDeliveries: webhooks.deliveries,
  };
}
