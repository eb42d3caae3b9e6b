// Builds the Bolt app: Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode with Slack requests at
// POST /slack/events; either way each body is checked before Bolt reads it (request-guard.ts,
// socket-guard.ts). Extra routes (webhooks, callbacks) are served on PORT in both modes, from the
// moment the server listens: the start-up check against Slack runs after that, and the Bolt app is
// built once it passed (with the bot's identity from it, so Bolt calls nothing on its own). Without a
// bot token there is no Slack at all, but the routes still serve (sandbox demos, webhooks). The probes
// it answers (`probes`) are served by the admin listener, not here.
import { once } from 'node:events';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  App,
  type Logger as BoltLogger,
  type CodedError,
  type CustomRoute,
  ErrorCode,
  HTTPReceiver,
  type LogLevel,
  SocketModeReceiver,
} from '@slack/bolt';
import { WebClient, type WebClientOptions } from '@slack/web-api';
import type { Config } from '../../config.js';

import { type Logger, withoutUrlCredentials } from '../../log.js';
import { BOLT_LEVEL, boltLogger } from './bolt-logger.js';
import type { SlackTraffic } from './in-flight.js';
import { withListenerIndex } from './listener-index.js';
import { type ProbeRoute, probeRoutes, type Readiness } from './probes.js';
import {
  guardSlackRequests,
  pathOf,
  refuse,
  SLACK_BODY_LIMIT_BYTES,
  slackRequestId,
} from './request-guard.js';
import { routeTable } from './route-table.js';
import { registerRemovalEvents, SlackAccess } from './slack-access.js';
import { guardSocketEvents } from './socket-guard.js';
import {
  type CheckFinding,
  checkSlack,
  type SlackCheck,
  SlackCheckFailed,
  type SlackCheckSetup,
  type SlackIdentity,
  STARTUP_CHECK_CLIENT,
} from './startup-check.js';

const SLACK_EVENTS_PATH = '/slack/events';

export interface SlackAppOptions {
  slack: Config['slack'];
  port: number;
  host?: string;
  logger: Logger;
  logLevel?: Config['logLevel'];
  /** Extra HTTP routes; handlers get the raw Node request (webhook signatures need the bytes). */
  routes?: CustomRoute[];
  /** Headers set on every answer of the HTTP server, whoever writes it (routes, Bolt, its 404s). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** Features registering their own listeners (commands, approvals, …). */
  /** `identity`: the bot and its workspace as the start-up check's auth.test named them. */
  plugins?: Array<(app: App, identity: SlackIdentity) => void>;
  /** Whether the store answers (part of /readyz), and a freeze of sends (/healthz); answering when absent. */
  health?: () => Promise<Health>;
  /** More that /healthz shows (not part of readiness): the audit trail's last check, the version. */
  details?: () => Record<string, unknown>;
  /** Told of each Slack request while it is being acked, so work after the ack makes way for acks. */
  traffic?: SlackTraffic;
  /** The channels and approvers the start-up check looks at (the token and its scopes always). */
  check?: SlackCheckSetup;
  /** Every Slack call goes through it; one is made when absent. */
  access?: SlackAccess;
}

/** Ready or not (503 with the reason); ready may carry the freeze of sends, which is no fault. */
export type Health =
  | { ok: true; frozen?: { by: string; reason: string; at: string } }
  | { ok: false; reason: string };

