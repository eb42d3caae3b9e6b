// Start-up says so when every member who is not a guest may file money requests (CNGN_REQUESTERS
// unset), and says nothing once requesters are named.
import { describe, expect } from 'vitest';
import { createLogger } from '../../src/log.js';
import { start } from '../../src/wiring/startup.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { slackTest as it } from '../support/file-slack.js';

const WARNING = 'every member who is not a guest may file money requests: set CNGN_REQUESTERS';

describe('start-up warning about requesters', () => {
  async function warningsWith(slack: FakeSlack, env: Record<string, string>): Promise<string[]> {
    const lines: string[] = [];
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
      { print: () => undefined, logger: () => createLogger('warn', { write: (line) => lines.push(line) }) },
    );
    await started.stop();
    return lines.map((line) => String((JSON.parse(line) as { message?: string }).message));
  }

  it('warns when CNGN_REQUESTERS is unset, and not when it names people', async ({ slack }) => {
    expect(await warningsWith(slack, {})).toContain(WARNING);
    expect(await warningsWith(slack, { CNGN_REQUESTERS: 'U0ADA' })).not.toContain(WARNING);
  });
});
