// Freezes, as the start-up wiring lists them: the approvals channel is told when sends are frozen or
// resume, and what shows requests is rendered again.
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine } from '../../approvals/index.js';
import type { Logger } from '../../log.js';
import type { Installed } from '../runtime/installed.js';
import { type FreezeSurfaces, tellFreeze } from './notices.js';

export interface FreezeNoticesDeps {
  engine: ApprovalEngine;
  /** The client approval messages are presented through. */
  client: (app: App) => WebClient;
  approvalsChannel: string;
  /** What the approvals feature shows, read at each change (set once its listeners ran). */
  surfaces: () => FreezeSurfaces;
  log?: Pick<Logger, 'warn'> | undefined;
}

export function installFreezeNotices(deps: FreezeNoticesDeps): Installed {
  return {
    listeners: (app) => {
      tellFreeze(deps.engine, deps.client(app), deps.approvalsChannel, deps.surfaces, deps.log);
    },
  };
}
