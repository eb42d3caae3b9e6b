// The settings a bot runs with are on the record before it takes a click: the start records them before
// Slack is started (and before a start-frozen freeze), and a start that cannot record them stops there,
// saying why, with nothing listening and nothing frozen.
import { expect } from 'vitest';
import { ApprovalErrorCode, PolicyNotRecorded } from '../../src/approvals/index.js';
import { AuditLog } from '../../src/audit/log.js';
import { APPROVER_A, approve, fileWithdrawal, startApprovalApp } from '../slack/approvals/support.js';
import { controlledStartTest as test } from '../support/store-controls.js';

/** Where the policy recorder keeps its copy of the last settings: read at a chain's first start. */
const POLICY_RECORD = 'approvals:policy-record:';

test('a start whose settings cannot be recorded refuses, naming the cause, and neither listens nor freezes', async ({
  world,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  controls.failReads(POLICY_RECORD);
  const starting = startApprovalApp({ store, slack, sandbox, recordPolicy: true, startFrozen: true });
  await expect(starting).rejects.toThrow(PolicyNotRecorded);
  await expect(starting).rejects.toMatchObject({
    code: ApprovalErrorCode.PolicyNotRecorded,
    message: expect.stringMatching(/could not be recorded in the audit trail.*store read failed \(test\)/),
  });
  // Slack was never started (its start-up check asks auth.test first), and nothing was frozen or posted.
  expect(slack.callsTo('auth.test')).toEqual([]);
  expect(slack.callsTo('chat.postMessage')).toEqual([]);
  expect(await new AuditLog(memory).entries('sandbox')).toEqual([]);
});

test('the settings are recorded before Slack is started, so before any click’s step', async ({
  world,
  defer,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  const held = controls.holdReads(POLICY_RECORD);
  const starting = startApprovalApp({ store, slack, sandbox, recordPolicy: true });
  await held.arrived;
  expect(slack.callsTo('auth.test')).toEqual([]);
  held.release();
  const app = await starting;
  defer(() => app.stop());
  expect(slack.callsTo('auth.test')).not.toEqual([]);
  const id = await fileWithdrawal(app, '5000');
  expect((await approve(app, id, APPROVER_A)).told).toBeUndefined();
  await app.engine.idle();
  const entries = await new AuditLog(memory).entries('sandbox');
  const policy = entries.find((e) => e.kind === 'policy');
  const clicked = entries.find((e) => e.requestId === id && e.action === 'approved');
  expect(policy?.seq).toBeLessThan(clicked?.seq ?? 0);
  expect(entries.findIndex((e) => e.kind === 'policy')).toBe(0);
});

test('settings recorded by a start that Slack’s check then refused are told once, at the next start', async ({
  world,
  defer,
}) => {
  const { memory, store, slack, sandbox } = world;
  let refuse = true;
  slack.on('auth.test', () => (refuse ? { body: { ok: false, error: 'invalid_auth' } } : undefined));
  await expect(startApprovalApp({ store, slack, sandbox, recordPolicy: true })).rejects.toThrow();
  const recorded = (await new AuditLog(memory).entries('sandbox')).filter((e) => e.kind === 'policy');
  expect(recorded).toHaveLength(1);
  expect(slack.callsTo('chat.postMessage')).toEqual([]);
  refuse = false;
  const app = await startApprovalApp({ store, slack, sandbox, recordPolicy: true });
  defer(() => app.stop());
  const again = await startApprovalApp({ store, slack, sandbox, recordPolicy: true });
  defer(() => again.stop());
  await app.engine.idle(); // the recorded settings are told in the background
  await again.engine.idle();
  // Nothing new recorded (the same settings), and the change told once, though two starts followed.
  expect((await new AuditLog(memory).entries('sandbox')).filter((e) => e.kind === 'policy')).toEqual(
    recorded,
  );
  const told = slack.messages().filter((m) => m.text.includes('Approval policy recorded'));
  expect(told).toHaveLength(1);
});
