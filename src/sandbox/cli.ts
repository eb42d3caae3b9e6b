// `npm run sandbox [-- --json]`: run the sandbox alone so other tools (and people) can talk to it.
// With --json, ONE line of credentials on stdout, the only line there starting with `{` (npm's own
// banner comes before it unless run with `npm run -s`); logs go to stderr.
// It stops on SIGINT, SIGTERM or SIGHUP, and when the process that launched it (npm included) is gone.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Sandbox, type SandboxOptions, startSandbox } from './index.js';
import { watchLaunchers } from './launcher.js';

const USAGE = `Usage: npm run sandbox -- [--json] [--port N] [--host H] [--webhook-url URL] [--webhook-secret S]
       [--settle-ms N] [--no-rate-limit] [--api-key K] [--encryption-key K] [--private-key-file PATH] [--verbose]
       [--history N]   seed N transactions spread over the last 30 days (default: 36 over the last days)`;

/** What `--history N` spreads its transactions over, back from now. */
const HISTORY_SPAN_MS = 30 * 86_400_000;

function parse() {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      port: { type: 'string' },
      host: { type: 'string' },
      'webhook-url': { type: 'string' },
      'webhook-secret': { type: 'string' },
      'settle-ms': { type: 'string' },
      history: { type: 'string' },
      'no-rate-limit': { type: 'boolean', default: false },
      'api-key': { type: 'string' },
      'encryption-key': { type: 'string' },
      'private-key-file': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  return values;
}

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new Error(`${flag} must be a whole number, got "${value}"`);
  return Number(value);
}

async function main(): Promise<void> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n${USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = sandboxOptions(values);
  // Watch the launchers before the credentials line goes out: a tool may stop npm right after reading it.
  const stop = stopWhenAsked();
  const sandbox = await startSandbox(options);
  if (!stop.serving(sandbox)) return; // asked to stop while starting: no credentials for a dying sandbox
  const credentials = {
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.apiKey,
    encryptionKey: sandbox.encryptionKey,
    privateKeyFile: sandbox.privateKeyFile,
    webhookSecret: sandbox.webhookSecret,
  };
  process.stdout.write(
    values.json
      ? `${JSON.stringify(credentials)}\n`
      : credentialsForPeople(credentials, values['webhook-url']),
  );
}

/** The flags as the sandbox's options; a flag left out keeps the sandbox's default. */
function sandboxOptions(values: ReturnType<typeof parse>): SandboxOptions {
  const apiKey = values['api-key'];
  if (apiKey !== undefined && !/^cngn_(test|live)_/.test(apiKey)) {
    throw new Error('--api-key must start with cngn_test_ or cngn_live_');
  }
  const port = integer(values.port, '--port');
  const settleDelayMs = integer(values['settle-ms'], '--settle-ms');
  const history = integer(values.history, '--history');
  return {
    ...(port !== undefined ? { port } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(values['webhook-url'] ? { webhookUrl: values['webhook-url'] } : {}),
    ...(values['webhook-secret'] !== undefined ? { webhookSecret: values['webhook-secret'] } : {}),
    ...(settleDelayMs !== undefined ? { settleDelayMs } : {}),
    ...(history !== undefined ? { history: { count: history, from: Date.now() - HISTORY_SPAN_MS } } : {}),
    ...(values['no-rate-limit'] ? { rateLimit: false as const } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(values['encryption-key'] ? { encryptionKey: values['encryption-key'] } : {}),
    ...(values['private-key-file'] ? { privateKey: readFileSync(values['private-key-file'], 'utf8') } : {}),
    ...(values.verbose || !values.json
      ? { log: (line: string) => process.stderr.write(`[sandbox] ${line}\n`) }
      : {}),
  };
}

function credentialsForPeople(
  credentials: Record<'baseUrl' | 'apiKey' | 'encryptionKey' | 'privateKeyFile' | 'webhookSecret', string>,
  webhookUrl: string | undefined,
): string {
  return [
    'cNGN sandbox is running (a fake of the custody service; no real money).',
    '',
    `  CNGN_BASE_URL=${credentials.baseUrl}`,
    `  CNGN_API_KEY=${credentials.apiKey}`,
    `  CNGN_ENCRYPTION_KEY=${credentials.encryptionKey}`,
    `  CNGN_PRIVATE_KEY_FILE=${credentials.privateKeyFile}`,
    `  CNGN_WEBHOOK_SECRET=${credentials.webhookSecret}`,
    '',
    `Webhooks go to: ${webhookUrl ?? '(none; pass --webhook-url)'}`,
    'Controls (no key, loopback only):',
    `  curl -X POST ${credentials.baseUrl}/sandbox/pay/<reference>        pay a temporary virtual account`,
    `  curl -X POST ${credentials.baseUrl}/sandbox/crypto-deposit -d '{"amount":"5000","network":"base"}'`,
    `  curl -X POST ${credentials.baseUrl}/sandbox/settle                 settle every pending transaction now`,
    `  curl -X POST ${credentials.baseUrl}/sandbox/fail-next-redemption   the next redemption's payout fails, once`,
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** Stop on SIGINT/SIGTERM/SIGHUP, a closed output, or a launcher gone; once, and never hanging. */
function stopWhenAsked(): { serving(sandbox: Sandbox): boolean } {
  let sandbox: Sandbox | undefined;
  let asked = false;
  const stop = () => {
    // A stop that hangs must not leave the process behind.
    setTimeout(() => process.exit(1), 5_000).unref();
    const stopped = sandbox ? sandbox.stop() : Promise.resolve();
    stopped.then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(
          `sandbox stopped uncleanly: ${error instanceof Error ? error.message : error}\n`,
        );
        process.exit(1);
      },
    );
  };
  const ask = () => {
    if (asked) return;
    asked = true;
    stopWatching();
    if (sandbox) stop(); // while starting, stop as soon as it serves
  };
  const stopWatching = watchLaunchers(ask);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, ask);
  // The reader of our output went away (EPIPE): nobody is listening any more.
  process.stdout.on('error', ask);
  process.stderr.on('error', ask);
  return {
    serving(started) {
      sandbox = started;
      if (asked) stop();
      return !asked;
    },
  };
}

main().catch((error: unknown) => {
  process.stderr.write(
    `sandbox failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
