// Delegations, as the start-up wiring lists them: the vetting of delegates (before the approvals'
// listeners, so it hears a delegation take effect first) and the delegate's DMs (after them).
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { ApprovalEngine } from '../../approvals/index.js';
import type { Logger } from '../../log.js';
import type { Store } from '../../store/index.js';
import type { Installed } from '../runtime/installed.js';
import { barred, type People } from '../runtime/people.js';
import type { ApprovalSlackDeps } from '../types.js';
import { DelegateVetting } from './membership.js';
import { tellDelegates } from './notices.js';

/** Where the vetting is kept once made: the gate asks it, and it stops with the engine. */
interface VettingSlot {
  vetting: DelegateVetting | undefined;
}

export interface DelegateVettingDeps {
  engine: ApprovalEngine;
  /** The gate's directory, as it is now (made on the app's client when the gate met no one yet). */
  people: (app: App) => People;
  /** The approvals feature's deps: given the vetting and who may act. */
  approvals: ApprovalSlackDeps;
  slot: VettingSlot;
  log?: Pick<Logger, 'warn'> | undefined;
}

/** Delegates vetted at filing, and their delegations ended once they may no longer act. */
export function installDelegateVetting(deps: DelegateVettingDeps): Installed {
  return {
    listeners: (app) => {
      const people = deps.people(app);
      const vetting = new DelegateVetting({ engine: deps.engine, people, log: deps.log });
      deps.slot.vetting = vetting;
      deps.approvals.delegates = vetting;
      deps.approvals.mayAct = (user) => mayAct(deps.people(app), user);
      vetting.start();
    },
  };
}

export interface DelegateNoticesDeps {
  engine: ApprovalEngine;
  /** The client approval messages are presented through. */
  client: (app: App) => WebClient;
  store: Store;
  /** Whether Slack describes the user as able to act here; set once the vetting is installed. */
  mayAct: () => ((user: string) => Promise<boolean>) | undefined;
  log?: Pick<Logger, 'warn'> | undefined;
}

/** The delegate hears, by DM, when a delegation to them takes effect or is revoked. */
export function installDelegateNotices(deps: DelegateNoticesDeps): Installed {
  return {
    listeners: (app) => {
      const mayActHere = deps.mayAct() ?? (async () => false);
      tellDelegates(deps.engine, deps.client(app), deps.store, mayActHere, deps.log);
    },
  };
}

/** Someone Slack describes as able to act here; when Slack cannot say, not taken as one. */
async function mayAct(people: People, user: string): Promise<boolean> {
  try {
    return !barred(await people.lookup(user));
  } catch {
    return false;
  }
}
