// `user_change` (someone's account changed: made a guest, deactivated, renamed) and `team_join`
// (someone joined the workspace): the people directory forgets what it kept of them, so the gate asks
// Slack again at their next request rather than letting them in on a five-minute-old answer; and
// whoever vets delegations hears of it, so a delegate who may no longer act stops counting at once.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../log.js';
import type { People, SlackUser } from '../runtime/people.js';

/** The events whose listener keeps the directory current; declared in access.ts like every listener. */
export const USER_CHANGE_EVENT = 'user_change' as const;
export const TEAM_JOIN_EVENT = 'team_join' as const;

/** Told of the person whose account changed, after the directory forgot them, with the event's account. */
export type AccountChanged = (user: string, account: SlackUser) => Promise<void>;

const userChangeSchema = z.object({
  user: z.looseObject({ id: z.string().regex(/^[UW][A-Z0-9]+$/) }),
});

export function registerUserChanges(
  app: App,
  people: People,
  options: { log?: Pick<Logger, 'warn'>; accountChanged?: AccountChanged } = {},
): void {
  const { log, accountChanged } = options;
  for (const name of [USER_CHANGE_EVENT, TEAM_JOIN_EVENT]) {
    app.event(name, async ({ event }) => {
      const parsed = userChangeSchema.safeParse(event);
      if (!parsed.success) {
        // Nobody to forget: forget everyone rather than keep an answer that may be stale.
        log?.warn(`${name} could not be read: the bot asks Slack about everyone again`, {
          problem: parsed.error.issues[0]?.message,
        });
        people.forget();
        return;
      }
      const user = parsed.data.user.id;
      people.forget(user);
      await accountChanged?.(user, parsed.data.user as SlackUser).catch((error: unknown) => {
        log?.warn('could not vet the delegations of someone whose account changed', {
          user,
          error: String(error),
        });
      });
    });
  }
}
