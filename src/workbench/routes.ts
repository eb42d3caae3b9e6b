// The workbench's HTTP routes on the bot's own server (added only when the workbench runs): the page at
// `/` with its assets under /workbench/, the state the page renders, a server-sent event per change,
// and the POST routes through which the person acts (protocol.ts). Bodies are checked with zod; a
// problem is answered as a sentence the page shows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { Sandbox } from '../sandbox/index.js';
import type { Interactions } from './interactions.js';
import { BOT, channelsFor, dmOwner, USERS, userById } from './people.js';
import {
  type Environment,
  type PasskeyRule,
  WORKBENCH_PREFIX,
  type WorkbenchAnswer,
  type WorkbenchState,
} from './protocol.js';
import { PageError } from './signed-requests.js';
import { SlackRefusal } from './slack-rules.js';
import type { Workspace } from './workspace.js';

const API = `${WORKBENCH_PREFIX}/api`;
const MAX_BODY = 64_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PageAssetsSource {
  html: string;
  js: string;
  css: string;
}

/** What the routes know of the running bot, once it started. */
export interface WorkbenchContext {
  environment: Environment;
  sandbox: Sandbox | undefined;
  /** The bot's signing rule, switched by the sandbox panel (absent: approvals are off). */
  passkeys?: PasskeyRule | undefined;
}

export interface RoutesOptions {
  workspace: Workspace;
  interactions: Interactions;
  logger: Logger;
  /** SANDBOX or TEST, the sandbox when it is the embedded one, the signing rule; known once the bot started. */
  context: () => WorkbenchContext;
  /** The page (html, bundle, stylesheet). */
  assets: () => Promise<PageAssetsSource>;
}

const userId = z.string().refine((id) => Boolean(userById(id)), 'must be one of the demo users');
const text = z.string().max(40_000);
const commandInput = z.strictObject({ user: userId, channel: z.string().min(1), text: text.min(1) });
const messageInput = z.strictObject({
  user: userId,
  channel: z.string().min(1),
  text: text.min(1),
  thread_ts: z.string().optional(),
});
const actionInput = z.strictObject({
  user: userId,
  container: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('message'), channel: z.string().min(1), ts: z.string().min(1) }),
    z.strictObject({ type: z.literal('view'), view_id: z.string().min(1) }),
    z.strictObject({ type: z.literal('home') }),
  ]),
  block_id: z.string().min(1),
  action_id: z.string().min(1),
  value: z.string().optional(),
});
const submitInput = z.strictObject({
  user: userId,
  view_id: z.string().min(1),
  values: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()]))),
});
const closeInput = z.strictObject({ user: userId, view_id: z.string().min(1) });
const suggestInput = z.strictObject({
  user: userId,
  view_id: z.string().min(1),
  block_id: z.string().min(1),
  action_id: z.string().min(1),
  value: z.string().max(2000),
});
const homeInput = z.strictObject({ user: userId });
const amount = z.union([z.string(), z.number()]).transform(String);
const sandboxInputs = {
  pay: z.strictObject({ account: z.string().min(1).optional(), amount: amount.optional() }),
  'crypto-deposit': z.strictObject({ amount, network: z.string().min(1).optional() }),
  settle: z.strictObject({}),
  'fail-next-redemption': z.strictObject({}),
} as const;
const passkeysInput = z.strictObject({ required: z.boolean() });

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json; charset=utf-8') {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new PageError('The request is too large');
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw.trim()) return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw new PageError('The request is not JSON');
  }
}

const issues = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');

/** Every route of the workbench, for the bot's HTTP server. */
export function workbenchRoutes(options: RoutesOptions): CustomRoute[] & { endStreams(): void } {
  const { interactions } = options;
  const post = postRoute(options);
  const streams = new Set<ServerResponse>();
  const routes: CustomRoute[] = [
    ...pageRoutes(options),
    stateRoute(options),
    eventsRoute(options, streams),
    previewRoute(options.workspace),
    post('/command', commandInput, (input) => interactions.command(input)),
    post('/message', messageInput, (input) => interactions.message(input)),
    post('/action', actionInput, (input) => interactions.action(input)),
    post('/view/submit', submitInput, (input) => interactions.submit(input)),
    post('/view/close', closeInput, (input) => interactions.close(input)),
    post('/suggest', suggestInput, (input) => interactions.suggest(input)),
    post('/home', homeInput, (input) => interactions.home(input)),
    ...(Object.keys(sandboxInputs) as Array<keyof typeof sandboxInputs>).map((action) =>
      post(
        `/sandbox/${action}`,
        sandboxInputs[action] as z.ZodType<Record<string, string | undefined>>,
        (input) => sandboxAction(options.context().sandbox, action, input),
      ),
    ),
    post('/sandbox/passkeys', passkeysInput, async (input) =>
      requirePasskeys(options.context(), input.required),
    ),
  ];
  return Object.assign(routes.map(guarded), {
    /** End every open event stream (before the server closes, which waits for open connections). */
    endStreams: () => {
      for (const res of streams) res.end();
      streams.clear();
    },
  });
}

