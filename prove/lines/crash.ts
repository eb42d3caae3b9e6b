// Crash at every step: the real bot (src/main.ts) in a child process with one crash point armed
// (CNGN_DESK_CRASH_AT), killed with SIGKILL between the final Approve and the recorded outcome; then a
// restart on the same store, after the dead process's leases ran out. The sandbox's POST count is the
// truth: never two calls for one request, and every request ends sent/completed, failed (nothing was
// sent) or outcome unknown (reconciled, or left for a person) — never stuck and never "failed" when
// the money went.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { CRASH_POINTS } from '../../src/crash-points.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { FakeSlack } from '../../test/support/fake-slack.js';
import { SIGNING_SECRET } from '../../test/support/harness.js';
import { reviewInChannel, submitReview } from '../../test/support/review.js';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  fileWithdrawal,
  freePort,
  type Line,
  type ProveStore,
  postsByAmount,
  REQUESTER,
  startReplica,
  waitFor,
} from '../support.js';

const WITHDRAW = '/v1/api/withdraw';
const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
// Every bot of the line signs the audit trail of the one shared store: with one key, given, as a
// deployment on PostgreSQL or Redis must (the bot makes none of its own there).
const AUDIT_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
/** The restart comes after every lease of the dead process ran out (execution leases are 2 min). */
const LATER_MS = 5 * 60_000;
/** How long the during-post trial waits for the bot's POST before it fails the trial (never hangs). */
const POST_DEADLINE_MS = 60_000;

const POINTS = (process.env.PROVE_POINTS?.split(',') ?? [
  ...CRASH_POINTS,
  'during-post',
]) as readonly string[];

interface Child {
  process: ChildProcess;
  url: string;
  exited: Promise<NodeJS.Signals | number | null>;
}

/**
 * src/main.ts as an operator runs it, on the given store, pointed at the sandbox as a real service. A
 * port another process took between the probe and the bot's listen is given up for a new one.
 */
async function startChild(
  sandbox: Sandbox,
  slack: FakeSlack,
  storeUrl: string,
  point?: string,
): Promise<Child> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startChildOn(await freePort(), sandbox, slack, storeUrl, point);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startChildOn(
  port: number,
  sandbox: Sandbox,
  slack: FakeSlack,
  storeUrl: string,
  point?: string,
): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: 'xoxb-prove',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      ADMIN_PORT: '0',
      CNGN_APPROVALS_CHANNEL: APPROVALS_CHANNEL,
      CNGN_APPROVERS: [...APPROVERS, REQUESTER].join(','),
      CNGN_APPROVAL_TIERS: '0:1',
      CNGN_BASE_URL: sandbox.baseUrl,
      CNGN_API_KEY: sandbox.apiKey,
      CNGN_ENCRYPTION_KEY: sandbox.encryptionKey,
      CNGN_PRIVATE_KEY_FILE: sandbox.privateKeyFile,
      CNGN_WEBHOOK_SECRET: sandbox.webhookSecret,
      CNGN_RATE_LIMIT: '100000/60s',
      STORE_URL: storeUrl,
      CNGN_AUDIT_SIGNING_KEY: AUDIT_KEY,
      LOG_LEVEL: 'info',
      ...(point ? { CNGN_DESK_CRASH_AT: point } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = once(child, 'exit').then(
    ([code, signal]) => (signal ?? code) as NodeJS.Signals | number | null,
  );
  let log = '';
  const running = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes('cngn-desk is running')) resolve();
    });
    void exited.then((how) =>
      reject(new Error(`the bot exited (${how}) before it was running: ${log.slice(-500)}`)),
    );
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await running;
  } finally {
    clearTimeout(timer);
  }
  return { process: child, url: `http://127.0.0.1:${port}`, exited };
}

interface Tally {
  trials: number;
  sentTwice: number;
  lost: number;
  sent: number;
  failed: number;
  unknown: number;
  notReached: number;
  problems: string[];
}

