// A start that fails once Slack is listening (the engine's resume cannot read the store) stops what it
// started: no server of the bot is left listening behind the error.
import { expect } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { startApprovalApp } from '../slack/approvals/support.js';
import { FakeSlack } from '../support/fake-slack.js';
import { test as base } from '../support/fixtures.js';
import { StoreControls } from '../support/store-controls.js';

const test = base.extend('world', async ({ defer }) => {
  const memory = await createStore('memory://');
  const slack = await FakeSlack.start();
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  defer(() => memory.close());
  defer(() => slack.stop());
  defer(() => sandbox.stop());
  const controls = new StoreControls();
  return { memory, store: controls.wrap(memory), controls, slack, sandbox };
});

/** Servers listening in this process (this file's only test: nothing else opens or closes one meanwhile). */
const listening = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;

test('a start that fails after Slack started stops all it started, leaving nothing listening', async ({
  world,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  // A request id in the old open set: the engine's start reads it after Slack started, and that read fails.
  await memory.addToSet('approvals:open', 'A-unreadable');
  controls.failReads('approval:A-unreadable');
  const before = listening();
  await expect(startApprovalApp({ store, slack, sandbox, recordPolicy: true })).rejects.toThrow(
    'store read failed (test): approval:A-unreadable',
  );
  expect(slack.callsTo('auth.test')).not.toEqual([]);
  // A closed server's handle goes at the loop's next turn.
  await expect.poll(listening, { timeout: 10_000 }).toBe(before);
});
