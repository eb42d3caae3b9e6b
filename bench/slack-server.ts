// The fake Slack Web API for the ack bench, in its own process: the answers our bot posts to
// response_url must not run on the event loop that times the acks. Prints one JSON line
// {apiUrl, responseBase, countUrl} and serves until killed. `${responseBase}<name>` is a response_url;
// GET `${countUrl}?name=<name>` answers how many posts it has had, so the bench knows when every
// answer queued behind the acks has arrived.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeSlack } from '../test/support/fake-slack.js';

const slack = await FakeSlack.start();
const counter = createServer((req, res) => {
  const name = new URL(req.url ?? '/', 'http://localhost').searchParams.get('name') ?? '';
  res.end(String(slack.callsTo(`response_url:${name}`).length));
});
counter.listen(0, '127.0.0.1');
await once(counter, 'listening');
process.stdout.write(
  `${JSON.stringify({
    apiUrl: slack.apiUrl,
    responseBase: slack.responseUrl(''),
    countUrl: `http://127.0.0.1:${(counter.address() as AddressInfo).port}/count`,
  })}\n`,
);
process.on('SIGTERM', () => {
  counter.close();
  void slack.stop().then(() => process.exit(0));
});
