// The webhooks half of the bot in its own process, for the kill -9 bench: intake, outbox and deliverer
// on a SQLite file, posting to the Slack API URL given, wired as start-up wires them (single-event and
// digest builders). Prints one JSON line {url} and serves until killed.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { alertDigest } from '../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../src/slack/alerts/message-blocks.js';
import { slackAlerts } from '../src/slack/alerts/sink.js';
import { createStore } from '../src/store/index.js';
import { createWebhooks } from '../src/webhooks/index.js';

const [storeUrl = '', slackApiUrl = '', secret = ''] = process.argv.slice(2);

const store = await createStore(storeUrl, { prefix: 'bench-kill' });
const webhooks = createWebhooks({
  store,
  environment: 'sandbox',
  secret,
  render: webhookMessage,
  renderDigest: alertDigest,
  sink: slackAlerts('xoxb-bench', slackApiUrl),
  alertsChannel: 'C0ALERTS',
});
const server = createServer((req, res) => webhooks.route.handler(req, res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
await webhooks.start();
console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
