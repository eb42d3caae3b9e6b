// A start that fails once Slack is listening (the engine's resume cannot read the store) stops what it
// started: no server of the bot is left listening behind the error.
import { connect } from 'node:net';
import { expect } from 'vitest';
import { freePort, startApprovalApp } from '../slack/approvals/support.js';
import { controlledStartTest as test } from '../support/store-controls.js';

/** Whether anything accepts a connection on this loopback port. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      resolve(true);
      socket.destroy();
    });
    socket.once('error', () => resolve(false));
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
