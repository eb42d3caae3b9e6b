// The workbench's state lives in the bot's store, not in the page or the process: after a restart on
// the same SQLite file, every person sees the same channels, messages and open modals.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { tempDirTest as it } from '../support/fixtures.js';
import { ADA, BOLA, messagesIn, startBench, TREASURY, wording } from '../support/workbench-bench.js';

describe('a restart', () => {
  it('shows the same state as before', async ({ tempDir }) => {
    const env = { STORE_URL: `sqlite://${join(tempDir, 'desk.sqlite')}` };
    const first = await startBench(env);
    let before: Awaited<ReturnType<typeof first.state>>;
    try {
      await first.post('/command', { user: ADA, channel: TREASURY, text: '/cngn balance' });
      await first.waitFor(
        ADA,
        (s) => messagesIn(s, TREASURY).find((m) => wording(m).includes('Balance')),
        'the balance',
      );
      await first.post('/message', { user: BOLA, channel: TREASURY, text: 'thanks Ada' });
      before = await first.state(ADA);
    } finally {
      await first.stop();
    }
    const second = await startBench(env);
    try {
      const after = await second.state(ADA);
      expect(after.messages).toEqual(before.messages);
      expect(after.version).toBe(before.version);
      expect(messagesIn(after, TREASURY).map((m) => m.text)).toContain('thanks Ada');
    } finally {
      await second.stop();
    }
  });
});
