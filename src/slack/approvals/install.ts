// Approvals, as the start-up wiring lists them: the bridge callback route, the listeners (the requests'
// messages, approvers' DMs, App Home, reminders), and a stop that lets the engine drain first.
import { setTimeout as sleep } from 'node:timers/promises';
import type { App, CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Roles } from '../../access/index.js';
import { type ApprovalEngine, STOP_DRAIN_MS } from '../../approvals/index.js';
import type { CngnApi } from '../../cngn/api.js';
import type { ApprovalNotify } from '../../config.js';
import type { Store } from '../../store/index.js';
import type { RecentAlerts } from '../../webhooks/recent.js';
import type { Installed } from '../runtime/installed.js';
import type { ApprovalSlackDeps } from '../types.js';
import { ApprovalDms } from './dms.js';
import { HomePublisher } from './home/publisher.js';
import { registerHome } from './home/register.js';
import type { ApprovalPresenter } from './presenter.js';
import { handleBridgeCallback, registerApprovals } from './register.js';
import { registerApprovalReminders } from './reminders.js';

const BRIDGE_CALLBACK_PATH = '/callbacks/bridge/:token';

/** What keeps approvals current in Slack, kept where the wiring (and the freeze notices) can reach it. */
interface ApprovalSurfaces {
  presenter: ApprovalPresenter | undefined;
  dms: ApprovalDms | undefined;
  home: HomePublisher | undefined;
  /** The vetting of delegates acts through the engine: it stops with it. */
  vetting?: { stop(): void } | undefined;
}

export interface ApprovalsInstallDeps {
  engine: ApprovalEngine;
  /** The deps every approval listener is given (the delegation feature adds delegates and mayAct). */
  slack: ApprovalSlackDeps;
  surfaces: ApprovalSurfaces;
  /** The client approval messages are presented through. */
  client: (app: App) => WebClient;
  store: Store;
  api: CngnApi;
  /** Who holds which role, as the gate asks for reading (a live delegate reads too). */
  roles: Roles;
  alertsChannel?: string | undefined;
  /** CNGN_APPROVAL_NOTIFY (default both). */
  notify?: ApprovalNotify | undefined;
  alerts?: RecentAlerts | undefined;
  homeDebounceMs?: number | undefined;
  now?: (() => Date) | undefined;
  log?: ApprovalSlackDeps['log'] | undefined;
  /** When the bot began to stop (the drain bound counts from there). */
  stopBegan: () => number;
}

/**
 * The bridge callback route, the listeners, and a stop that gives executions under way what is left of
 * the drain bound (at least a second) from `stopBegan`, then finishes approval messages and DMs already
 * under way (bounded) before the store closes.
 */
export function installApprovals(deps: ApprovalsInstallDeps): Installed {
  const { engine, surfaces } = deps;
  return {
    routes: [
      rawBodyRoute(BRIDGE_CALLBACK_PATH, (params, body) =>
        handleBridgeCallback(deps.slack, params.token ?? '', body),
      ),
    ],
    listeners: (app) => registerAll(app, deps),
    stop: async () => {
      // Left loudly, well before main's forced exit: an answer the store will not take is logged, not lost.
      const drainMs = Math.max(1_000, STOP_DRAIN_MS - (Date.now() - deps.stopBegan()));
      await engine.stop({ drainMs });
      surfaces.home?.stop();
      surfaces.vetting?.stop();
      surfaces.presenter?.stop();
      const presenting = Promise.all([
        surfaces.presenter?.idle(),
        surfaces.dms?.idle(),
        surfaces.home?.idle(),
      ]);
      await Promise.race([presenting, sleep(10_000, undefined, { ref: false })]);
    },
  };
}

/** The listeners, and what keeps messages, DMs and Home current. */
function registerAll(app: App, deps: ApprovalsInstallDeps): void {
  const { engine, slack, surfaces, store } = deps;
  const notify = deps.notify ?? 'both';
  surfaces.presenter = registerApprovals(app, slack, store, {
    approverButtons: notify !== 'dm',
    alertsChannel: deps.alertsChannel,
  });
  const common = {
    engine,
    client: deps.client(app),
    store,
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  };
  if (notify !== 'channel') {
    surfaces.dms = new ApprovalDms({ ...common, mayAct: slack.mayAct });
    surfaces.dms.listen();
    void surfaces.dms.recover();
  }
  surfaces.home = new HomePublisher({
    ...common,
    api: deps.api,
    alerts: deps.alerts,
    roles: deps.roles,
    mayAct: slack.mayAct,
    ...(deps.homeDebounceMs !== undefined ? { debounceMs: deps.homeDebounceMs } : {}),
  });
  surfaces.home.listen();
  registerHome(app, surfaces.home, deps.log);
  registerApprovalReminders(app, slack, store);
}

/** A POST route given its body as text (16 KiB at most: more is refused with 413). */
function rawBodyRoute(
  path: string,
  handle: (params: Record<string, string>, body: string) => Promise<{ status: number; body: string }>,
): CustomRoute {
  return {
    path,
    method: ['POST'],
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 16_384) chunks.push(chunk);
      });
      req.on('end', () => {
        const answer =
          size > 16_384
            ? Promise.resolve({ status: 413, body: 'too large' })
            : handle((req.params ?? {}) as Record<string, string>, Buffer.concat(chunks).toString('utf8'));
        void answer
          .catch(() => ({ status: 500, body: 'error' }))
          .then((a) => {
            res.writeHead(a.status, { 'content-type': 'text/plain' });
            res.end(a.body);
          });
      });
    },
  };
}
