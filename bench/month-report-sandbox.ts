// The service for the month-report bench, in its own process so its work (10,000 transactions served
// and sealed) is not counted on the bot's event loop: the embedded sandbox with `count` transactions
// spread from the start of this Lagos month to now, and the service's limit of 20 requests a minute.
// Prints one JSON line {baseUrl, apiKey, encryptionKey, privateKey, month} and serves until killed.
import { parsePeriod } from '../src/reports/period.js';
import { startSandbox } from '../src/sandbox/index.js';

const count = Number(process.argv[2] ?? 10_000);
const month = new Date().toISOString().slice(0, 7);
const period = parsePeriod(month, new Date());
if ('error' in period) throw new Error(period.error);
const sandbox = await startSandbox({
  settleDelayMs: 3_600_000,
  history: { count, from: period.from.getTime() },
});
const { baseUrl, apiKey, encryptionKey, privateKey } = sandbox;
process.stdout.write(`${JSON.stringify({ baseUrl, apiKey, encryptionKey, privateKey, month })}\n`);
process.on('SIGTERM', () => {
  void sandbox.stop().then(() => process.exit(0));
});
