// The alert that the freeze record was changed outside the bot is for a store writer, never for the
// bot's own freeze: another replica's freeze is on the signed chain a moment before it is in the record,
// and a replica that reads the record and the chain in that moment does not alert.
import { expect } from 'vitest';
import type { FreezeChange } from '../../src/approvals/index.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { createStore, type Store } from '../../src/store/index.js';
import { newSigner } from '../support/audit-archive.js';
import { capturedLog } from '../support/captured-log.js';
import { APPROVER_B, engineTest } from '../support/engine.js';

const FREEZE_KEY = 'approvals:freeze:sandbox';

/** The store, with `meanwhile` run as the freeze's record is about to be written frozen. */
function beforeFrozenWrite(store: Store, meanwhile: () => Promise<void>): Store {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'compareAndSet') {
        return async (key: string, expected: unknown, next: unknown) => {
          if (key === FREEZE_KEY && (next as { state?: string }).state === 'frozen') await meanwhile();
          return target.compareAndSet(key, expected, next);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

engineTest(
  'a freeze read on another replica between its chain entry and its record is not told as changed outside the bot',
  async ({ startEngine, defer }) => {
    const memory = await createStore('memory://');
    defer(() => memory.close());
    const captured = capturedLog('info');
    const auditSeal = { signer: newSigner(), marks: new HeadMarks() };
    const seen: Array<unknown> = [];
    const other = await startEngine({ store: memory, engine: { auditSeal, log: captured.logger } });
    const heard: FreezeChange[] = [];
    other.engine.onFreezeChange(async (change) => {
      heard.push(change);
    });
    const fx = await startEngine({
      store: beforeFrozenWrite(memory, async () => {
        seen.push(await other.engine.currentFreeze());
      }),
      engine: { auditSeal, log: captured.logger },
    });

    expect(await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address')).toMatchObject({
      ok: true,
    });
    await fx.engine.idle();
    await other.engine.idle();
    expect(seen).toEqual([expect.objectContaining({ by: APPROVER_B })]);
    expect(heard.filter((change) => 'heldByChain' in change)).toEqual([]);
    expect(captured.entries.filter((e) => e.level === 'error')).toEqual([]);
  },
);
