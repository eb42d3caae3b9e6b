// The extra HTTP routes (webhooks, callbacks, the workbench), each path's pattern compiled once. Bolt's
// HTTP receiver compiles every route's pattern again for each request it serves that way, before it
// finds the route; every webhook went through that. The table takes routes as Bolt does: methods
// upper-cased, a path named twice keeps its first place, and a method named again for a path is
// served by the later handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { match } from 'path-to-regexp';
import type { Logger } from '../../log.js';
import { refuse } from './request-guard.js';

type Handler = CustomRoute['handler'];

/** Serves a request if a route takes it (true), with `req.params` set as Bolt sets them; else false. */
export type RouteTable = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

export function routeTable(routes: readonly CustomRoute[], logger: Logger): RouteTable {
  const byPath = new Map<string, Record<string, Handler>>();
  for (const route of routes) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const handlers = byPath.get(route.path) ?? {};
    for (const method of methods) handlers[method.toUpperCase()] = route.handler;
    byPath.set(route.path, handlers);
  }
  const table = [...byPath].map(([path, handlers]) => ({
    handlers,
    test: match(path, { decode: decodeURIComponent }),
  }));
  return (req, res, path) => {
    const method = (req.method ?? 'GET').toUpperCase();
    try {
      for (const { handlers, test } of table) {
        const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
        if (!handler) continue;
        const found = test(path);
        if (!found) continue;
        Object.assign(req, { params: found.params });
        void Promise.resolve(handler(req as Parameters<Handler>[0], res)).catch((error: unknown) =>
          failed(req, res, logger, error),
        );
        return true;
      }
    } catch (error) {
      failed(req, res, logger, error);
      return true;
    }
    return false;
  };
}

function failed(req: IncomingMessage, res: ServerResponse, logger: Logger, error: unknown): void {
  logger.error('a request to an HTTP route failed', { error });
  refuse(req, res, 500, 'internal error');
}
