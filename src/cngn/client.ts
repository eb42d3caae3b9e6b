// CngnClient: one typed method per endpoint of the custody service, over undici with real wire
// encryption, a request budget shared through the store, and caches for what changes rarely.
//
// Rate policy in one place: every attempt takes a slot (limiter.ts). A 429 marks the key blocked for
// everyone (the service sends no Retry-After and blocks for 60 s), so a read retried after it is
// refused at once with RateBudgetError ("busy, try again in N s") unless it runs at money priority,
// which waits out the block. Writes are never retried: a 429 on one is a CngnError, nothing done.
// Caches: networks 10 min, banks 6 h, balance 15 s (with its time), per environment and key; the
// whitelist and the transaction list only for callers that name an age they accept (pre-flight checks).
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type {
  BridgeQuoteRequest,
  BridgeRequest,
  CallOptions,
  CngnApi,
  CngnEnvironment,
  MaybeCachedOptions,
  Priority,
  ReadCallOptions,
  ReadOptions,
  RedeemRequest,
  SettlementAccountRequest,
  TemporaryAccountRequest,
  WithdrawRequest,
} from './api.js';
import { ResponseCache } from './cache.js';
import { environmentFromKey, keyId } from './credentials.js';
import type { CallEffect } from './errors.js';
import { Exchange, type RetryPolicy, type ServiceCallObserver } from './exchange.js';
import { DEFAULT_TIMEOUTS, HttpTransport, type Timeouts } from './http.js';
import { DEFAULT_RATE_LIMIT, type LimiterOptions, type RateLimit, SharedRateLimiter } from './limiter.js';
import { SealedOpener } from './opener.js';
import { requestBodies } from './request-body.js';
import { openData, parseData, parseListInTurns } from './response.js';
import type { BalanceEntry, TransactionPage } from './schemas.js';
import {
  balanceEntrySchema,
  bankSchema,
  bridgeQuoteSchema,
  bridgeResultSchema,
  dedicatedAccountsSchema,
  type Network,
  networkSchema,
  redeemResultSchema,
  resolvedAccountSchema,
  settlementAccountSchema,
  temporaryAccountSchema,
  transactionFrameSchema,
  transactionSchema,
  whitelistedAddressSchema,
  withdrawResultSchema,
} from './schemas.js';
import { curveSecretFromSeed, parseOpenSshPrivateKey } from './wire.js';

/** Either may be left out: a client without them logs nothing. */
type CngnLogger = Partial<Pick<Logger, 'debug' | 'warn'>>;

export interface CngnClientOptions {
  /** Service origin; paths start with /v1/api. */
  baseUrl: string;
  apiKey: string;
  encryptionKey: string;
  /** OpenSSH text of the unencrypted Ed25519 private key (see loadPrivateKey). */
  privateKey: string;
  store: Store;
  rateLimit?: RateLimit;
  /** The embedded sandbox uses test keys, but everything shown must say SANDBOX. */
  environment?: 'sandbox';
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy>;
  /** Fine-tuning of the shared budget (margin, reserve, interactive wait, clock). */
  limiter?: Omit<LimiterOptions, 'store' | 'keyId' | 'rateLimit'>;
  cacheTtlMs?: Partial<{ networks: number; banks: number; balance: number }>;
  logger?: CngnLogger;
  /** Told of each exchange with the service: its duration and what went wrong (metrics). */
  observer?: ServiceCallObserver | undefined;
  /**
   * How a read that joined the same read already under way goes on once it is done, or has failed
   * (the bot: one per turn of the event loop); none: all of them at once.
   */
  resumeJoined?: () => Promise<void>;
}

/** Transactions a page asks for from which its answer is opened in the worker (about 64 KiB sealed). */
const LARGE_PAGE = 60;

const CACHE_TTL_MS = { networks: 10 * 60_000, banks: 6 * 3_600_000, balance: 15_000 };

/** The service always has networks and banks: an empty list is a glitch, not worth keeping for hours. */
const nonEmpty = (list: readonly unknown[]) => list.length > 0;

const networkListSchema = z.array(networkSchema);
const bankListSchema = z.array(bankSchema);
const balanceListSchema = z.array(balanceEntrySchema);
const whitelistSchema = z.array(whitelistedAddressSchema);

export function createCngnClient(options: CngnClientOptions): CngnClient {
  return new CngnClient(options);
}

export class CngnClient implements CngnApi {
  readonly environment: CngnEnvironment;
  private readonly exchange: Exchange;
  private readonly limiter: SharedRateLimiter;
  private readonly cache: ResponseCache;
  private readonly ttl: typeof CACHE_TTL_MS;
  private readonly transport: HttpTransport;
  private readonly opener: SealedOpener;

