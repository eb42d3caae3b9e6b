// A user group as the roles read it through Slack: an answer that lists no `users` says nothing of the
// members, so the group stays unknown (read again next time, nothing recorded), never an empty group.
import type { App } from '@slack/bolt';
import { expect, test } from 'vitest';
import { createRoles } from '../../src/wiring/roles.js';

test('an answer without users leaves a group unknown, and a later answer listing them is its first read', async () => {
  const answers: Array<{ ok: boolean; users?: string[] }> = [{ ok: true }, { ok: true, users: ['U0ADA'] }];
  const wiring = createRoles({ approvers: [], approverGroup: 'S0TREASURY' });
  const client = { usergroups: { users: { list: async () => answers.shift() } } };
  wiring.plugin({ client, event: () => undefined } as unknown as App);
  const firstReads: Array<[string, string[]]> = [];
  wiring.roles.groups.onFirstRead((group, members) => void firstReads.push([group, members]));
  try {
    expect([...(await wiring.roles.groups.members('S0TREASURY'))]).toEqual([]);
    expect(firstReads).toEqual([]);
    expect([...(await wiring.roles.groups.members('S0TREASURY'))]).toEqual(['U0ADA']);
    expect(firstReads).toEqual([['S0TREASURY', ['U0ADA']]]);
  } finally {
    wiring.stop();
  }
});
