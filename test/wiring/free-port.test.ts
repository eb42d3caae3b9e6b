// The port a test hands a bot it starts later (PORT=<port>) is one the kernel never hands to a listen(0)
// meanwhile: a parallel test file's listen(0) once took it first and the bot failed with EADDRINUSE.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';

const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

it.runIf(low >= 32_768)('hands out ports below the ephemeral range, a new one each time', async () => {
  const ports = [await freePort(), await freePort(), await freePort()];
  for (const port of ports) expect(port).toBeLessThan(low);
  expect(new Set(ports).size).toBe(3);
});
