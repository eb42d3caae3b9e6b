// A loopback port nobody listens on, for a process the test starts later with PORT=<port>. A port the
// kernel handed to listen(0) and we closed again can be handed to the next listen(0) of any process
// before our child binds it (a parallel test file took one, EADDRINUSE). So the port is chosen below
// the kernel's ephemeral range, which listen(0) never hands out, from a slice of its own per test
// worker, and checked free before it is returned.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const SLICE = 400;
const FIRST = 20_000;
let next = 0;

function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    return Number(low) || 0;
  } catch {
    return 0;
  }
}

async function listens(port: number): Promise<number | undefined> {
  const probe = createServer();
  probe.listen(port, '127.0.0.1');
  const outcome = await Promise.race([
    once(probe, 'listening').then(() => true),
    once(probe, 'error').then(() => false),
  ]);
  if (!outcome) return undefined;
  const { port: bound } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return bound;
}

export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) || 0;
  const start = FIRST + (worker % 25) * SLICE;
  // Fall back to listen(0) where the ephemeral range starts too low to leave room below it.
  if (ephemeralLow() < start + SLICE) return (await listens(0)) as number;
  for (let tries = 0; tries < SLICE; tries += 1) {
    const port = start + (next++ % SLICE);
    const free = await listens(port);
    if (free !== undefined) return free;
  }
  return (await listens(0)) as number;
}