export interface SlackApp {
  /** Undefined when Slack is not configured (no SLACK_BOT_TOKEN), and until the start-up check passed. */
  app: App | undefined;
  /** `http://host:port` of the HTTP server, once started. */
  url: string;
  /** Why the bot is not ready (empty when it is): what /readyz answers. */
  readiness: Readiness;
  /** /livez, /readyz and /healthz, for the admin listener. */
  probes: ProbeRoute[];
  /** Whether the Socket Mode connection is open; undefined in HTTP mode or without Slack. */
  socketConnected(): boolean | undefined;
  /** Listens, checks Slack, then starts Bolt; throws SlackCheckFailed when the bot cannot run. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the probes ask of the parts: shutting down, and what Slack's side adds. */
interface ProbeState {
  stopping: boolean;
  /** Why Slack keeps the bot from being ready: the start-up check has not passed. */
  slack: () => string[];
  /** What is wrong with Slack that does not: the socket is closed, the app was removed. */
  slackWarnings: () => string[];
  /** The last health answer: what /healthz adds besides the reasons (a freeze of sends). */
  lastHealth?: Health;
}

function readinessOf(state: ProbeState, health: SlackAppOptions['health']): Readiness {
  return async () => {
    const reasons = state.stopping ? ['shutting down'] : [];
    const store: Health = await (health?.() ?? Promise.resolve({ ok: true as const })).catch(
      (error: unknown) => ({
        ok: false as const,
        reason: `the store health check failed: ${withoutUrlCredentials(String(error)).slice(0, 200)}`,
      }),
    );
    state.lastHealth = store;
    if (!store.ok) reasons.push(store.reason);
    return [...reasons, ...state.slack()];
  };
}

/** What /healthz says besides the reasons: a freeze of sends is a state, not a fault. */
function healthNotes(state: ProbeState): Record<string, unknown> {
  const last = state.lastHealth;
  return last?.ok && last.frozen ? { frozen: last.frozen } : {};
}

/**
 * Bolt keeps its Web API clients in a plain object keyed by the request's team or enterprise id, text
 * from the request: a team id `valueOf`, `constructor` or `__proto__` finds Object's own members there
 * and the listener throws (a 500). The same pool without a prototype only holds what Bolt put in it.
 */
function withoutPrototypeKeys(app: App): void {
  const internals = app as unknown as { clients?: Record<string, unknown> };
  if (!internals.clients || typeof internals.clients !== 'object') return;
  internals.clients = Object.assign(Object.create(null) as Record<string, unknown>, internals.clients);
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const state: ProbeState = { stopping: false, slack: () => [], slackWarnings: () => [] };
  const readiness = readinessOf(state, options.health);
  const probes = probeRoutes(readiness, {
    warnings: () => state.slackWarnings(),
    notes: () => ({ ...healthNotes(state), ...options.details?.() }),
  });
  const routes = options.routes ?? [];
  if (!options.slack.botToken) return routesOnly(routes, options, state, readiness, probes);
  const bolt = boltParts(options, routes);
  watchChecked(state, bolt);
  const handle: SlackApp = {
    app: undefined,
    url: '',
    readiness,
    probes,
    socketConnected: () => (bolt.socket ? bolt.checked === 'passed' && socketOpen(bolt) : undefined),
    async start() {
      handle.url = await listenFirst(bolt, options);
      const identity = await checkedIdentity(bolt, options);
      handle.app = buildApp(bolt, options, identity);
      bolt.checked = 'passed';
      // Bolt's start only starts its receiver: in HTTP mode that one already listens (above).
      if (bolt.socket) await handle.app.start();
      options.logger.info('Slack app started', { mode: options.slack.mode, url: handle.url });
    },
    async stop() {
      state.stopping = true;
      const stopped = handle.app
        ? handle.app.stop()
        : bolt.receiver && bolt.listening
          ? bolt.receiver.stop()
          : undefined;
      // The server no longer accepts connections; one that never sent a byte (a browser's preconnect
      // to the passkey pages) is neither idle nor busy to Node and would hold the close open for
      // minutes: it carries no request, so it is ended. A request under way is still answered.
      bolt.silent?.endAll();
      try {
        await stopped;
      } finally {
        // Socket Mode's routes (webhooks, passkey pages) stop taking requests even when Bolt's stop failed.
        if (bolt.routeHost) await close(bolt.routeHost);
      }
    },
  };
  return handle;
}

/** The Bolt side of the app: its receiver (or socket and route server), its clients' options, its state. */
interface BoltParts {
  access: SlackAccess;
  logger: BoltLogger;
  logLevel: LogLevel;
  /** Every client built from these (Bolt's, and those copying its options) sends through the access gate. */
  clientOptions: WebClientOptions;
  /** Socket Mode: the routes on our own server, and Bolt's socket receiver. */
  routeHost: Server | undefined;
  socket: SocketModeReceiver | undefined;
  /** HTTP mode: Bolt's receiver behind the request guard. */
  receiver: HTTPReceiver | undefined;
  checked: 'pending' | 'passed' | { failed: string };
  listening: boolean;
  /** HTTP mode, once listening: the receiver's connections that have not sent a byte yet. */
  silent?: SilentConnections | undefined;
}

function boltParts(options: SlackAppOptions, routes: CustomRoute[]): BoltParts {
  const { slack } = options;
  const access = options.access ?? new SlackAccess(options.logger);
  const slackApiUrl = slack.apiUrl ? `${slack.apiUrl.replace(/\/+$/, '')}/` : undefined;
  const logger = boltLogger(options.logger);
  const logLevel = BOLT_LEVEL[options.logLevel ?? 'info'];
  const clientOptions: WebClientOptions = {
    ...(slackApiUrl ? { slackApiUrl } : {}),
    fetch: access.fetch,
    logger,
    logLevel,
  };
  const socketMode = slack.mode === 'socket';
  const parts: BoltParts = {
    access,
    logger,
    logLevel,
    clientOptions,
    // Socket Mode serves the routes on our own server: Bolt's throws out of its listener on a target
    // that is not a path (`//`, `%zz`) and leaves the request unanswered.
    routeHost: socketMode ? routeServer(routes, options) : undefined,
    socket: socketMode
      ? new SocketModeReceiver({
          appToken: slack.appToken ?? '',
          logger,
          logLevel,
          installerOptions: { clientOptions },
        })
      : undefined,
    receiver: undefined,
    checked: 'pending',
    listening: false,
  };
  if (!socketMode) {
    parts.receiver = guardedReceiver(
      slack.signingSecret ?? '',
      routes,
      logger,
      options,
      () => parts.checked === 'passed',
    );
  }
  return parts;
}

function socketOpen(bolt: BoltParts): boolean {
  return bolt.socket?.client.websocket?.isActive() === true;
}

/** What the probes say of Slack: not ready until the start-up check passed; warnings that keep it ready. */
function watchChecked(state: ProbeState, bolt: BoltParts): void {
  state.slack = () => {
    if (bolt.checked === 'pending') return ['the start-up check against Slack has not finished'];
    if (bolt.checked !== 'passed') return [`the start-up check against Slack failed: ${bolt.checked.failed}`];
    return [];
  };
  // Not readiness: in a Slack outage every replica loses its socket at once, and webhooks must still
  // find one to be stored by. Said on /healthz and in cngn_slack_socket_connected.
  state.slackWarnings = () => {
    const warnings: string[] = [];
    if (bolt.checked === 'passed' && bolt.socket && !socketOpen(bolt)) {
      warnings.push('the Socket Mode connection to Slack is not open');
    }
    if (bolt.access.removed) warnings.push(bolt.access.removed);
    return warnings;
  };
}

/** Listens on PORT (the route server in Socket Mode, Bolt's receiver in HTTP mode); its URL. */
async function listenFirst(bolt: BoltParts, options: SlackAppOptions): Promise<string> {
  let url = '';
  if (bolt.routeHost) url = await listen(bolt.routeHost, options);
  else if (bolt.receiver) {
    const at = options.host ? { port: options.port, host: options.host } : options.port;
    const server = (await bolt.receiver.start(at)) as Server;
    bolt.silent = silentConnections(server);
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  bolt.listening = true;
  return url;
}

/** The start-up check against Slack: the bot's identity, or SlackCheckFailed when the bot cannot run. */
async function checkedIdentity(bolt: BoltParts, options: SlackAppOptions): Promise<SlackIdentity> {
  // Warnings are logged here; the lines of a failed check are the caller's to log (main.ts).
  const warn = (findings: readonly CheckFinding[]) => {
    for (const f of findings) if (f.level === 'warning') options.logger.warn(f.line, { check: 'slack' });
  };
  let found: SlackCheck;
  try {
    const client = new WebClient(options.slack.botToken, { ...bolt.clientOptions, ...STARTUP_CHECK_CLIENT });
    found = await checkSlack(client, options.check ?? {});
  } catch (error) {
    bolt.checked = { failed: error instanceof Error ? error.message : String(error) };
    if (error instanceof SlackCheckFailed) warn(error.findings);
    throw error;
  }
  warn(found.findings);
  const { identity } = found;
  options.logger.info('Slack start-up check passed', {
    bot: identity.botName,
    botUserId: identity.botUserId,
    team: identity.team,
    teamId: identity.teamId,
    enterpriseId: identity.enterpriseId,
  });
  return identity;
}

/** Built once the check passed: Bolt gets the bot's identity from it and calls nothing itself. */
function buildApp(bolt: BoltParts, options: SlackAppOptions, identity: SlackIdentity): App {
  const { socket, logger, logLevel } = bolt;
  const app = new App({
    token: options.slack.botToken,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger,
    logLevel,
    // No listener reads Bolt's conversation context; its store would be one more step before each ack.
    convoStore: false,
    // The error handler also gets the request's body, for the id its log line carries.
    extendedErrorHandler: true,
    clientOptions: bolt.clientOptions,
    ...(socket ? { socketMode: true, receiver: socket } : { receiver: bolt.receiver }),
  });
  withoutPrototypeKeys(app);
  // No HTTP request to guard: each envelope is checked where the receiver hands it to Bolt, and counted.
  if (socket) guardSocketEvents(app, socket.client, { logger: options.logger, traffic: options.traffic });
  app.error(async ({ error, body }: { error: CodedError; body: unknown }) => {
    const slackId = slackRequestId(body);
    const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
    // Bolt wraps an error without a code of its own; the listener's error (and its stack) is inside.
    const thrown = error.code === ErrorCode.UnknownError && 'original' in error ? error.original : error;
    logger.error('unhandled error in a Slack listener', { error: thrown });
  });
  // Listeners by plain id go into one table per kind (listener-index.ts), found by one global
  // middleware after the features' own (the access gate's): Bolt matches only the rest.
  withListenerIndex(app, (indexed) => {
    registerRemovalEvents(indexed, bolt.access);
    for (const plugin of options.plugins ?? []) plugin(indexed, identity);
  });
  return app;
}

/**
 * Bolt's HTTP receiver behind the request guard: every request to /slack/events is verified with Bolt's
 * own check and checked before Bolt reads it (a signed body of a shape Bolt does not expect, `null`
 * say, would otherwise throw inside it and end the process). Until `ready()`, Slack is asked to come
 * back (503).
 */
function guardedReceiver(
  signingSecret: string,
  routes: CustomRoute[],
  logger: BoltLogger,
  options: SlackAppOptions,
  ready: () => boolean,
): HTTPReceiver {
  // Bolt asks for the secret only of a receiver that checks signatures: the guard needs it all the same.
  if (!signingSecret) throw new Error('a signing secret is required in HTTP mode (SLACK_SIGNING_SECRET)');
  const receiver = new HTTPReceiver({
    signingSecret,
    // The guard has run Bolt's check with this same secret on every request the receiver takes as a
    // Slack request (POST to the events path, by the same rule); a second check, three HMACs and a
    // random key per request, would refuse nothing more. The receiver is reached only through the guard.
    signatureVerification: false,
    endpoints: SLACK_EVENTS_PATH,
    customRoutes: routes,
    logger,
    bodyLimit: SLACK_BODY_LIMIT_BYTES,
  });
  receiver.requestListener = withHeaders(
    guardSlackRequests(receiver.requestListener, {
      path: SLACK_EVENTS_PATH,
      signingSecret,
      logger: options.logger,
      ready,
      // The receiver would compile every route's pattern again for each request it serves.
      routes: routeTable(routes, options.logger),
      ...(options.traffic ? { traffic: options.traffic } : {}),
    }),
    options.responseHeaders,
  );
  return receiver;
}

/** No Slack configured: serve the extra routes alone, so webhooks and the probes keep working. */
function routesOnly(
  routes: CustomRoute[],
  options: SlackAppOptions,
  state: ProbeState,
  readiness: Readiness,
  probes: ProbeRoute[],
): SlackApp {
  const server = routeServer(routes, options);
  const handle: SlackApp = {
    app: undefined,
    url: '',
    readiness,
    probes,
    socketConnected: () => undefined,
    async start() {
      handle.url = await listen(server, options);
      options.logger.warn('Slack is not configured (no SLACK_BOT_TOKEN): serving webhooks only', {
        url: handle.url,
      });
    },
    async stop() {
      state.stopping = true;
      await close(server);
    },
  };
  return handle;
}

/**
 * The extra routes on their own server (routes-only and Socket Mode). A target that is not a path gets
 * 400, and a handler that throws gets 500: no request may throw out of the listener and end the process.
 */
function routeServer(routes: CustomRoute[], options: SlackAppOptions): Server {
  const { logger } = options;
  const serve = routeTable(routes, logger);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req);
    if (path === undefined) {
      logger.warn('refused a request whose target is not a path', { status: 400 });
      return refuse(req, res, 400, 'the request target is not a valid path');
    }
    if (serve(req, res, path)) return;
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
  return createServer(withHeaders(listener, options.responseHeaders));
}

/** Sets the headers before anyone answers; what the answer's own writeHead names takes precedence. */
function withHeaders(
  next: RequestListener,
  headers: Readonly<Record<string, string>> | undefined,
): RequestListener {
  if (!headers) return next;
  return (req, res) => {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return next(req, res);
  };
}

async function listen(server: Server, options: SlackAppOptions): Promise<string> {
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface SilentConnections {
  endAll(): void;
}

/** The server's connections, so those that never sent a byte can be ended when it stops. */
function silentConnections(server: Server): SilentConnections {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return {
    endAll() {
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    },
  };
}

async function close(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
