// The unsigned bridge callback is a hint: it is said in the request's thread ("received … confirming
// with the service") and kept as a link, but only the service's own answer completes the request.
import { expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  DEST,
  type EngineFixture,
  engineTest,
  REQUESTER,
  twoNetworks,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

/** The engine with a public URL (bridge callbacks need one) and `told`, every change it reports. */
const test = engineTest
  .extend('engineOptions', { engine: { publicUrl: 'https://desk.example' } })
  .extend('told', async ({ fx }) => {
    const told: ApprovalRequest[] = [];
    fx.engine.onChange(async (request) => {
      told.push(request);
    });
    return told;
  });

async function sentBridge(fx: EngineFixture): Promise<{ request: ApprovalRequest; token: string }> {
  const [origin, destination] = await twoNetworks(fx.client);
  const request = await fileDraft(fx.engine, {
    kind: 'bridge',
    amount: '100000',
    payload: { originNetworkId: origin, destinationNetworkId: destination, destinationAddress: DEST },
    display: {},
    purpose: 'Liquidity for the other chain',
    requester: REQUESTER,
  });
  await approveAsSeen(fx.engine, request.id, APPROVER_A);
  await fx.engine.idle();
  const sent = await fx.engine.get(request.id);
  if (sent?.state !== 'sent' || !sent.callbackToken) throw new Error('not sent');
  return { request: sent, token: sent.callbackToken };
}

test('says in the thread that the callback came, and confirms with the service before completing', async ({
  fx,
  told,
}) => {
  const { request, token } = await sentBridge(fx);
  told.length = 0;
  const link = 'https://sepolia.basescan.org/tx/0xabc';
  expect(
    await fx.engine.onBridgeCallback(token, { explorerLink: link, hash: '0xabc', status: 'completed' }),
  ).toBe(true);
  const note = `Bridge callback received: completed, ${link} — confirming with the service`;
  expect(told.map((r) => r.history.at(-1))).toEqual([
    expect.objectContaining({ action: 'bridge-callback', note }),
  ]);
  const after = await fx.engine.get(request.id);
  expect(after?.state).toBe('sent'); // the service still says pending
  expect(after?.outcome).toMatchObject({ explorerLink: link, hash: '0xabc' });
  expect((await fx.engine.audit(20)).map((e) => e.action)).toContain('bridge-callback');
  // The same callback again is not said twice.
  await fx.engine.onBridgeCallback(token, { explorerLink: link, hash: '0xabc', status: 'completed' });
  expect(
    (await fx.engine.get(request.id))?.history.filter((h) => h.action === 'bridge-callback'),
  ).toHaveLength(1);
});

test('never shows a link from the callback that is not a plain https URL', async ({ fx }) => {
  const { request, token } = await sentBridge(fx);
  await fx.engine.onBridgeCallback(token, {
    explorerLink: 'javascript:alert(1)',
    status: 'completed|<!here>',
  });
  const after = await fx.engine.get(request.id);
  expect(after?.history.at(-1)?.note).toBe(
    'Bridge callback received: completedhere — confirming with the service',
  );
  expect(after?.outcome?.explorerLink).toBeUndefined();
});
