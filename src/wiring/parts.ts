// The parts every feature shares, built from settled configuration before any feature: the store
// (checked for durability), the embedded sandbox when no credentials are set, and the service client.

import type { CustomRoute } from '@slack/bolt';
import type { Roles } from '../access/index.js';
import { type CngnClient, createCngnClient } from '../cngn/client.js';
import { environmentFromKey } from '../cngn/credentials.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { BotMetrics } from '../metrics/index.js';
import type { ReportSource } from '../reports/types.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/index.js';
import { checkStoreDurability, createStore, type Store } from '../store/index.js';

/** How the bot is started: main.ts passes the settled configuration, tests more. */
export interface BotOptions {
  config: Config;
  logger: Logger;
  /** Tests pass their own; otherwise built from STORE_URL. */
  store?: Store;
  /** Tests pass a sandbox they control; otherwise one is started when no credentials are set. */
  sandbox?: Sandbox;
  sandboxOptions?: SandboxOptions;
  now?: () => Date;
  /** Client fine-tuning (tests: short timeouts). */
  clientTimeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** Listen on this address only (default: every address, as Bolt does). */
  host?: string;
  /** More HTTP routes on the bot's server (start-up wiring adds the workbench's). */
  routes?: CustomRoute[];
  /** Headers on every answer of the bot's HTTP server (the workbench's page rules). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** Tests drive the webhook reconciler themselves. */
  reconcileIntervalMs?: number;
  reconcileGraceMs?: number;
  /** App Home's per-person debounce (tests: short). */
  homeDebounceMs?: number;
  /** How often the approvals engine sweeps: expiry, polls, reminders (default 15 s; tests: short). */
  approvalSweepMs?: number;
  /** Record the policy in the audit chain at start (default true; tests of other features leave it out). */
  recordPolicy?: boolean;
  /** Where treasury reports come from (`/cngn report`, the schedule); unset: reports are off. */
  reportSource?: ReportSource;
  /** Who holds which role, as the gate asks; tests may pass their own (otherwise the configured roles). */
  roles?: Roles;
  /** How long a start that failed half-way waits for its stop before rethrowing (default 15 s; tests: short). */
  failedStartStopMs?: number;
}

/** The store the options give, or one built from STORE_URL; refused (and closed) when not durable enough. */
export async function openStore(options: BotOptions): Promise<Store> {
  const { config, logger } = options;
  const store = options.store ?? (await createStore(config.storeUrl, { log: logger }));
  const live = config.service.mode === 'service' && environmentFromKey(config.service.apiKey) === 'live';
  try {
    await checkStoreDurability(store, { live, log: logger });
  } catch (error) {
    if (!options.store) await store.close();
    throw error;
  }
  return store;
}

/** The sandbox the options give, or one started here (`own`: stopped with the bot) without credentials. */
export async function sandboxOf(
  options: BotOptions,
): Promise<{ sandbox: Sandbox | undefined; own: boolean }> {
  const { config, logger } = options;
  const own = !options.sandbox && config.service.mode === 'sandbox';
  if (!own) return { sandbox: options.sandbox, own };
  const sandbox = await startSandbox({
    ...(config.webhookSecret ? { webhookSecret: config.webhookSecret } : {}),
    log: (line) => logger.debug(line),
    ...options.sandboxOptions,
  });
  return { sandbox, own };
}

/** The service's keys in use: the sandbox's, or the configured ones. */
export function serviceKeys(
  options: BotOptions,
  sandbox: Sandbox | undefined,
): { apiKey?: string | undefined; privateKey?: string | undefined } {
  const service = options.config.service;
  if (sandbox) return { apiKey: sandbox.apiKey, privateKey: sandbox.privateKey };
  return service.mode === 'service' ? { apiKey: service.apiKey, privateKey: service.privateKey } : {};
}

/** The service client: against the sandbox when there is one, else the configured service. */
export function clientOf(
  options: BotOptions,
  parts: {
    sandbox: Sandbox | undefined;
    store: Store;
    metrics: BotMetrics;
    inFlight?: { stagger(): Promise<void> };
  },
): CngnClient {
  const { config, logger } = options;
  const { sandbox, store, inFlight } = parts;
  const common = {
    store,
    rateLimit: config.rateLimit,
    logger,
    observer: parts.metrics.serviceCalls,
    // Callers waiting on one read resume one per turn (slack/runtime/in-flight.ts), reads made
    // before an ack included: they do not wait for a quiet moment their own request prevents.
    ...(inFlight ? { resumeJoined: () => inFlight.stagger() } : {}),
    ...(options.clientTimeouts ? { timeouts: options.clientTimeouts } : {}),
  };
  if (sandbox) {
    return createCngnClient({
      baseUrl: sandbox.baseUrl,
      apiKey: sandbox.apiKey,
      encryptionKey: sandbox.encryptionKey,
      privateKey: sandbox.privateKey,
      environment: 'sandbox',
      ...common,
    });
  }
  const service = config.service;
  if (service.mode !== 'service') throw new Error('no service credentials and no sandbox');
  return createCngnClient({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    encryptionKey: service.encryptionKey,
    privateKey: service.privateKey,
    ...common,
  });
}
