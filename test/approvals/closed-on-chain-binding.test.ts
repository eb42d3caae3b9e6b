// Where the bot holds the audit signing key, a completed request a store writer sets back to approved AND
// binds to another environment is still settled as the signed chain records it (completed, nothing sent
// again), whether the chain is read by the late lookup or under the claim's lock: the binding only
// closes a request the chain shows open or cannot show open.
import { expect } from 'vitest';
import { CLOSED_ON_CHAIN } from '../../src/approvals/closed-on-chain.js';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalEngine, ApprovalRequest } from '../../src/approvals/index.js';
import type { LateLookup } from '../../src/approvals/late-lookup.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { fileDraft } from '../support/filing.js';
import { execute, revive, test } from './closed-support.js';
import { DAYO, withdrawal, withdrawCalls } from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** A store writer revives `id` (closed-support.ts) and binds it to the live environment. */
async function reviveElsewhere(store: Store, id: string): Promise<void> {
  await revive(store, id);
  await rewrite(store, id, (r) => ({ ...r, environment: 'live' }) as ApprovalRequest, { audited: false });
}

/** The store writer acts right after the late lookup's read, which found the request closed. */
function reviveElsewhereAfterFirstRead(engine: ApprovalEngine, store: Store, id: string): void {
  const late = (partsOf(engine).executor as unknown as { lateLookup: LateLookup }).lateLookup;
  const beforeSending = late.beforeSending.bind(late);
  let first = true;
  late.beforeSending = async (requestId) => {
    const looked = await beforeSending(requestId);
    if (first && requestId === id) {
      first = false;
      await reviveElsewhere(store, id);
    }
    return looked;
  };
}

for (const when of ['before the late lookup', 'right after the late lookup read it']) {
  test(`completed, revived ${when} and bound to another environment: completed as the chain records`, async ({
    fx,
    engine,
    networkId,
  }) => {
    await fx.receiveWebhooks();
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    await approveAsSeen(engine, request.id, DAYO);
    await engine.idle();
    await fx.sandbox.settleAll();
    expect((await engine.get(request.id))?.state).toBe('completed');
    expect(withdrawCalls(fx)).toBe(1);

    if (when === 'before the late lookup') await reviveElsewhere(fx.store, request.id);
    else reviveElsewhereAfterFirstRead(engine, fx.store, request.id);
    const after = await execute(engine, request.id);
    expect(after?.state).toBe('completed');
    expect(after?.outcome?.nothingSent).toBeUndefined();
    expect(after?.history.at(-1)?.note).toContain(`${CLOSED_ON_CHAIN} (completed,`);
    expect(withdrawCalls(fx)).toBe(1);
  });
}
