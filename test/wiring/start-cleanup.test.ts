// A start that fails once Slack is listening (the engine's resume cannot read the store) stops what it
// started: no server of the bot is left listening behind the error. A stop that does not finish in time
// is said in a warn line, and the error is thrown all the same.
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { startApprovalApp } from '../slack/approvals/support.js';
import { capturedLog } from '../support/captured-log.js';
import { controlledStartTest as test } from '../support/store-controls.js';

const READ_FAILED = 'store read failed (test): approval:A-unreadable';
const STOP_LATE =
  'the stop after a failed start did not finish in time: the start error is rethrown anyway, and some parts may still be closing';

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

/** The ports the bot bound, from the lines its two listeners write once listening. */
function boundPorts(lines: ReadonlyArray<Record<string, unknown>>): { port: number; adminPort: number } {
  const portIn = (message: string) => {
    const url = lines.find((line) => line.message === message)?.url;
    if (typeof url !== 'string') throw new Error(`no "${message}" line with a url`);
    return Number(new URL(url).port);
  };
  return {
    port: portIn('Slack app started'),
    adminPort: portIn('admin port serving the probes and metrics'),
  };
}

test('a start that fails after Slack started stops all it started, leaving nothing listening', async ({
  world,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  // A request id in the old open set: the engine's start reads it after Slack started, and that read fails.
  await memory.addToSet('approvals:open', 'A-unreadable');
  controls.failReads('approval:A-unreadable');
  const { logger, entries } = capturedLog('debug');
  const starting = startApprovalApp({ store, slack, sandbox, recordPolicy: true, logger });
  await expect(starting).rejects.toThrow(READ_FAILED);
  expect(slack.callsTo('auth.test')).not.toEqual([]);
  const { port, adminPort } = boundPorts(entries);
  expect(await accepts(port)).toBe(false);
  expect(await accepts(adminPort)).toBe(false);
  expect(entries.map((entry) => entry.message)).not.toContain(STOP_LATE);
});

test('a stop after a failed start that does not finish in time is said, and the start error still thrown', async ({
  world,
}) => {
  const { memory, store, controls, slack, sandbox } = world;
  await memory.addToSet('approvals:open', 'A-unreadable');
  controls.failReads('approval:A-unreadable');
  // The engine's start waits at that read until a request is under way on the bot's server.
  const resume = controls.holdReads('approval:A-unreadable');
  // A request still being answered holds the server's close, and so the whole stop, until it is answered.
  let reached!: (res: ServerResponse) => void;
  const underWay = new Promise<ServerResponse>((resolve) => (reached = resolve));
  const routes = [
    { path: '/held', method: 'GET', handler: (_: unknown, res: ServerResponse) => reached(res) },
  ];
  const { logger, entries } = capturedLog('debug');
  const starting = startApprovalApp({
    store,
    slack,
    sandbox,
    recordPolicy: true,
    logger,
    routes,
    failedStartStopMs: 200,
  });
  await resume.arrived;
  const { port, adminPort } = boundPorts(entries);
  const held = fetch(`http://127.0.0.1:${port}/held`);
  const res = await underWay;
  resume.release();
  await expect(starting).rejects.toThrow(READ_FAILED);
  expect(entries).toContainEqual(
    expect.objectContaining({ level: 'warn', message: STOP_LATE, waitedMs: 200 }),
  );
  // The stop goes on: once the request is answered, nothing of the bot is left listening.
  // Not kept alive after: an idle connection left open would hold the close for its own timeout.
  res.setHeader('connection', 'close');
  res.end('answered late');
  expect((await held).status).toBe(200);
  await expect.poll(() => accepts(port), { timeout: 10_000 }).toBe(false);
  await expect.poll(() => accepts(adminPort), { timeout: 10_000 }).toBe(false);
});
