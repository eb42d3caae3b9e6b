// Builds the Bolt app: Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode with Slack requests at
// POST /slack/events. Extra routes (webhooks, callbacks, /healthz, /livez) are served on PORT in both
// modes.
// Without a bot token there is no Slack at all, but the routes still serve (sandbox demos, webhooks).
import { once } from 'node:events';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  App,
  type Logger as BoltLogger,
  type CodedError,
  type CustomRoute,
  ErrorCode,
  HTTPReceiver,
  LogLevel,
} from '@slack/bolt';
import { match } from 'path-to-regexp';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import type { SlackTraffic } from './in-flight.js';
import {
  guardSlackRequests,
  pathOf,
  refuse,
  SLACK_BODY_LIMIT_BYTES,
  slackRequestId,
} from './request-guard.js';

export const SLACK_EVENTS_PATH = '/slack/events';

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
  plugins?: Array<(app: App) => void>;
  /** What /healthz reports (the store answering); healthy when absent. */
  health?: () => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Told of each Slack request while it is being acked, so work after the ack makes way for acks. */
  traffic?: SlackTraffic;
}

export interface SlackApp {
  /** Undefined when Slack is not configured (no SLACK_BOT_TOKEN). */
  app: App | undefined;
  /** `http://host:port` of the HTTP server, once started. */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Readiness: 200 while the store answers, 503 with the reason while it does not. */
function healthz(health: SlackAppOptions['health']): CustomRoute {
  return {
    path: '/healthz',
    method: ['GET'],
    handler: (_req, res) => {
      void (health?.() ?? Promise.resolve({ ok: true as const }))
        .catch((error: unknown) => ({ ok: false as const, reason: String(error) }))
        .then((answer) => {
          res.writeHead(answer.ok ? 200 : 503, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer));
        });
    },
  };
}

/** Liveness: 200 whenever the process can answer at all, whatever the store does. */
const livez: CustomRoute = {
  path: '/livez',
  method: ['GET'],
  handler: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  },
};

