// The passkey pages' routes on the bot's own HTTP server (docs/passkeys.md): GET /passkeys/register
// and /passkeys/sign (the page; its address carries only the one-time token), their script and
// stylesheet under /passkeys/assets/, and the JSON calls under /passkeys/api/; any other path under
// /passkeys/ is a 404. Every answer carries the pages' headers (http.ts). A page opened on another
// name for this server (127.0.0.1 where the signing URL says localhost) is sent to the signing host
// first: the browser makes and uses passkeys for the host in its address bar.
import { type IncomingMessage, METHODS, type ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { z } from 'zod';
import { type PageDeps, registerFile, registerOptions, signOptions, signSubmit, tokenHash } from './api.js';
import type { PageAssets } from './assets.js';
import {
  fromSigningPage,
  onSigningHost,
  PageProblem,
  readJson,
  redirectToSigningHost,
  type SigningHost,
  send,
  sendJson,
  sendProblem,
  signingHost,
} from './http.js';
import { ASSETS, CALLS, PASSKEY_PREFIX, REGISTER_PAGE, SIGN_PAGE } from './protocol.js';
import { issues, registerFileInput, signSubmitInput, tokenInput } from './schemas.js';

export interface RoutesOptions extends PageDeps {
  /** The signing URL's origin (CNGN_SIGNING_URL): its host is the passkeys' relying party. */
  origin: string;
  assets: () => Promise<PageAssets>;
  log: PageDeps['log'] & { error(message: string, fields?: Record<string, unknown>): void };
}

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** Every route of the passkey pages. */
export function signingRoutes(options: RoutesOptions): CustomRoute[] {
  const where = signingHost(options.origin);
  const call = callRoute(options, where);
  return [
    pageRoute(REGISTER_PAGE, options, where),
    pageRoute(SIGN_PAGE, options, where),
    ...(['js', 'css'] as const).map((kind) => assetRoute(kind, options)),
    call(CALLS.registerOptions, tokenInput, (input) => registerOptions(options, input)),
    call(CALLS.registerFile, registerFileInput, (input) => registerFile(options, input)),
    call(CALLS.signOptions, tokenInput, (input) => signOptions(options, input)),
    call(CALLS.signSubmit, signSubmitInput, (input) => signSubmit(options, input)),
    // Last: the routes are tried in order.
    unknownRoute(),
  ];
}

/**
 * Any other path (or method) under /passkeys: 404 with the pages' headers, where the server's own
 * answer would carry none of them.
 */
function unknownRoute(): CustomRoute {
  return {
    path: `${PASSKEY_PREFIX}{/*rest}`,
    method: METHODS,
    handler: (_req, res) => send(res, 404, 'Not found.', 'text/plain; charset=utf-8'),
  };
}

function pageRoute(path: string, { assets, log }: RoutesOptions, where: SigningHost): CustomRoute {
  return {
    path,
    method: ['GET'],
    handler: (req, res) => {
      if (!onSigningHost(req, where)) return redirectToSigningHost(req, res, where);
      void assets().then(
        (a) => send(res, 200, a.html, 'text/html; charset=utf-8'),
        (error: unknown) => {
          log.error('the passkey pages could not be built', { error: String(error) });
          send(
            res,
            500,
            'The passkey page could not be built; see the bot’s log.',
            'text/plain; charset=utf-8',
          );
        },
      );
    },
  };
}

function assetRoute(kind: 'js' | 'css', { assets }: RoutesOptions): CustomRoute {
  return {
    path: `${ASSETS}/app.${kind}`,
    method: ['GET'],
    handler: (_req, res) => {
      void assets().then(
        (a) => send(res, 200, a[kind], TYPES[kind]),
        () => send(res, 500, '', 'text/plain; charset=utf-8'),
      );
    },
  };
}

/** A POST of the JSON API: from the signing page, its body checked against `schema`, then `act`. */
function callRoute({ log }: RoutesOptions, where: SigningHost) {
  return <S extends z.ZodType>(path: string, schema: S, act: (input: z.infer<S>) => Promise<unknown>) =>
    ({
      path,
      method: ['POST'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        const elsewhere = fromSigningPage(req, where);
        if (elsewhere) {
          void tokenIn(req).then((token) => {
            log.warn('a passkey page call came from elsewhere than the signing page', {
              page: path,
              ...(token ? { link: tokenHash(token) } : {}),
              host: req.headers.host,
              origin: req.headers.origin,
            });
            sendProblem(res, 403, elsewhere);
          });
          return;
        }
        void (async () => {
          try {
            const parsed = schema.safeParse(await readJson(req));
            if (!parsed.success) return sendProblem(res, 400, issues(parsed.error));
            sendJson(res, 200, await act(parsed.data));
          } catch (error) {
            if (error instanceof PageProblem) {
              return sendProblem(res, error.status, error.message, error.headers);
            }
            log.error('a passkey page call failed', { path, error: String(error) });
            sendProblem(res, 500, 'The bot could not do that just now; nothing changed. Try again shortly.');
          }
        })();
      },
    }) satisfies CustomRoute;
}

/** The token a refused call carried, if its body is JSON with one (for its hash in the log). */
async function tokenIn(req: IncomingMessage): Promise<string | undefined> {
  try {
    const token = ((await readJson(req)) as { token?: unknown } | null)?.token;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}
