// The bot started the way `npm start` starts it with no Slack settings (startup.ts: the bot plus the
// workbench), driven over plain HTTP through the workbench's own routes, as the page drives it.
import type { View } from '@slack/types';
import { request } from 'undici';
import { test as base } from 'vitest';
import { APPROVAL_ACTIONS_BLOCK, APPROVE_ACTION } from '../../src/slack/approvals/blocks/message.js';
import { REVIEW_VIEW } from '../../src/slack/approvals/blocks/review.js';
import { type Started, type StartOptions, start } from '../../src/wiring/startup.js';
import type {
  WorkbenchAnswer,
  WorkbenchMessage,
  WorkbenchModal,
  WorkbenchState,
} from '../../src/workbench/protocol.js';

export const ADA = 'U0ADA';
export const BOLA = 'U0BOLA';
export const CHIDI = 'U0CHIDI';
export const DAYO = 'U0DAYO';
export const TREASURY = 'C0TREASURY';
export const APPROVALS = 'C0APPROVALS';
export const ALERTS = 'C0ALERTS';

export interface Bench {
  started: Started;
  url: string;
  /** Plain lines start-up printed (the `Workbench: open …` line). */
  lines: string[];
  post(
    path: string,
    body: unknown,
  ): Promise<{ status: number; answer: WorkbenchAnswer & Record<string, unknown> }>;
  state(user: string): Promise<WorkbenchState>;
  /** Poll the user's state until `test` finds something (background work: Slack calls, webhooks). */
  waitFor<T>(user: string, test: (state: WorkbenchState) => T | undefined | false, what: string): Promise<T>;
  stop(): Promise<void>;
}

export const quietEnv = { PORT: '0', ADMIN_PORT: '0', STORE_URL: 'memory://', LOG_LEVEL: 'silent' };

export async function startBench(
  env: Record<string, string | undefined> = {},
  options: StartOptions = {},
): Promise<Bench> {
  const lines: string[] = [];
  const started = await start({ ...quietEnv, ...env }, { print: (line) => lines.push(line), ...options });
  const url = started.url;
  const bench: Bench = {
    started,
    url,
    lines,
    async post(path, body) {
      const response = await request(`${url}/workbench/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.statusCode,
        answer: (await response.body.json()) as WorkbenchAnswer & Record<string, unknown>,
      };
    },
    async state(user) {
      const response = await request(`${url}/workbench/api/state?user=${user}`);
      if (response.statusCode !== 200) throw new Error(`state answered ${response.statusCode}`);
      return (await response.body.json()) as WorkbenchState;
    },
    async waitFor(user, test, what) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = test(await bench.state(user));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () => started.stop(),
  };
  return bench;
}

/** Every text of a message (its fallback and its blocks), for matching. */
export const wording = (m: WorkbenchMessage | View | undefined): string =>
  m ? JSON.stringify('text' in m ? [m.text, m.blocks] : m.blocks) : '';

export const messagesIn = (state: WorkbenchState, channel: string) => state.messages[channel] ?? [];

/**
 * Approve as a person does in the workbench: click the message's Approve, wait for the review modal it
 * opens, and submit it. Returns the review as it was shown, for the caller to check.
 */
export async function approveInBench(
  bench: Bench,
  user: string,
  message: { channel: string; ts: string },
): Promise<WorkbenchModal> {
  const clicked = await bench.post('/action', {
    user,
    container: { type: 'message', channel: message.channel, ts: message.ts },
    block_id: APPROVAL_ACTIONS_BLOCK,
    action_id: APPROVE_ACTION,
  });
  if (!clicked.answer.ok) throw new Error(`the Approve click was refused: ${JSON.stringify(clicked.answer)}`);
  const review = await bench.waitFor(
    user,
    (s) => s.modals.find((m) => m.view.callback_id === REVIEW_VIEW),
    'the review modal',
  );
  const submitted = await bench.post('/view/submit', { user, view_id: review.id, values: {} });
  if (!submitted.answer.ok) throw new Error(`the review was refused: ${JSON.stringify(submitted.answer)}`);
  return review;
}

/**
 * `bench`, one workbench bench for the whole file (its tests are steps on one desk, in order), stopped
 * after the file's last test.
 */
export const benchTest = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('bench', { scope: 'file' }, async ({}, { onCleanup }) => {
    const bench = await startBench();
    onCleanup(() => bench.stop());
    return bench;
  });
