// Sealing once decides "begun" from the chain it checks under its lock (sealing-once.ts): a store writer
// who swaps the chain between the check at open and that decision (pointing the generation at a copy
// without the `requests-sealed` entry) gets nothing sealed, and the swap is found then, not later.
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { REQUESTS_SEALED } from '../../src/approvals/sealing-once.js';
import type { AuditEntry } from '../../src/audit/index.js';
import { auditListKey } from '../../src/audit/log.js';
import { HeadMarks } from '../../src/audit/signing.js';
import type { Store } from '../../src/store/index.js';
import { newSigner } from '../support/audit-archive.js';
import { fileDraft } from '../support/filing.js';
import { test as delegationTest, policy, withdrawal } from './delegation-support.js';
import { rewrite } from './signed-support.js';

const signer = newSigner();
const test = delegationTest.extend('engineOptions', () => ({
  engine: { policy: policy(), auditSeal: { signer, marks: new HeadMarks() } },
}));

/** A store writer's change: the seal off, the amount raised. */
const raised = ({ sealed: _seal, ...stored }: ApprovalRequest) =>
  ({ ...stored, amount: '900000', payload: { ...stored.payload, amount: '900000' } }) as ApprovalRequest;

const LIST = auditListKey('sandbox');

/**
 * The store, with a writer who acts just as sealing takes its lock (after the check at open found the
 * chain whole): a copy of the list without the `requests-sealed` entry, and the generation pointed at it.
 */
function racing(store: Store): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'withLock') {
        return async (name: string, fn: () => Promise<unknown>, options?: unknown) => {
          if (name.startsWith('approvals:requests-sealed:')) {
            const entries = await target.readList<AuditEntry>(LIST, 0, -1);
            for (const entry of entries.filter((e) => e.action !== REQUESTS_SEALED)) {
              await target.appendToList(`${LIST}:g1`, entry);
            }
            await target.set('approvals:audit-generation:sandbox', 1);
          }
          return (target.withLock as (...args: unknown[]) => Promise<unknown>).call(
            target,
            name,
            fn,
            options,
          );
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('the chain swapped between the check at open and sealing', () => {
  test('nothing is sealed, and the chain is found broken at that start', async ({ fx, networkId }) => {
    const marks = new HeadMarks();
    const { engine: first } = await fx.another({
      engine: { policy: policy(), auditSeal: { signer, marks } },
    });
    await first.openTrail();
    const request = await fileDraft(first, withdrawal(networkId, '1500'));
    await first.stop();
    await rewrite(fx.store, request.id, raised, { audited: false });

    const { engine: restarted } = await fx.another({
      store: racing(fx.store),
      engine: { policy: policy(), auditSeal: { signer, marks } },
    });
    await restarted.openTrail();
    expect((await restarted.get(request.id))?.sealed).toBeUndefined();
    expect(restarted.auditHealth()).toMatchObject({ checked: true, ok: false });
    await restarted.stop();
  });
});
