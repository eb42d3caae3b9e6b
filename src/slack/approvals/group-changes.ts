// `subteam_members_changed`: Slack says a user group's members changed, so the roles and approver pools
// that name it read it again now rather than when their cache runs out. The event's own lists are not
// trusted for who holds a role; the re-read is.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../log.js';

const membersChangedSchema = z.object({ subteam_id: z.string().regex(/^S[A-Z0-9]+$/) });

export function registerGroupChanges(
  app: App,
  refreshGroup: (group: string) => Promise<unknown>,
  log?: Pick<Logger, 'warn'>,
): void {
  app.event('subteam_members_changed', async ({ event }) => {
    const parsed = membersChangedSchema.safeParse(event);
    if (!parsed.success) {
      log?.warn('subteam_members_changed could not be read', { problem: parsed.error.issues[0]?.message });
      return;
    }
    await refreshGroup(parsed.data.subteam_id).catch((error: unknown) => {
      log?.warn('could not re-read a user group', { group: parsed.data.subteam_id, error: String(error) });
    });
  });
}
