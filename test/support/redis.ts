// Redis tests run whenever a Redis answers at REDIS_URL; with CI=true they are required.
import { createConnection } from 'node:net';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisAvailable(): Promise<boolean> {
  const url = new URL(REDIS_URL);
  const up = await new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port || 6379) });
    socket.setTimeout(1000);
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
  if (!up && process.env.CI === 'true') {
    throw new Error(`CI=true requires a Redis at ${REDIS_URL}`);
  }
  if (!up) console.warn(`[notice] no Redis at ${REDIS_URL}: Redis tests are skipped`);
  return up;
}

/** A prefix of its own for each test, so runs never see each other's keys. */
export function testPrefix(name: string): string {
  return `cngn-desk-test:${name}:${process.pid}:${Date.now()}`;
}