const BOLT_LEVEL: Record<Config['logLevel'], LogLevel> = {
  debug: LogLevel.DEBUG,
  info: LogLevel.WARN, // Bolt's info lines are noise for operators; ours carry what matters
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

const BOLT_SEVERITY: Record<LogLevel, number> = {
  [LogLevel.DEBUG]: 10,
  [LogLevel.INFO]: 20,
  [LogLevel.WARN]: 30,
  [LogLevel.ERROR]: 40,
};

/**
 * Bolt's (and its Web API and receiver clients') log lines through our logger, so every line is one
 * JSON object with secrets redacted. Bolt sets the level; our logger's own level applies on top.
 */
export function boltLogger(logger: Logger, name = 'bolt'): BoltLogger {
  let level = LogLevel.INFO;
  let source = name;
  const at =
    (lvl: LogLevel) =>
    (...parts: unknown[]): void => {
      if (BOLT_SEVERITY[lvl] < BOLT_SEVERITY[level]) return;
      const words = parts.filter((p) => typeof p === 'string' || typeof p === 'number').map(String);
      const error = parts.find((p) => p instanceof Error);
      const details = parts.filter((p) => typeof p !== 'string' && typeof p !== 'number' && p !== error);
      const message = words.join(' ') || error?.message || 'Bolt';
      logger[lvl](message, {
        source,
        ...(error ? { error } : {}),
        ...(details.length ? { details } : {}),
      });
    };
  return {
    debug: at(LogLevel.DEBUG),
    info: at(LogLevel.INFO),
    warn: at(LogLevel.WARN),
    error: at(LogLevel.ERROR),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: (next) => {
      source = next;
    },
  };
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
  const routes = [healthz(options.health), livez, ...(options.routes ?? [])];
  const { slack } = options;
  if (!slack.botToken) return routesOnly(routes, options);

  const slackApiUrl = slack.apiUrl ? `${slack.apiUrl.replace(/\/+$/, '')}/` : undefined;
  const logger = boltLogger(options.logger);
  const common = {
    token: slack.botToken,
    logger,
    logLevel: BOLT_LEVEL[options.logLevel ?? 'info'],
    // The error handler also gets the request's body, for the id its log line carries.
    extendedErrorHandler: true,
    // No listener reads Bolt's conversation context; its store would be one more step before each ack.
    convoStore: false as const,
    ...(slackApiUrl ? { clientOptions: { slackApiUrl } } : {}),
  };
  // Socket Mode serves the routes on our own server: Bolt's throws out of its listener on a target
  // that is not a path (`//`, `%zz`) and leaves the request unanswered.
  const routeHost = slack.mode === 'socket' ? routeServer(routes, options) : undefined;
  const app =
    slack.mode === 'socket'
      ? new App({ ...common, socketMode: true, appToken: slack.appToken })
      : new App({ ...common, receiver: guardedReceiver(slack.signingSecret ?? '', routes, logger, options) });
  withoutPrototypeKeys(app);
  // Socket Mode has no request guard: its requests are counted from Bolt's first step to the
  // listener's return (the listener has acked by then; answers run later, see in-flight.ts).
  const { traffic } = options;
  if (routeHost && traffic) {
    app.use(async ({ next }) => {
      traffic.arrived();
      const answered = traffic.acking();
      try {
        await next();
      } finally {
        answered();
      }
    });
  }
  app.error(async ({ error, body }: { error: CodedError; body: unknown }) => {
    const slackId = slackRequestId(body);
    const logger = slackId ? options.logger.child({ slackRequestId: slackId }) : options.logger;
    // Bolt wraps an error without a code of its own; the listener's error (and its stack) is inside.
    const thrown = error.code === ErrorCode.UnknownError && 'original' in error ? error.original : error;
    logger.error('unhandled error in a Slack listener', { error: thrown });
  });
  for (const plugin of options.plugins ?? []) plugin(app);

  const handle: SlackApp = {
    app,
    url: '',
    async start() {
      if (routeHost) {
        handle.url = await listen(routeHost, options);
        await app.start();
      } else {
        const listen = options.host ? { port: options.port, host: options.host } : options.port;
        const server = (await app.start(listen)) as Server;
        handle.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      }
      options.logger.info('Slack app started', { mode: slack.mode, url: handle.url });
    },
    async stop() {
      await app.stop();
      if (routeHost) await close(routeHost);
    },
  };
  return handle;
}

/**
 * Bolt's HTTP receiver, verifying requests as it always does, with every request to /slack/events
 * checked before Bolt reads it: a signed body of a shape Bolt does not expect (`null`, say) would
 * otherwise throw inside it and end the process.
 */
function guardedReceiver(
  signingSecret: string,
  routes: CustomRoute[],
  logger: BoltLogger,
  options: SlackAppOptions,
): HTTPReceiver {
  const receiver = new HTTPReceiver({
    signingSecret,
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
      ...(options.traffic ? { traffic: options.traffic } : {}),
    }),
    options.responseHeaders,
  );
  return receiver;
}

/** No Slack configured: serve the extra routes alone, so webhooks and health checks keep working. */
function routesOnly(routes: CustomRoute[], options: SlackAppOptions): SlackApp {
  const server = routeServer(routes, options);
  const handle: SlackApp = {
    app: undefined,
    url: '',
    async start() {
      handle.url = await listen(server, options);
      options.logger.warn(
        'Slack is not configured (no SLACK_BOT_TOKEN): serving webhooks and /healthz only',
        {
          url: handle.url,
        },
      );
    },
    async stop() {
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
  const matchers = routes.map((route) => ({
    route,
    test: match(route.path, { decode: decodeURIComponent }),
  }));
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req);
    if (path === undefined) {
      logger.warn('refused a request whose target is not a path', { status: 400 });
      return refuse(req, res, 400, 'the request target is not a valid path');
    }
    try {
      for (const { route, test } of matchers) {
        const methods = Array.isArray(route.method) ? route.method : [route.method];
        const found = test(path);
        if (found && methods.includes(req.method ?? 'GET')) {
          Object.assign(req, { params: found.params });
          void Promise.resolve(route.handler(req as Parameters<CustomRoute['handler']>[0], res)).catch(
            (error: unknown) => failed(req, res, logger, error),
          );
          return;
        }
      }
    } catch (error) {
      return failed(req, res, logger, error);
    }
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

function failed(req: IncomingMessage, res: ServerResponse, logger: Logger, error: unknown): void {
  logger.error('a request to an HTTP route failed', { error });
  refuse(req, res, 500, 'internal error');
}

async function listen(server: Server, options: SlackAppOptions): Promise<string> {
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
