// `user_change`: Slack says someone's account changed (made a guest, deactivated, renamed). The people
// directory forgets what it kept of them, so the gate asks Slack again at their next request rather
// than letting them in on a five-minute-old answer.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../log.js';
import type { People } from '../runtime/people.js';

/** The event whose listener keeps the directory current; declared in access.ts like every listener. */
export const USER_CHANGE_EVENT = 'user_change' as const;

const userChangeSchema = z.object({ user: z.object({ id: z.string().regex(/^[UW][A-Z0-9]+$/) }) });

export function registerUserChanges(app: App, people: People, log?: Pick<Logger, 'warn'>): void {
  app.event(USER_CHANGE_EVENT, async ({ event }) => {
    const parsed = userChangeSchema.safeParse(event);
    if (!parsed.success) {
      // Nobody to forget: forget everyone rather than keep an answer that may be stale.
      log?.warn('user_change could not be read: the bot asks Slack about everyone again', {
        problem: parsed.error.issues[0]?.message,
      });
      people.forget();
      return;
    }
    people.forget(parsed.data.user.id);
  });
}