/** A POST route under the API: its body checked against `schema`, then handed to `act`. */
function postRoute({ workspace, logger }: RoutesOptions) {
  return <S extends z.ZodType>(
    path: string,
    schema: S,
    act: (input: z.infer<S>, params: Record<string, string>) => Promise<unknown>,
  ): CustomRoute => ({
    path: `${API}${path}`,
    method: ['POST'],
    handler: (req, res) => {
      void (async () => {
        try {
          const parsed = schema.safeParse(await readJson(req));
          if (!parsed.success)
            return send(res, 400, { ok: false, error: issues(parsed.error) } satisfies WorkbenchAnswer);
          const result = await act(parsed.data, (req.params ?? {}) as Record<string, string>);
          const answer = result && typeof result === 'object' ? result : {};
          send(res, 200, { ok: true, ...answer, version: await workspace.version() });
        } catch (error) {
          await answerFailure(res, error, workspace, () =>
            logger.error('workbench request failed', { path, error }),
          );
        }
      })();
    },
  });
}

/** A POST that failed: the page's own refusal as a sentence (422), anything else logged (500). */
async function answerFailure(res: ServerResponse, error: unknown, workspace: Workspace, log: () => void) {
  if (error instanceof PageError || error instanceof SlackRefusal) {
    return send(res, 422, {
      ok: false,
      error: error.message,
      version: await workspace.version(),
    } satisfies WorkbenchAnswer);
  }
  log();
  send(res, 500, {
    ok: false,
    error: 'The workbench could not do that; see its log',
  } satisfies WorkbenchAnswer);
}

/** The page at `/`, and its script and stylesheet. */
function pageRoutes({ assets, logger }: RoutesOptions): CustomRoute[] {
  return [
    {
      path: '/',
      method: ['GET'],
      handler: (_req, res) => {
        void assets().then(
          (a) => send(res, 200, a.html, 'text/html; charset=utf-8'),
          (error: unknown) => {
            logger.error('workbench page could not be built', { error });
            send(
              res,
              500,
              'The workbench page could not be built; see the log.',
              'text/plain; charset=utf-8',
            );
          },
        );
      },
    },
    ...(['js', 'css'] as const).map(
      (kind): CustomRoute => ({
        path: `${WORKBENCH_PREFIX}/app.${kind}`,
        method: ['GET'],
        handler: (_req, res) => {
          void assets().then(
            (a) =>
              send(
                res,
                200,
                a[kind],
                kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
              ),
            () => send(res, 500, '', 'text/plain'),
          );
        },
      }),
    ),
  ];
}

/** What the page renders for one person (`?user=`). */
function stateRoute({ workspace, logger, context }: RoutesOptions): CustomRoute {
  return {
    path: `${API}/state`,
    method: ['GET'],
    handler: (req, res) => {
      const user = new URL(req.url ?? '/', 'http://localhost').searchParams.get('user') ?? '';
      if (!userById(user))
        return send(res, 400, {
          ok: false,
          error: `user: must be one of ${USERS.map((u) => u.id).join(', ')}`,
        });
      void stateFor(workspace, user, context()).then(
        (state) => send(res, 200, state),
        (error: unknown) => {
          logger.error('workbench state failed', { error });
          send(res, 500, { ok: false, error: 'The workbench could not read its state' });
        },
      );
    },
  };
}

/** A server-sent event with the workspace's version at each change; `streams` holds the open ones. */
function eventsRoute({ workspace, logger }: RoutesOptions, streams: Set<ServerResponse>): CustomRoute {
  return {
    path: `${API}/events`,
    method: ['GET'],
    handler: (req, res) => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      // Open for the page now, not at the first event: the version below may fail to be read.
      res.flushHeaders();
      streams.add(res);
      const write = (version: number) => res.write(`data: ${JSON.stringify({ version })}\n\n`);
      const unsubscribe = workspace.subscribe(write);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 25_000);
      keepAlive.unref();
      req.on('close', () => {
        clearInterval(keepAlive);
        unsubscribe();
        streams.delete(res);
      });
      // The stream stays open: the next change still reaches the page.
      workspace.version().then(write, (error: unknown) => {
        logger.error('workbench event stream could not read the version', { error });
      });
    },
  };
}

