// Cost of the wire encryption per call: sealing a request body (AES-256-CBC) and opening response
// data (NaCl box), with realistic bodies. Prints microseconds per operation beside each target, and
// beside the opens libsodium's crypto_box_open_easy on boxes sealed the same way (libsodium-wrappers,
// a dev dependency; skipped with a notice when it is not installed), which must give the same text.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  curvePublicFromEd25519,
  curveSecretFromSeed,
  generateOpenSshKeyPair,
  openResponseData,
  parseOpenSshPrivateKey,
  sealRequestBody,
  sealResponseData,
} from '../src/cngn/wire.js';
import { emitResult } from './results.js';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 5_000);
const WARMUP = 500;
const LIBSODIUM_LIMIT_MS = 120_000;

const keys = parseOpenSshPrivateKey(generateOpenSshKeyPair().privateKey);
const curveSecret = curveSecretFromSeed(keys.seed);
const curvePublic = await curvePublicFromEd25519(keys.publicKey);
const encryptionKey = 'bench-encryption-key-0123456789';

const withdrawBody = JSON.stringify({
  amount: 1500.5,
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  networkId: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  shouldSaveAddress: false,
});

// A page of 10 transactions, the largest answer the bot reads routinely.
const transactionPage = JSON.stringify({
  data: Array.from({ length: 10 }, (_, i) => ({
    id: `6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f${i}`,
    from: '0x52908400098527886E0F7030069857D2E4169EE7',
    receiver: { address: '0x1111111111111111111111111111111111111111' },
    amount: '25000.00',
    description: 'Withdrawal to external wallet',
    createdAt: '2026-11-23T07:20:51.289Z',
    trx_ref: `TRX-20261123-${1000 + i}`,
    trx_type: 'withdraw',
    network: 'bsc',
    asset_type: 'wrapped',
    asset_symbol: 'CNGN',
    base_trx_hash: `0x${'ab'.repeat(32)}`,
    extl_trx_hash: null,
    explorer_link: `https://bscscan.com/tx/0x${'ab'.repeat(32)}`,
    status: 'completed',
  })),
  pagination: { count: 120, pages: 12, isLastPage: false, nextPage: 2, previousPage: null },
});
const sealedPage = sealResponseData(transactionPage, curvePublic);
const balance = JSON.stringify([
  { asset_type: 'credit_alphanum4', asset_code: 'CNGN', balance: '1250000.00' },
]);
const sealedBalance = sealResponseData(balance, curvePublic);

const BATCHES = 5;

interface Timing {
  /** This process's CPU time per call: the cost, whatever else the machine is running. */
  cpu: number;
  /** Wall-clock time per call: above cpu when other processes took the cores. */
  wall: number;
}

/** µs per call, each the median of BATCHES batch means, so one disturbed batch does not count. */
function timeEach(run: () => void): Timing {
  for (let i = 0; i < WARMUP; i++) run();
  const batch = Math.max(1, Math.round(ITERATIONS / BATCHES));
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < batch; i++) run();
    wall.push(((performance.now() - started) * 1000) / batch);
    const used = process.cpuUsage(cpuStarted);
    cpu.push((used.user + used.system) / batch);
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(BATCHES / 2)] ?? Number.NaN;
  return { cpu: median(cpu), wall: median(wall) };
}

function report(label: string, timing: Timing, targetMicros?: number): boolean {
  const verdict =
    targetMicros === undefined
      ? 'no target'
      : `target < ${targetMicros} µs  ${timing.cpu < targetMicros ? 'met' : 'MISSED'}`;
  const figures = `${timing.cpu.toFixed(1).padStart(7)} µs (wall ${timing.wall.toFixed(1)})`;
  console.log(`${label.padEnd(52)} ${figures.padEnd(26)} ${verdict}`);
  return targetMicros === undefined || timing.cpu < targetMicros;
}

