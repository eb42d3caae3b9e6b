// The app under test for the ack bench, in its own process so the load generator and the fake Slack
// do not share its event loop. `ours` = the whole bot with the embedded sandbox; `bare` = Bolt with a
// no-op /cngn. A third argument > 0 puts a proxy in front of the sandbox that forwards each call that
// many ms late (a slow service); `answering` = Bolt whose /cngn acks, then answers one line through
// Bolt's own `respond()` (the response_url), as every app that answers a command does. Prints one JSON
// line {url} and serves until killed.
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { Session } from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { App, LogLevel } from '@slack/bolt';
import { silentLogger } from '../src/log.js';
import { type Sandbox, startSandbox } from '../src/sandbox/index.js';
import { createStore } from '../src/store/index.js';
import { startBot } from '../src/wiring/bot.js';
import { SIGNING_SECRET, testConfig } from '../test/support/harness.js';

const [mode = 'ours', slackApiUrl = '', delay = '0'] = process.argv.slice(2);
const delayMs = Number(delay);

/** The sandbox as the bot sees it: its calls go through a proxy that forwards each `ms` late. */
async function slowed(sandbox: Sandbox, ms: number): Promise<Sandbox> {
  const target = new URL(sandbox.baseUrl);
  const proxy = createServer((req, res) => {
    void sleep(ms).then(() => {
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return Object.create(sandbox, { baseUrl: { value: baseUrl } }) as Sandbox;
}

async function main(): Promise<string> {
  if (mode === 'bare' || mode === 'answering') {
    const app = new App({
      signingSecret: SIGNING_SECRET,
      token: 'xoxb-bench',
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl },
    });
    app.command('/cngn', async ({ ack, respond }) => {
      await ack();
      if (mode === 'answering') await respond({ response_type: 'ephemeral', text: 'Balance: ₦1,000.00' });
    });
    const server = (await app.start(0)) as Server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 3_600_000 });
  const store = await createStore('memory://');
  const bot = await startBot({
    config: testConfig(slackApiUrl),
    logger: silentLogger,
    store,
    sandbox: delayMs > 0 ? await slowed(sandbox, delayMs) : sandbox,
  });
  return bot.url;
}

/**
 * BENCH_ACK_HEAP_PROF=<dir>: a sampled allocation profile of the app's whole life, collected objects
 * included (what a request allocates, not what it keeps), written on SIGTERM as
 * `<dir>/ack-<mode>-<pid>.heapprofile` (Chromium's DevTools reads it).
 */
function heapSampling(): (() => void) | undefined {
  const dir = process.env.BENCH_ACK_HEAP_PROF;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 1_024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return () =>
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error)
        writeFileSync(join(dir, `ack-${mode}-${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
}

const writeHeapProfile = heapSampling();
main().then((url) => process.stdout.write(`${JSON.stringify({ url })}\n`));
// An exit rather than the default end on SIGTERM, so a CPU profile (BENCH_ACK_CPU_PROF) is written.
process.on('SIGTERM', () => {
  writeHeapProfile?.();
  process.exit(0);
});
