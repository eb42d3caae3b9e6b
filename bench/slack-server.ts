// The fake Slack Web API for the ack bench, in its own process: the answers our bot posts to
// response_url must not run on the event loop that times the acks. Prints one JSON line
// {apiUrl, responseUrl} and serves until killed.
import { FakeSlack } from '../test/support/fake-slack.js';

const slack = await FakeSlack.start();
process.stdout.write(
  `${JSON.stringify({ apiUrl: slack.apiUrl, responseUrl: slack.responseUrl('bench') })}\n`,
);
process.on('SIGTERM', () => {
  void slack.stop().then(() => process.exit(0));
});
