// What the passkey pages' route tests share: the bot with signed approvals on, a fake Slack of its own
// and a log of its warnings, with the approvers' devices (one for the file, or one of the test's own);
// and what they read of its answers, its log and what it said in Slack.
import { expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { WORKBENCH_HEADERS } from '../../src/workbench/headers.js';
import { APPROVER_A, APPROVER_B } from '../slack/approvals/support.js';
import { SoftwareAuthenticator } from '../support/authenticator.js';
import { botTest } from '../support/bot.js';
import { capturedLog } from '../support/captured-log.js';
import { StoreControls } from '../support/store-controls.js';
import { type Answer, registerApproved, startSigningApp } from './support.js';

export const ALERTS_CHANNEL = 'CALERTS';

/**
 * The bot with signed approvals on, a fake Slack of its own and a log of its warnings, on a memory store
 * behind `controls` (a test makes it fail); `a` and `b`, the approvers' devices, their passkeys not
 * registered. `stop` stops the bot, then closes its store.
 */
async function startSigning() {
  const { logger, lines, entries } = capturedLog('warn');
  const memory = await createStore('memory://');
  const controls = new StoreControls();
  const store = controls.wrap(memory);
  const app = await startSigningApp({ logger, store, config: { alertsChannel: ALERTS_CHANNEL } });
  const authenticators = {
    a: new SoftwareAuthenticator({ user: APPROVER_A, rpId: 'localhost', origin: app.signingUrl }),
    b: new SoftwareAuthenticator({ user: APPROVER_B, rpId: 'localhost', origin: app.signingUrl }),
  };
  const stop = async () => {
    await app.stop();
    await memory.close();
  };
  return { app, lines, entries, controls, stop, ...authenticators };
}

/**
 * `signing`, one bot for the file, with A's and B's passkeys registered as a new install's first two
 * (each approved by the other with a click); `newInstall`, a bot of the test's own where no one holds
 * a passkey yet.
 */
export const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('signing', { scope: 'file' }, async ({}, { onCleanup }) => {
    const signing = await startSigning();
    onCleanup(() => signing.stop());
    await registerApproved(signing.app, signing.a, APPROVER_B);
    await registerApproved(signing.app, signing.b, APPROVER_A);
    return signing;
  })
  .extend('newInstall', async ({ defer }) => {
    const signing = await startSigning();
    defer(() => signing.stop());
    return signing;
  });

export function expectPageHeaders(answer: Answer): void {
  for (const [name, value] of Object.entries(WORKBENCH_HEADERS)) expect(answer.headers[name]).toBe(value);
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(answer.headers['referrer-policy']).toBe('no-referrer');
}

/** The fields of each warning logged with `message`, oldest first. */
export const warned = (entries: ReadonlyArray<Record<string, unknown>>, message: string) =>
  entries.filter((entry) => entry.level === 'warn' && entry.message === message);

/** The private words the bot said to `user` in Slack (a DM: chat.postMessage to the user id). */
export const toldPrivately = (
  app: { slack: { callsTo(m: string): Array<{ body: Record<string, unknown> }> } },
  user: string,
) =>
  app.slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === user)
    .map((c) => String(c.body.text));
