// A click whose write had started when the store failed may have been recorded: the person is told
// to check before clicking again (or submitting the reason again), never that nothing changed. Here
// the store takes the write and then loses the connection before answering, also for the final approval
// written after the service re-checked the figures.
import { expect } from 'vitest';
import { MAYBE_NOT_RECORDED, NOT_RECORDED, RECHECKING } from '../../../src/slack/approvals/actions/click.js';
import { createStore } from '../../../src/store/index.js';
import { botTest } from '../../support/bot.js';
import { redemptionDraft } from '../../support/drafts.js';
import { fileDraft } from '../../support/filing.js';
import { type ReviewView, submitReview } from '../../support/review.js';
import {
  APPROVER_A,
  approve,
  fileWithdrawal,
  openReject,
  REQUESTER,
  reviewFor,
  submitReject,
} from './support.js';

/**
 * The app on a memory store (`inner`, read directly by the tests) whose next write of the request given
 * to failAfterWriting lands and then fails, as a connection lost before the answer.
 */
const test = botTest.extend('failing', async ({ startApp, defer }) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  let failNext: string | undefined;
  // The request's lock, held until `release` and then given up (as a wait past its deadline).
  let stuck: { key: string; released: Promise<void> } | undefined;
  // The request's next write, started and held until `release`, then landing.
  let slowWrite: { key: string; released: Promise<void> } | undefined;
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'withLock') {
        return async (key: string, ...rest: unknown[]) => {
          if (stuck?.key !== key)
            return (value as (...a: unknown[]) => Promise<unknown>).call(target, key, ...rest);
          await stuck.released;
          throw new Error(`lock ${key} not had in time`);
        };
      }
      if (property !== 'set' && property !== 'compareAndSet') return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        if (slowWrite?.key === key) {
          const { released } = slowWrite;
          slowWrite = undefined;
          await released;
        }
        const written = await (value as (...a: unknown[]) => Promise<unknown>).call(target, key, ...rest);
        if (failNext && key === `approval:${failNext}`) {
          failNext = undefined;
          throw new Error('connection lost before the answer');
        }
        return written;
      };
    },
  });
  return {
    app: await startApp({ store }),
    inner,
    failAfterWriting: (id: string) => {
      failNext = id;
    },
    /** The request's next write held until the returned function is called, then written. */
    writeHeld: (id: string) => {
      let release!: () => void;
      slowWrite = { key: `approval:${id}`, released: new Promise<void>((resolve) => (release = resolve)) };
      return release;
    },
    /** The request's lock not had until the returned function is called, and then not at all. */
    lockNeverHad: (id: string) => {
      let release!: () => void;
      stuck = { key: `approval:${id}`, released: new Promise<void>((resolve) => (release = resolve)) };
      return release;
    },
  };
});

test('tells an approver to check the request when the store failed after the write started', async ({
  failing: { app, inner, failAfterWriting },
}) => {
  const id = await fileWithdrawal(app, '1400');
  failAfterWriting(id);
  // Approve opens the review; its submission is what writes, and it is answered in the modal.
  const reviewed = await approve(app, id, APPROVER_A);
  const answer = JSON.stringify(reviewed.submitted?.json());
  expect(answer).toContain(MAYBE_NOT_RECORDED);
  expect(answer).not.toContain(NOT_RECORDED);
  // And it was in fact recorded: "nothing changed" would have been false.
  expect((await inner.get<{ approvals: Array<{ user: string }> }>(`approval:${id}`))?.approvals).toEqual([
    expect.objectContaining({ user: APPROVER_A }),
  ]);
});

test('keeps the reject modal open saying the rejection may have been recorded', async ({
  failing: { app, inner, failAfterWriting },
}) => {
  const id = await fileWithdrawal(app, '1450');
  const view = await openReject(app, id, APPROVER_A);
  failAfterWriting(id);
  const response = await submitReject(app, view, APPROVER_A, 'wrong amount');
  expect(response.json()).toMatchObject({
    response_action: 'errors',
    errors: { 'reject.reason': expect.stringContaining('may not have been recorded') },
  });
  expect((await inner.get<{ state: string }>(`approval:${id}`))?.state).toBe('rejected');
});

test('tells a final approver of a redemption to check it when the store failed after the re-check wrote', async ({
  failing: { app, inner, failAfterWriting },
}) => {
  app.sandbox.setAccountName('0123456789', 'ADA OBI');
  const filed = await fileDraft(app.engine, redemptionDraft(REQUESTER));
  const check = app.sandbox.hold('POST', '/v1/api/account/verify');
  // Approve opens the review; its submission starts the re-check with the service.
  const review = await reviewFor(app, filed.id, APPROVER_A);
  const submitted = submitReview(app.sender, review.view as ReviewView, APPROVER_A);
  await check.arrived;
  expect((await submitted).status).toBe(200);
  const first = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
  expect(first.body.text).toBe(RECHECKING);
  // The hold is saved; the approval's own write lands and then the connection drops.
  failAfterWriting(filed.id);
  check.release();
  const told = await app.slack.waitFor(
    'chat.postEphemeral',
    (c) => c.body.user === APPROVER_A && c.body.text !== RECHECKING,
  );
  expect(told.body.text).toBe(MAYBE_NOT_RECORDED);
  expect(told.body.text).not.toBe(NOT_RECORDED);
  const stored = await inner.get<{ approvals: Array<{ user: string }> }>(`approval:${filed.id}`);
  expect(stored?.approvals).toEqual([expect.objectContaining({ user: APPROVER_A })]);
  await app.engine.idle();
});

test('tells an approver whose late submission then failed that nothing changed', async ({
  failing: { app, inner, lockNeverHad },
}) => {
  const id = await fileWithdrawal(app, '1475');
  const review = await reviewFor(app, id, APPROVER_A);
  const release = lockNeverHad(id);
  // The ack's deadline passes with the write still waiting: the modal says it may not be recorded.
  const answer = JSON.stringify(
    (await submitReview(app.sender, review.view as ReviewView, APPROVER_A)).json(),
  );
  expect(answer).toContain(MAYBE_NOT_RECORDED);
  release();
  // Then the lock is given up, before any write: the approver is told so, not left to wonder.
  const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
  expect(told.body.text).toContain('could not be recorded just now, so nothing changed');
  expect((await inner.get<{ approvals: unknown[] }>(`approval:${id}`))?.approvals).toEqual([]);
});

test('tells an approver whose late submission failed after its write started to check the request', async ({
  failing: { app, inner, failAfterWriting, writeHeld },
}) => {
  const id = await fileWithdrawal(app, '1480');
  const review = await reviewFor(app, id, APPROVER_A);
  // The write starts at once and is held past the ack's deadline; then it lands and the store fails.
  const release = writeHeld(id);
  failAfterWriting(id);
  const answer = JSON.stringify(
    (await submitReview(app.sender, review.view as ReviewView, APPROVER_A)).json(),
  );
  expect(answer).toContain(MAYBE_NOT_RECORDED);
  release();
  const told = await app.slack.waitFor('chat.postEphemeral', (c) => c.body.user === APPROVER_A);
  // It was recorded: "nothing changed" would be false.
  expect(told.body.text).toBe(MAYBE_NOT_RECORDED);
  expect((await inner.get<{ approvals: unknown[] }>(`approval:${id}`))?.approvals).toEqual([
    expect.objectContaining({ user: APPROVER_A }),
  ]);
});
