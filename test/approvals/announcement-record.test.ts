// Where a request was announced is stored as `announcement`; records written before it had that name
// carry it as `slackMessage`. Such a record still reads, on every store kind, and the next step writes
// it back under the new name, through the conditional write a step uses.
import { describe, expect } from 'vitest';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, engineTest, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const WHERE = { channel: 'C_APPROVALS', ts: '1700000000.000300' };

/** The record as stored before the rename: the old name in the place the new one holds. */
function oldRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key === 'announcement' ? 'slackMessage' : key, value]),
  );
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a request record from before the announcement's rename on ${kind.name}`, () => {
    engineTest.override('storeKind', kind.name);

    engineTest('reads, and is written back with the new name', async ({ oneReplica, startEngine }) => {
      const a = await oneReplica('announcement-old-name');
      const fx = await startEngine({ store: a, tiers: '0:1' });
      const [networkId] = await twoNetworks(fx.client);
      const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '106'));
      await fx.engine.attachMessage(request.id, WHERE.channel, WHERE.ts);
      const key = `approval:${request.id}`;
      const stored = await a.get<Record<string, unknown>>(key);
      await a.set(key, oldRecord(stored!));
      expect(await a.get(key)).toHaveProperty('slackMessage', WHERE);

      const read = await fx.engine.get(request.id);
      expect(read?.announcement).toEqual(WHERE);
      expect(read).not.toHaveProperty('slackMessage');

      expect(await approveAsSeen(fx.engine, request.id, APPROVER_A)).toMatchObject({ ok: true });
      await fx.engine.idle();
      const written = await a.get<Record<string, unknown>>(key);
      expect(written?.state).toBe('sent');
      expect(written?.announcement).toEqual(WHERE);
      expect(written).not.toHaveProperty('slackMessage');
    });
  });
}
