// The bot's passkey pages (docs/passkeys.md), installed by the wiring when approvals are on and
// approvals are signed: the routes on the bot's HTTP server (Socket Mode too), and, once the Slack app
// exists, its client for the private word a refusal is also said in, and the workspace it is installed
// in, the only one whose links the pages open. A leaf: nothing imports it but the wiring.
import type { App } from '@slack/bolt';
import type { ApprovalEngine, PasskeyPageRefusal } from '../approvals/index.js';
import type { Logger } from '../log.js';
import type { Installed } from '../slack/runtime/installed.js';
import { type Barred, barred, type People } from '../slack/runtime/people.js';
import { pageAssets } from './assets.js';
import { signingRoutes } from './routes.js';

export interface SigningPagesSetup {
  engine: ApprovalEngine;
  /** The signing URL's origin (engine.passkeys.signatures().options.origin). */
  origin: string;
  log: Pick<Logger, 'warn' | 'error'>;
  /** The people the bot meets (users.info, kept briefly), once the Slack app exists. */
  people?: () => People | undefined;
  /** Counts a link or registration the pages refused (the metrics). */
  refused: (reason: PasskeyPageRefusal) => void;
}

/** "Ade Bello" as Slack names `user`, or undefined when Slack does not answer or knows no other name. */
function namer(people: SigningPagesSetup['people']): (user: string) => Promise<string | undefined> {
  return async (user) => {
    const name = await people?.()
      ?.lookup(user)
      .then((person) => person.name)
      .catch(() => undefined);
    return name && name !== user ? name : undefined;
  };
}

/** Why the access gate would refuse `user` (its own rule, on the directory it shares); rejects when Slack cannot say. */
function barredBy(people: SigningPagesSetup['people']): (user: string) => Promise<Barred | undefined> {
  return async (user) => {
    const directory = people?.();
    if (!directory) throw new Error('the directory of people is not made yet');
    return barred(await directory.lookup(user));
  };
}

export function installSigningPages(setup: SigningPagesSetup): Installed {
  let client: App['client'] | undefined;
  let homeTeam: string | undefined;
  const { log } = setup;
  const tell = async (user: string, text: string) => {
    if (!client) return;
    try {
      await client.chat.postMessage({ channel: user, text });
    } catch (error) {
      log.warn('could not tell an approver privately why a passkey page refused', {
        user,
        error: String(error),
      });
    }
  };
  // The first page asked for would otherwise wait for the bundle.
  pageAssets().catch(() => undefined);
  return {
    routes: signingRoutes({
      engine: setup.engine,
      origin: setup.origin,
      log,
      homeTeam: () => homeTeam,
      refused: setup.refused,
      tell,
      nameOf: namer(setup.people),
      barredOf: barredBy(setup.people),
      assets: pageAssets,
    }),
    listeners: (app, identity) => {
      client = app.client;
      homeTeam = identity.teamId;
    },
  };
}
