// `npm run bench`: every section in turn, figures printed as plain lines.
import { benchAck } from './ack.js';
import { benchStartup } from './startup.js';
import { benchWebhooks } from './webhooks.js';

const sections: Array<[string, () => Promise<{ lines: string[] }>]> = [
  ['Slack ack latency', benchAck],
  ['Webhooks', benchWebhooks],
  ['Start-up (npm start)', benchStartup],
];

for (const [title, run] of sections) {
  console.log(`\n== ${title}`);
  const result = await run();
  for (const line of result.lines) console.log(line);
}
process.exit(0);
