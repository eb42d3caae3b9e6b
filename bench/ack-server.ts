// The app under test for the ack bench, in its own process so the load generator and the fake Slack
// do not share its event loop. `ours` = the whole bot with the embedded sandbox; `bare` = Bolt with a
// no-op /cngn. Prints one JSON line {url} and serves until killed.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { silentLogger } from '../src/log.js';
import { startSandbox } from '../src/sandbox/index.js';
import { createStore } from '../src/store/index.js';
import { startBot } from '../src/wiring/bot.js';
import { SIGNING_SECRET, testConfig } from '../test/support/harness.js';

const [mode = 'ours', slackApiUrl = ''] = process.argv.slice(2);

async function main(): Promise<string> {
  if (mode === 'bare') {
    const app = new App({
      signingSecret: SIGNING_SECRET,
      token: 'xoxb-bench',
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl },
    });
    app.command('/cngn', async ({ ack }) => {
      await ack();
    });
    const server = (await app.start(0)) as Server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 3_600_000 });
  const store = await createStore('memory://');
  const bot = await startBot({ config: testConfig(slackApiUrl), logger: silentLogger, store, sandbox });
  return bot.url;
}

main().then((url) => process.stdout.write(`${JSON.stringify({ url })}\n`));
