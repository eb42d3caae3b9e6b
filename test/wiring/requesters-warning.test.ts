// Start-up says so when every member who is not a guest may file money requests (CNGN_REQUESTERS
// unset), and says nothing once requesters are named.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startBench } from '../workbench/server-support.js';

const WARNING = 'every member who is not a guest may file money requests: set CNGN_REQUESTERS';

async function warningsWith(env: Record<string, string>): Promise<string[]> {
  const lines: string[] = [];
  const bench = await startBench(env, {
    logger: () => createLogger('warn', { write: (line) => lines.push(line) }),
  });
  await bench.started.stop();
  return lines.map((line) => String((JSON.parse(line) as { message?: string }).message));
}

describe('start-up warning about requesters', () => {
  it('warns when CNGN_REQUESTERS is unset, and not when it names people', async () => {
    expect(await warningsWith({})).toContain(WARNING);
    expect(await warningsWith({ CNGN_REQUESTERS: 'U0ADA' })).not.toContain(WARNING);
  });
});