  constructor(options: CngnClientOptions) {
    const keyEnvironment = environmentFromKey(options.apiKey);
    this.environment = options.environment ?? keyEnvironment;
    const id = keyId(options.apiKey);
    this.opener = new SealedOpener(curveSecretFromSeed(parseOpenSshPrivateKey(options.privateKey).seed));
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.limiter = new SharedRateLimiter({
      maxInFlightMs: Math.max(120_000, 2 * (timeouts.connectMs + timeouts.headersMs + timeouts.bodyMs)),
      ...options.limiter,
      store: options.store,
      keyId: id,
      rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    });
    this.transport = new HttpTransport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeouts,
    });
    this.exchange = new Exchange({
      transport: this.transport,
      limiter: this.limiter,
      encryptionKey: options.encryptionKey,
      retry: options.retry,
      logger: options.logger,
      observer: options.observer,
      open: (data, endpoint, effect) => openData(data, this.opener, endpoint, effect),
    });
    this.cache = new ResponseCache(
      options.store,
      `${this.environment}:${id}`,
      Date.now,
      options.resumeJoined,
    );
    this.ttl = { ...CACHE_TTL_MS, ...options.cacheTtlMs };
  }

  // ---- Reads ------------------------------------------------------------------------------------

  async getBalance(options: ReadOptions = {}) {
    return (await this.getBalanceWithTime(options)).entries;
  }

  async getBalanceWithTime(options: ReadOptions = {}) {
    const cached = await this.cache.get(
      'balance',
      this.ttl.balance,
      () => this.read('/v1/api/balance', 'GET /v1/api/balance', balanceListSchema, options, []),
      { ...options, remember: true },
    );
    return { entries: cached.value, asOf: cached.asOf };
  }

  async lastBalance() {
    const last = await this.cache.last<BalanceEntry[]>('balance');
    return last ? { entries: last.value, asOf: last.asOf } : undefined;
  }

  async getNetworks(options: { includeBlockchain?: boolean } & ReadOptions = {}) {
    const withChain = options.includeBlockchain === true;
    const path = withChain ? '/v1/api/networks?includeBlockchain=true' : '/v1/api/networks';
    const cached = await this.cache.get(
      `networks:${withChain}`,
      this.ttl.networks,
      () => this.read(path, 'GET /v1/api/networks', networkListSchema, options, []),
      { ...options, keep: nonEmpty },
    );
    return cached.value;
  }

  async getBanks(options: ReadOptions = {}) {
    const cached = await this.cache.get(
      'banks',
      this.ttl.banks,
      () => this.read('/v1/api/banks', 'GET /v1/api/banks', bankListSchema, options, []),
      { ...options, keep: nonEmpty },
    );
    return cached.value;
  }

  getDedicatedAccounts(options: CallOptions = {}) {
    const endpoint = 'GET /v1/api/virtual-account';
    return this.read('/v1/api/virtual-account', endpoint, dedicatedAccountsSchema, options, []);
  }

  getWhitelisted(options: { includeNetwork?: boolean } & MaybeCachedOptions = {}) {
    const withNetwork = options.includeNetwork === true;
    const path = withNetwork ? '/v1/api/whitelisted?includeNetwork=true' : '/v1/api/whitelisted';
    return this.maybeCached(`whitelisted:${withNetwork}`, options, () =>
      this.read(path, 'GET /v1/api/whitelisted', whitelistSchema, options, []),
    );
  }

  getTransactions(options: { page?: number; limit?: number } & MaybeCachedOptions = {}) {
    const query = new URLSearchParams();
    if (options.page !== undefined) query.set('page', String(options.page));
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    const search = query.size ? `?${query}` : '';
    return this.maybeCached(`transactions:${search}`, options, () =>
      this.readPage(`/v1/api/transactions${search}`, options),
    );
  }

  /** A page of the list, its transactions checked a slice at a time (a page may hold 1,000). */
  private async readPage(
    path: string,
    options: ReadCallOptions & { limit?: number | undefined },
  ): Promise<TransactionPage> {
    const endpoint = 'GET /v1/api/transactions';
    // A page this long is opened off the thread: its worker starts while the page is on its way.
    if ((options.limit ?? 0) >= LARGE_PAGE) this.opener.warm();
    const data = await this.exchange.get(path, endpoint, options.priority ?? 'interactive', options.signal);
    const { frame, items } = await parseListInTurns(
      { frame: transactionFrameSchema, item: transactionSchema },
      data,
      (f) => (Array.isArray(f) ? { list: f, path: '' } : { list: f.data, path: 'data.' }),
      endpoint,
    );
    return { data: items, pagination: (!Array.isArray(frame) && frame.pagination) || null };
  }

  /** Through the shared cache when the caller accepts an answer of some age; else straight to the service. */
  private async maybeCached<T>(
    name: string,
    options: MaybeCachedOptions,
    load: () => Promise<T>,
  ): Promise<T> {
    if (options.maxAgeMs === undefined) return load();
    return (await this.cache.get(name, options.maxAgeMs, load)).value;
  }

  getTransaction(reference: string, options: CallOptions = {}) {
    return this.read(
      `/v1/api/transactions/${encodeURIComponent(reference)}`,
      'GET /v1/api/transactions/{ref}',
      transactionSchema,
      options,
    );
  }

  verifyWithdrawal(reference: string, options: CallOptions = {}) {
    return this.read(
      `/v1/api/withdraw/verify/${encodeURIComponent(reference)}`,
      'GET /v1/api/withdraw/verify/{ref}',
      transactionSchema,
      options,
    );
  }

  async resolveNetwork(nameOrCode: string, options: CallOptions = {}): Promise<Network | undefined> {
    const wanted = nameOrCode.trim().toLowerCase();
    if (!wanted) return undefined;
    const networks = await this.getNetworks(options);
    return (
      networks.find((n) => n.id.toLowerCase() === wanted) ??
      networks.find((n) => n.short_name.toLowerCase() === wanted) ??
      networks.find((n) => n.name.toLowerCase() === wanted)
    );
  }

  budget() {
    return this.limiter.budget();
  }

  // ---- Writes: never retried ------------------------------------------------------------------------

  createTemporaryAccount(request: TemporaryAccountRequest, options: CallOptions = {}) {
    const body = requestBodies.temporaryAccount(request);
    const priority = options.priority ?? 'interactive';
    return this.write('POST', '/v1/api/virtual-account/temporary', body, temporaryAccountSchema, priority);
  }

  resolveAccount(request: { accountNumber: string; bankCode?: string }, options: CallOptions = {}) {
    const body = requestBodies.resolveAccount(request);
    const priority = options.priority ?? 'interactive';
    return this.write('POST', '/v1/api/account/verify', body, resolvedAccountSchema, priority);
  }

  bridgeQuote(request: BridgeQuoteRequest, options: CallOptions = {}) {
    const body = requestBodies.bridgeQuote(request);
    const priority = options.priority ?? 'interactive';
    return this.write('POST', '/v1/api/bridge-quote', body, bridgeQuoteSchema, priority);
  }

  withdraw(request: WithdrawRequest) {
    return this.moneyWrite('/v1/api/withdraw', requestBodies.withdraw(request), withdrawResultSchema);
  }

  redeem(request: RedeemRequest) {
    return this.moneyWrite('/v1/api/redeemAsset', requestBodies.redeem(request), redeemResultSchema);
  }

  bridge(request: BridgeRequest) {
    return this.moneyWrite('/v1/api/bridge', requestBodies.bridge(request), bridgeResultSchema);
  }

  async addWhitelist(request: { networkId: string; address: string }) {
    const body = requestBodies.whitelist(request);
    try {
      return await this.write('POST', '/v1/api/whitelist', body, whitelistSchema, 'money', 'whitelist');
    } finally {
      // The whitelist may have changed whatever the answer: cached copies go.
      for (const name of ['whitelisted:true', 'whitelisted:false'])
        await this.cache.invalidate(name).catch(() => undefined);
    }
  }

  updateSettlementAccount(request: SettlementAccountRequest) {
    const body = requestBodies.settlementAccount(request);
    const effect = 'settlement-account';
    return this.write('PUT', '/v1/api/bank-account', body, settlementAccountSchema, 'money', effect);
  }

  /**
   * The caller's reads of long lists are done (a report has read its book): the thread large answers
   * are opened in ends once idle, rather than staying for the next one (SealedOpener.release).
   */
  largeReadsDone(): void {
    this.opener.release();
  }

  /** Release the connection pool, and end the thread large answers are opened in. */
  async close(): Promise<void> {
    await Promise.all([this.transport.close(), this.opener.stop()]);
  }

  // ---- Plumbing ---------------------------------------------------------------------------------------

  private async read<S extends z.ZodType>(
    path: string,
    endpoint: string,
    schema: S,
    options: ReadCallOptions,
    whenEmpty?: unknown,
  ): Promise<z.output<S>> {
    const data = await this.exchange.get(path, endpoint, options.priority ?? 'interactive', options.signal);
    return parseData(schema, data ?? whenEmpty, endpoint);
  }

  private async write<S extends z.ZodType>(
    method: 'POST' | 'PUT',
    path: string,
    json: string,
    schema: S,
    priority: Priority,
    effect: CallEffect = 'none',
  ): Promise<z.output<S>> {
    const endpoint = `${method} ${path}`;
    const data = await this.exchange.write(method, path, endpoint, json, priority, effect);
    return parseData(schema, data, endpoint, effect);
  }

  /** Money moved (or may have): the cached balance is stale whatever the outcome. */
  private async moneyWrite<S extends z.ZodType>(path: string, json: string, schema: S): Promise<z.output<S>> {
    try {
      return await this.write('POST', path, json, schema, 'money', 'moves-money');
    } finally {
      await this.cache.invalidate('balance').catch(() => undefined);
    }
  }
}
