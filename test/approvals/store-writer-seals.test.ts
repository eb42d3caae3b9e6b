// What a store writer (write access to the store, not the audit signing key) can no longer do where the
// bot holds that key, whether approvals are signed or not: change a filed request and have it sent
// (its filing seal must hold at the send, request-seal.ts).
import { describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { FILING_SEAL_BROKEN } from '../../src/approvals/request-seal.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { newSigner } from '../support/audit-archive.js';
import { fileDraft } from '../support/filing.js';
import { DAYO, test as delegationTest, policy, withdrawal, withdrawCalls } from './delegation-support.js';
import { rewrite } from './signed-support.js';

/** The delegation tests' engine, holding an audit signing key, approvals by click. */
const test = delegationTest.extend('engineOptions', () => ({
  engine: { policy: policy(), auditSeal: { signer: newSigner(), marks: new HeadMarks() } },
}));

describe('with the audit signing key, approvals by click', () => {
  test('a destination rewritten in the store after filing: nothing is sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    await rewrite(
      fx.store,
      request.id,
      (stored) =>
        ({
          ...stored,
          payload: { ...stored.payload, address: '0x000000000000000000000000000000000000dEaD' },
        }) as ApprovalRequest,
    );
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect(await engine.get(request.id)).toMatchObject({
      state: 'failed',
      outcome: { reason: FILING_SEAL_BROKEN, nothingSent: true },
    });
    expect(withdrawCalls(fx)).toBe(0);
  });

  test('a request filed unsealed before an upgrade is sealed at start and sent', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await fileDraft(engine, withdrawal(networkId, '1500'));
    await rewrite(fx.store, request.id, ({ sealed: _seal, ...stored }) => stored as ApprovalRequest);
    await engine.openTrail();
    expect(await approveAsSeen(engine, request.id, DAYO)).toMatchObject({ ok: true });
    await engine.idle();
    expect((await engine.get(request.id))?.state).toBe('sent');
    expect(withdrawCalls(fx)).toBe(1);
  });
});
