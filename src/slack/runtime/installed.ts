// What a feature hands the start-up wiring (wiring/bot.ts): the HTTP routes it serves, the Bolt
// listeners it registers once the start-up check named the bot, and how it stops. The wiring lists
// the features; their listeners go in in that order and they stop in the reverse one.
import type { App, CustomRoute } from '@slack/bolt';
import type { SlackIdentity } from './startup-check.js';

/** Registers a feature's listeners on the app (the order of registration is the order Bolt runs them). */
export type Listeners = (app: App, identity: SlackIdentity) => void;

export interface Installed {
  routes?: CustomRoute[];
  listeners?: Listeners;
  stop?: () => Promise<void> | void;
}

/** Every route, in the order of the list. */
export function routesOf(installs: readonly Installed[]): CustomRoute[] {
  return installs.flatMap((part) => part.routes ?? []);
}

/** Every feature's listeners, in the order of the list. */
export function listenersOf(installs: readonly Installed[]): Listeners[] {
  return installs.flatMap((part) => (part.listeners ? [part.listeners] : []));
}

/**
 * Stops each part in the reverse order of the list, one after the other. A part whose stop fails does not
 * keep the ones before it running (the engine still releases its leases when Slack's stop failed): its
 * failure is thrown once every part was asked, several together as one AggregateError.
 */
export async function stopInReverse(installs: readonly Installed[]): Promise<void> {
  const failures: unknown[] = [];
  for (const part of [...installs].reverse()) {
    try {
      await part.stop?.();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1)
    throw new AggregateError(failures, `${failures.length} parts of the bot failed to stop`);
}