/** libsodium's open of the same box, or undefined (with the reason) when libsodium-wrappers is absent. */
async function libsodiumOpen(): Promise<((data: string) => string) | string> {
  let sodium: typeof import('libsodium-wrappers')['default'];
  try {
    sodium = (await import('libsodium-wrappers')).default;
    await sodium.ready;
  } catch (error) {
    return `libsodium-wrappers is not installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
  return (data: string) => {
    const blob = Buffer.from(data, 'base64');
    const nonce = blob.subarray(0, sodium.crypto_box_NONCEBYTES);
    const ephemeral = blob.subarray(blob.length - sodium.crypto_box_PUBLICKEYBYTES);
    const box = blob.subarray(sodium.crypto_box_NONCEBYTES, blob.length - sodium.crypto_box_PUBLICKEYBYTES);
    return sodium.to_string(sodium.crypto_box_open_easy(box, nonce, ephemeral, curveSecret));
  };
}

/** libsodium's figure for the same kind of box, emitted as the reference of our figure `id`. */
function reference(
  sodiumOpen: (data: string) => string,
  id: string,
  label: string,
  sealed: string,
  plain: string,
): void {
  if (sodiumOpen(sealed) !== plain) throw new Error(`libsodium opened ${label} to another text`);
  const timing = timeEach(() => sodiumOpen(sealed));
  report(`  reference: libsodium-wrappers crypto_box_open_easy (WASM), ${label}`, timing);
  emitResult({
    id: `${id}.libsodium`,
    figure: `libsodium ${label}`,
    value: timing.cpu,
    unit: 'µs',
    referenceFor: id,
    referenceLabel: 'libsodium-wrappers (WASM)',
  });
}

function measured(id: string, figure: string, timing: Timing, target?: number): boolean {
  emitResult({
    id,
    figure,
    value: timing.cpu,
    unit: 'µs',
    ...(target === undefined ? {} : { target: { op: '<', value: target } }),
    reference: `wall ${timing.wall.toFixed(1)} µs`,
  });
  return report(figure, timing, target);
}

/**
 * The libsodium references run in a child process of their own (this script with `--libsodium`),
 * under a time limit: the WASM build once hung a run on this machine, and a reference must not stall
 * the bench.
 */
async function libsodiumReferences(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--libsodium'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_ITERATIONS: String(ITERATIONS) },
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), LIBSODIUM_LIMIT_MS);
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  for await (const line of createInterface({ input: child.stdout })) console.log(line);
  const [code, signal] = await exited;
  clearTimeout(timer);
  if (code !== 0) {
    console.log(
      `reference skipped: the libsodium run ${signal ? `did not finish in ${LIBSODIUM_LIMIT_MS / 1000} s` : `exited with ${code}`}`,
    );
  }
}

if (process.argv.includes('--libsodium')) {
  const sodiumOpen = await libsodiumOpen();
  if (typeof sodiumOpen === 'string') {
    console.log(`reference skipped: ${sodiumOpen}`);
  } else {
    reference(sodiumOpen, 'crypto.open-78', `open ${balance.length} B`, sealedBalance, balance);
    reference(sodiumOpen, 'crypto.open-6k', `open ${transactionPage.length} B`, sealedPage, transactionPage);
  }
  process.exit(0);
}

const [load = 0] = loadavg();
console.log(
  `wire crypto, ${ITERATIONS} calls each, CPU µs per call, median of ${BATCHES} batches (node ${process.version}, ${availableParallelism()} cores, load average ${load.toFixed(2)})`,
);
if (openResponseData(sealedBalance, curveSecret) !== balance) throw new Error('our open gave another text');
const met = [
  measured(
    'crypto.seal',
    `seal request body (${withdrawBody.length} B JSON, AES-256-CBC)`,
    timeEach(() => sealRequestBody(withdrawBody, encryptionKey)),
    15,
  ),
  measured(
    'crypto.open-78',
    `open response data (${balance.length} B JSON, NaCl box)`,
    timeEach(() => openResponseData(sealedBalance, curveSecret)),
    100,
  ),
  measured(
    'crypto.open-6k',
    `open response data (${transactionPage.length} B JSON, NaCl box)`,
    timeEach(() => openResponseData(sealedPage, curveSecret)),
    200,
  ),
  // The sandbox's side: a fresh ephemeral key pair per response, so two X25519 operations.
  measured(
    'crypto.sandbox-seal',
    `seal response data (${balance.length} B JSON, sandbox side)`,
    timeEach(() => sealResponseData(balance, curvePublic)),
  ),
].every(Boolean);
if (!met) console.log('some targets were missed');
await libsodiumReferences();
process.exit(0);