/** A file the bot uploaded, as a picture when it is a PNG. */
function previewRoute(workspace: Workspace): CustomRoute {
  return {
    path: `${API}/files/:id/preview`,
    method: ['GET'],
    handler: (req, res) => {
      void workspace.file(String(req.params?.id ?? '')).then(
        (file) => {
          const bytes = file && /\.png$/i.test(file.name) ? Buffer.from(file.base64, 'base64') : undefined;
          // Only what is a PNG is answered as one.
          if (!bytes?.subarray(0, 8).equals(PNG_SIGNATURE))
            return send(res, 404, 'No such picture', 'text/plain');
          send(res, 200, bytes, 'image/png');
        },
        () => send(res, 500, '', 'text/plain'),
      );
    },
  };
}

export const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * Only the person at this machine's browser: a request must name a loopback host (a web page
 * elsewhere that rebinds its DNS name to 127.0.0.1 still sends its own name), and a POST must be
 * JSON, which a page on another origin cannot send without the browser asking first (a form can
 * post text/plain, not application/json). The server itself listens on 127.0.0.1 only.
 */
function guarded(route: CustomRoute): CustomRoute {
  return {
    ...route,
    handler: (req, res) => {
      if (!LOOPBACK_HOST.test(req.headers.host ?? '')) {
        return send(res, 403, { ok: false, error: 'The workbench answers only on 127.0.0.1 or localhost' });
      }
      if (req.method === 'POST' && !/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        return send(res, 415, {
          ok: false,
          error: 'The workbench takes JSON (content-type: application/json)',
        });
      }
      return route.handler(req, res);
    },
  };
}

async function sandboxAction(
  sandbox: Sandbox | undefined,
  action: keyof typeof sandboxInputs,
  input: Record<string, string | undefined>,
): Promise<Record<string, unknown>> {
  if (!sandbox)
    throw new PageError('The sandbox panel works only with the embedded sandbox (no CNGN_API_KEY set)');
  try {
    switch (action) {
      case 'pay': {
        const account = input.account ?? sandbox.latestTemporaryAccount();
        if (!account) throw new PageError('No virtual account to pay yet: run /cngn deposit first');
        await sandbox.payTemporaryAccount(account, input.amount);
        return { account };
      }
      case 'crypto-deposit':
        return await sandbox.simulateCryptoDeposit({
          amount: input.amount ?? '',
          ...(input.network ? { network: input.network } : {}),
        });
      case 'settle':
        await sandbox.settleAll();
        return {};
      case 'fail-next-redemption':
        sandbox.failNextRedemption();
        return {};
    }
  } catch (error) {
    if (error instanceof PageError) throw error;
    // The sandbox's own refusal (an expired account, a wrong amount, an unknown network) is the answer.
    throw new PageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * "Require passkeys": the running bot's signing rule to all or off. The embedded sandbox only: the
 * workbench never starts with a live key, and a test key's service is not the panel's to change.
 */
async function requirePasskeys(
  context: WorkbenchContext,
  on: boolean,
): Promise<{ passkeysRequired: boolean }> {
  if (!context.sandbox)
    throw new PageError('The sandbox panel works only with the embedded sandbox (no CNGN_API_KEY set)');
  const { passkeys } = context;
  if (!passkeys) throw new PageError('Approvals are off here: there is nothing to sign');
  if (!(await passkeys.require(on))) throw new PageError('The signing rule cannot be switched here');
  return { passkeysRequired: passkeys.required() };
}

/** Everything the page shows one person. */
async function stateFor(
  workspace: Workspace,
  user: string,
  context: WorkbenchContext,
): Promise<WorkbenchState> {
  const channels = channelsFor(user);
  const extra = (await workspace.channelIds()).filter(
    (id) => !channels.some((c) => c.id === id) && !id.startsWith('D'),
  );
  // Channels the bot posted to that are not the demo ones (an operator's own CNGN_* channel IDs).
  const all = [
    ...channels.slice(0, 3),
    ...extra.map((id) => ({ id, name: id.toLowerCase(), kind: 'channel' as const })),
    ...channels.slice(3),
  ];
  const messages: WorkbenchState['messages'] = {};
  for (const channel of all) {
    const owner = dmOwner(channel.id);
    if (owner && owner !== user) continue;
    messages[channel.id] = (await workspace.messages(channel.id)).filter(
      (m) => !m.visibleTo || m.visibleTo === user,
    );
  }
  const home = await workspace.home(user);
  return {
    environment: context.environment,
    sandbox: Boolean(context.sandbox),
    ...(context.passkeys ? { passkeysRequired: context.passkeys.required() } : {}),
    bot: { id: BOT.id, name: BOT.name },
    users: [...USERS],
    channels: all,
    messages,
    modals: await workspace.modals(user),
    home,
    version: await workspace.version(),
  };
}
