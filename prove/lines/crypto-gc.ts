// Crypto under forced GC: on Node 20, a key made with generateKeyPair(Sync) and then exported as JWK
// could freeze the process for good when a collection landed inside the export (found by the crash
// line: its sandbox hung mid-seal). The wire code no longer does either; this line seals responses
// in a child process with collections forced all through each seal and fails if it hangs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Line } from '../support.js';

const CHILD = fileURLToPath(new URL('./crypto-gc-child.ts', import.meta.url));

export async function cryptoUnderGc(seals: number, limitMs: number): Promise<Omit<Line, 'seconds'>> {
  const base = {
    line: 'crypto under forced GC',
    on: 'sandbox seal',
    target: `${seals} seals finish (no hang) within ${limitMs / 1000} s`,
  };
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, String(seals)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const done = /done (\d+) (\d+)/.exec(out);
  if (code === 0 && done) {
    return {
      ...base,
      figure: `${done[1]} seals and ${done[2]} key pairs in ${seconds} s, GC forced every 2–401 allocations`,
      status: 'pass',
    };
  }
  return {
    ...base,
    figure: signal === 'SIGKILL' ? `hung: killed after ${seconds} s` : `exited ${String(signal ?? code)}`,
    status: 'fail',
    note: out.slice(-300),
  };
}
