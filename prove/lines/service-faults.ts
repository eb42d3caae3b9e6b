// Service faults: timeouts, connection resets, 5xx and 429 (with Retry-After) injected by the sandbox.
// Reads on each endpoint are retried within the client's budget (3 attempts) and answer; a money POST
// is never retried, whatever the fault (the sandbox's POST count is the truth); and a POST the service
// did act on, whose answer was lost, ends reconciled as sent from the transaction list.
import { RateBudgetError } from '../../src/cngn/errors.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { FakeSlack } from '../../test/support/fake-slack.js';
import { approveInChannel } from '../../test/support/review.js';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  fileWithdrawal,
  type Line,
  postsByAmount,
  sleep,
  startReplica,
  waitFor,
} from '../support.js';

const WITHDRAW = '/v1/api/withdraw';
const READ_FAULTS = ['500', '503', 'reset', '429', 'timeout'] as const;
const POST_FAULTS = ['500', 'reset', '429', 'timeout', 'processed, answer lost'] as const;

export async function serviceFaults(k: number): Promise<Array<Omit<Line, 'seconds'>>> {
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  const slack = await FakeSlack.start();
  const store = await createStore('memory://');
  // Short timeouts so a held request times out quickly; the sweep is driven by hand (tick).
  const replica = await startReplica({
    sandbox,
    slack,
    store,
    clientTimeouts: { headersMs: 1_000, bodyMs: 1_000 },
  });
  const client = replica.bot.client;
  const engine = replica.bot.approvals?.engine;
  if (!engine) throw new Error('approvals are not wired');
  const lines: Array<Omit<Line, 'seconds'>> = [];
  const holds: Array<() => void> = [];
  try {
    // Reads: one fault then the real answer; the read must succeed, with exactly one retry.
    const reads: Array<[string, string, () => Promise<unknown>]> = [
      ['GET', '/v1/api/balance', () => client.getBalance({ fresh: true })],
      ['GET', '/v1/api/networks', () => client.getNetworks({ fresh: true })],
      ['GET', '/v1/api/banks', () => client.getBanks({ fresh: true })],
      ['GET', '/v1/api/transactions', () => client.getTransactions({ page: 1, limit: 10 })],
      ['GET', '/v1/api/whitelisted', () => client.getWhitelisted({})],
      ['GET', '/v1/api/virtual-account', () => client.getDedicatedAccounts({})],
    ];
    let readsOk = 0;
    let readCalls = 0;
    let maxAttempts = 0;
    let refusedWhileBlocked = 0;
    const blockWaits: number[] = [];
    const readProblems: string[] = [];
    for (let trial = 0; trial < k; trial++) {
      for (const [method, path, read] of reads) {
        for (const fault of READ_FAULTS) {
          if (fault === 'reset') sandbox.resetNext(method, path);
          else if (fault === 'timeout') holds.push(sandbox.hold(method, path).release);
          else
            sandbox.failNext(
              method,
              path,
              Number(fault),
              1,
              undefined,
              fault === '429' ? { 'retry-after': '1' } : {},
            );
          const before = sandbox.count(method, path);
          readCalls += 1;
          try {
            await read();
            readsOk += 1;
          } catch (error) {
            // A 429 blocks the key for everyone: a person's read is refused at once, clearly, rather
            // than queued behind the block (the designed answer, counted as answered).
            if (fault === '429' && error instanceof RateBudgetError) {
              readsOk += 1;
              refusedWhileBlocked += 1;
            } else readProblems.push(`${path} after ${fault}: ${String(error)}`);
          }
          if (fault === '429') {
            const blockedAt = Date.now();
            while ((await client.budget()).blockedForSeconds > 0) await sleep(200);
            blockWaits.push(Date.now() - blockedAt);
          }
          const attempts = sandbox.count(method, path) - before;
          maxAttempts = Math.max(maxAttempts, attempts);
          if (attempts > 3) readProblems.push(`${path} after ${fault}: ${attempts} attempts`);
        }
      }
    }
    for (const release of holds.splice(0)) release();
    lines.push({
      line: 'service faults: reads',
      on: `${reads.length} endpoints`,
      target: 'every read answered after a fault, ≤ 3 attempts',
      figure: `${readsOk}/${readCalls} answered (faults: ${READ_FAULTS.join(', ')}), at most ${maxAttempts} attempts; after a 429 (Retry-After: 1) ${refusedWhileBlocked} refused at once while blocked, block over in ≤ ${Math.max(0, ...blockWaits)} ms`,
      status: readsOk === readCalls && readProblems.length === 0 ? 'pass' : 'fail',
      ...(readProblems.length ? { note: readProblems.slice(0, 2).join('; ') } : {}),
    });

    // Money POSTs: one withdrawal per fault per trial, approved through the bot.
    const network = (await client.getNetworks()).find((n) => !n.isDisabled);
    if (!network) throw new Error('no network');
    let requests = 0;
    let posts = 0;
    let resent = 0;
    let stuck = 0;
    let reconciled = 0;
    let wrong = 0;
    const ended = new Map<string, number>();
    const problems: string[] = [];
    let n = 0;
    for (let trial = 0; trial < k; trial++) {
      for (const fault of POST_FAULTS) {
        n += 1;
        const amount = (500 + n / 100).toFixed(2);
        const id = await fileWithdrawal(replica.sender, slack, network, amount);
        let release: (() => void) | undefined;
        if (fault === 'reset') sandbox.resetNext('POST', WITHDRAW);
        else if (fault === 'timeout') release = sandbox.hold('POST', WITHDRAW).release;
        else if (fault === 'processed, answer lost') sandbox.dropResponse('POST', WITHDRAW);
        else
          sandbox.failNext(
            'POST',
            WITHDRAW,
            Number(fault),
            1,
            undefined,
            fault === '429' ? { 'retry-after': '1' } : {},
          );
        requests += 1;
        // Approve opens the review modal; its submission approves.
        await approveInChannel(replica.sender, slack, id, APPROVERS[0], APPROVALS_CHANNEL);
        const settled = async () => {
          const state = (await engine.get(id))?.state;
          return state !== undefined && state !== 'approved' && state !== 'executing';
        };
        await waitFor(settled, `${id} past executing`, 15_000).catch(() => {});
        // A held POST is then processed by the service (its answer went nowhere), like a slow service.
        release?.();
        await engine.idle();
        // The sweep looks for outcome-unknown requests in the transaction list.
        for (let i = 0; i < 3 && (await engine.get(id))?.state === 'outcome-unknown'; i++) {
          await engine.tick();
          await engine.idle();
        }
        const request = await engine.get(id);
        const state = request?.state ?? 'missing';
        ended.set(state, (ended.get(state) ?? 0) + 1);
        const count = postsByAmount(sandbox, WITHDRAW).get(String(Number(amount))) ?? 0;
        posts += count;
        if (count > 1) resent += 1;
        // Acted on: answered 2xx, or processed with its answer dropped (logged with status 0).
        const processed =
          fault === 'processed, answer lost' ||
          sandbox.requests.some(
            (r) =>
              r.method === 'POST' &&
              r.path === WITHDRAW &&
              (r.plainBody as { amount?: unknown } | undefined)?.amount === Number(amount) &&
              r.status >= 200 &&
              r.status < 300,
          );
        if (request?.history.some((h) => h.action === 'interrupted' || h.action === 'outcome-unknown')) {
          if (state === 'sent' || state === 'completed') reconciled += 1;
          else if (processed) {
            wrong += 1;
            problems.push(`${fault}: ${id} acted on by the service but not found in the list (${state})`);
          }
        }
        if (state === 'approved' || state === 'executing' || state === 'missing') {
          stuck += 1;
          problems.push(`${fault}: ${id} stuck ${state}`);
        } else if (state === 'failed' && processed) {
          wrong += 1;
          problems.push(`${fault}: ${id} failed although the service acted`);
        } else if ((state === 'sent' || state === 'completed') && count === 0) {
          wrong += 1;
          problems.push(`${fault}: ${id} sent with no call`);
        }
      }
    }
    const ok = resent === 0 && stuck === 0 && wrong === 0 && posts === requests;
    lines.push({
      line: 'service faults: money POSTs',
      on: POST_FAULTS.join(', '),
      target: `${requests} POSTs for ${requests} requests, 0 retried, unknown reconciled`,
      figure: `${posts} POSTs, ${resent} retried, ${reconciled} reconciled from the list; ended ${[...ended].map(([s, c]) => `${c} ${s}`).join(', ')}`,
      status: ok ? 'pass' : 'fail',
      ...(ok ? {} : { note: problems.slice(0, 3).join('; ') || `${posts} POSTs for ${requests} requests` }),
    });
  } finally {
    for (const release of holds) release();
    await replica.stop();
    await store.close();
    await slack.stop();
    await sandbox.stop();
  }
  return lines;
}
