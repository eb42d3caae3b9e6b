// The App Home tab: `app_home_opened` (read with zod) publishes the person's Home and remembers that
// they use it. Its Approve / Reject buttons are the channel's own (same action ids and values), so
// approvals/actions/buttons.ts takes them; nothing here decides anything about a request.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../../../log.js';
import type { HomePublisher } from './publisher.js';

const homeOpenedSchema = z.object({
  user: z.string().regex(/^[UW][A-Z0-9]+$/),
  tab: z.string().optional(),
});

export function registerHome(app: App, home: HomePublisher, log?: Pick<Logger, 'warn'>): void {
  app.event('app_home_opened', async ({ event }) => {
    const parsed = homeOpenedSchema.safeParse(event);
    if (!parsed.success) {
      log?.warn('app_home_opened could not be read', { problem: parsed.error.issues[0]?.message });
      return;
    }
    // The Messages tab fires this event too; only Home is ours to draw.
    if (parsed.data.tab !== undefined && parsed.data.tab !== 'home') return;
    await home.homeOpened(parsed.data.user).catch((error: unknown) => {
      log?.warn('could not open App Home', { error: String(error) });
    });
  });
}