export async function crashes(store: ProveStore, k: number): Promise<Omit<Line, 'seconds'>> {
  const base = {
    line: 'crash at every step',
    on: store.name,
    target: `${POINTS.length} points × ${k}: 0 sent twice, 0 lost`,
  };
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  const slack = await FakeSlack.start();
  const tally: Tally = {
    trials: 0,
    sentTwice: 0,
    lost: 0,
    sent: 0,
    failed: 0,
    unknown: 0,
    notReached: 0,
    problems: [],
  };
  const service = {
    mode: 'service' as const,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    encryptionKey: sandbox.encryptionKey,
    privateKey: sandbox.privateKey,
  };
  // The same network list the child reads.
  const probe = await startReplica({ sandbox, slack, store: await createStore('memory://') });
  const network = (await probe.bot.client.getNetworks()).find((n) => !n.isDisabled);
  await probe.stop();
  await probe.store.close();
  if (!network) throw new Error('no network');
  let trial = 0;
  try {
    for (const point of POINTS) {
      for (let i = 0; i < k; i++) {
        trial += 1;
        const amount = (300 + trial / 100).toFixed(2);
        tally.trials += 1;
        const t0 = Date.now();
        const mark = (what: string) =>
          process.env.PROVE_DEBUG && console.error(`${point} ${what} +${Date.now() - t0} ms`);
        const child = await startChild(
          sandbox,
          slack,
          store.url,
          point === 'during-post' ? undefined : point,
        );
        const sender = { baseUrl: child.url, signingSecret: SIGNING_SECRET };
        let id: string;
        let late: string | undefined;
        try {
          mark('child running');
          id = await fileWithdrawal(sender, slack, network, amount);
          mark('filed');
          const held = point === 'during-post' ? sandbox.hold('POST', WITHDRAW) : undefined;
          // The final (only) approval: the review opens, and its submission may lose its answer to the crash.
          const review = await reviewInChannel(sender, slack, id, APPROVERS[0], APPROVALS_CHANNEL);
          if (!review.view) throw new Error(`no review opened: ${String(review.told?.body.text)}`);
          void submitReview(sender, review.view, APPROVERS[0]).catch(() => {});
          if (held) {
            const reached = await Promise.race([
              held.arrived.then(() => 'posted' as const),
              child.exited.then(() => 'exited' as const),
              new Promise<'late'>((r) => setTimeout(() => r('late'), POST_DEADLINE_MS).unref()),
            ]);
            child.process.kill('SIGKILL');
            if (reached === 'late') {
              late = `${point}: the approved withdrawal was not POSTed within ${POST_DEADLINE_MS / 1000} s (sends held?)`;
            }
          }
          const how = await Promise.race([
            child.exited,
            new Promise((r) => setTimeout(() => r('alive'), 20_000)),
          ]);
          held?.release();
          if (late) {
            tally.notReached += 1;
            tally.problems.push(late);
          } else if (how !== 'SIGKILL') {
            tally.notReached += 1;
            tally.problems.push(`${point}: the bot did not die there (${String(how)})`);
            child.process.kill('SIGKILL');
            await child.exited;
          }
        } catch (error) {
          child.process.kill('SIGKILL');
          await child.exited;
          throw error;
        }
        // Restart: the whole bot again on the same store, its clock past the dead process's leases.
        mark('dead');
        const restarted = await store.open();
        mark('store open');
        const replica = await startReplica({
          sandbox,
          slack,
          store: restarted,
          now: () => new Date(Date.now() + LATER_MS),
          // The same bot again: the line's one audit key, and the head marks of the store's own file.
          config: {
            service,
            storeUrl: store.url,
            auditSigningKey: { pem: AUDIT_KEY, origin: 'CNGN_AUDIT_SIGNING_KEY' },
          },
        });
        mark('replica running');
        try {
          const engine = replica.bot.approvals?.engine;
          if (!engine) throw new Error('approvals are not wired');
          const final = () => engine.get(id).then((r) => r?.state);
          await waitFor(
            async () => {
              await engine.tick();
              await engine.idle();
              const state = await final();
              return (
                state === 'sent' || state === 'completed' || state === 'failed' || state === 'outcome-unknown'
              );
            },
            `${id} to end`,
            15_000,
          ).catch(() => {});
          const state = await final();
          mark('ended');
          const posts = postsByAmount(sandbox, WITHDRAW).get(String(Number(amount))) ?? 0;
          if (posts > 1) tally.sentTwice += 1;
          const lost =
            !state ||
            !['sent', 'completed', 'failed', 'outcome-unknown'].includes(state) ||
            (posts === 1 && state === 'failed') ||
            (posts === 0 && (state === 'sent' || state === 'completed'));
          if (lost) {
            tally.lost += 1;
            const history = (await engine.get(id))?.history.map(
              (h) => `${h.action}${h.note ? `(${h.note})` : ''}`,
            );
            tally.problems.push(
              `${point}: ${id} ended ${state} after ${posts} call(s): ${history?.join(' → ')}`,
            );
          } else if (state === 'outcome-unknown') tally.unknown += 1;
          else if (state === 'failed') {
            tally.failed += 1;
            if (process.env.PROVE_DEBUG) console.error((await engine.get(id))?.history);
          } else tally.sent += 1;
        } finally {
          await replica.stop();
          await restarted.close();
          mark('stopped');
        }
      }
    }
  } finally {
    await slack.stop();
    await sandbox.stop();
  }
  const ok = tally.sentTwice === 0 && tally.lost === 0 && tally.notReached === 0;
  return {
    ...base,
    figure: `${tally.trials} kills: ${tally.sentTwice} sent twice, ${tally.lost} lost; ended ${tally.sent} sent, ${tally.failed} failed, ${tally.unknown} outcome unknown`,
    status: ok ? 'pass' : 'fail',
    ...(ok ? {} : { note: tally.problems.slice(0, 3).join('; ') }),
  };
}
