// The bot's webhook intake in its own process, for the intake bench: the real pipeline (signature,
// parse, dedupe, durable store, answer) on the store URL given, without the deliverer, so the load
// generator does not share its event loop. Prints one JSON line {url}, then answers lines on stdin:
// `start` (from now on CPU time is counted) → {started: true}; `stop` → {cpuMs, stored} (CPU time of
// this process since `start`, events in the outbox), after which it clears the store and exits.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { webhookMessage } from '../src/slack/alerts/message-blocks.js';
import { clearStore, createStore } from '../src/store/index.js';
import { createWebhooks } from '../src/webhooks/index.js';

const [storeUrl = '', secret = ''] = process.argv.slice(2);

const store = await createStore(storeUrl, { prefix: `bench-intake-${process.pid}-${Date.now()}` });
const webhooks = createWebhooks({ store, environment: 'sandbox', secret, render: webhookMessage });
const server = createServer((req, res) => webhooks.route.handler(req, res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const reply = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
reply({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });

let cpu = process.cpuUsage();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'start') {
    cpu = process.cpuUsage();
    reply({ started: true });
  } else if (line === 'stop') {
    const { user, system } = process.cpuUsage(cpu);
    const stored = await webhooks.outbox.pendingCount();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await clearStore(store);
    await store.close();
    reply({ cpuMs: (user + system) / 1000, stored });
    break;
  }
}
process.exit(0);
