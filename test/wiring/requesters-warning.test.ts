// Start-up says so when every member who is not a guest may file money requests (CNGN_REQUESTERS
// unset), and says nothing once requesters are named.
import { describe, expect } from 'vitest';
import { start } from '../../src/wiring/startup.js';
import { capturedLog } from '../support/captured-log.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { slackTest as it } from '../support/file-slack.js';

const WARNING = 'every member who is not a guest may file money requests: set CNGN_REQUESTERS';

describe('start-up warning about requesters', () => {
  async function warningsWith(slack: FakeSlack, env: Record<string, string>): Promise<string[]> {
    const { logger, entries } = capturedLog<{ message?: string }>('warn');
    const started = await start(
      {
        PORT: '0',
        ADMIN_PORT: '0',
        STORE_URL: 'memory://',
        SLACK_BOT_TOKEN: 'xoxb-real-looking',
        SLACK_SIGNING_SECRET: 'shh',
        SLACK_API_URL: slack.apiUrl,
        CNGN_APPROVALS_CHANNEL: 'CAPPROVALS',
        CNGN_APPROVERS: 'UAPPROVERA',
        ...env,
      },
      { print: () => undefined, logger: () => logger },
    );
    await started.stop();
    return entries.map((entry) => String(entry.message));
  }

  it('warns when CNGN_REQUESTERS is unset, and not when it names people', async ({ slack }) => {
    expect(await warningsWith(slack, {})).toContain(WARNING);
    expect(await warningsWith(slack, { CNGN_REQUESTERS: 'U0ADA' })).not.toContain(WARNING);
  });
});
