// A start that fails once Slack is listening (the engine's resume cannot read the store) stops what it
// started: no server of the bot is left listening behind the error.
import { connect } from 'node:net';
import { expect } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { freePort, startApprovalApp } from '../slack/approvals/support.js';
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

/** Whether anything accepts a connection on this loopback port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
    socket.once('close', () => socket.destroy());
    socket.setTimeout(5_000, () => socket.destroy());
    socket.once('connect', () => socket.end());
  });

test('a start that fails after Slack started stops all it started, leaving nothing listening', async ({
  world,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  // A request id in the old open set: the engine's start reads it after Slack started, and that read fails.
  await memory.addToSet('approvals:open', 'A-unreadable');
  controls.failReads('approval:A-unreadable');
  const [port, adminPort] = [await freePort(), await freePort()];
  const starting = startApprovalApp({
    store,
    slack,
    sandbox,
    recordPolicy: true,
    config: { port, admin: { port: adminPort, host: '127.0.0.1' } },
  });
  await expect(starting).rejects.toThrow('store read failed (test): approval:A-unreadable');
  expect(slack.callsTo('auth.test')).not.toEqual([]);
  expect(await accepts(port)).toBe(false);
  expect(await accepts(adminPort)).toBe(false);
});
