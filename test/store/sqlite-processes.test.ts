// One SQLite store file, several real processes: only one may use it at a time. A second one waits
// (an overlapping restart), then refuses with a clear message; a dead holder's lock is free at once.
// Claims, compare-and-set and compare-and-delete are decided by the database all the same, which two
// connections past the lock show.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { memoryDirTest } from '../support/fixtures.js';
import { bundled } from '../support/node-entry.js';

interface Peer {
  child: ChildProcess;
  /** Resolves with the first output line that starts with `prefix`. */
  next(prefix: string): Promise<string>;
}

/** `entry`, sqlite-process.ts's bundle (support/node-entry.ts), on `file`. */
function spawnPeer(entry: string, file: string, ...args: string[]): Peer {
  const child = spawn(process.execPath, [entry, file, ...args], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: Array<{ prefix: string; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const index = waiting.findIndex((w) => line.startsWith(w.prefix));
    if (index >= 0) waiting.splice(index, 1)[0]?.resolve(line);
    else lines.push(line);
  });
  const made: Peer = {
    child,
    next: (prefix) => {
      const index = lines.findIndex((line) => line.startsWith(prefix));
      if (index >= 0) return Promise.resolve(lines.splice(index, 1)[0] ?? '');
      return new Promise((resolve, reject) => {
        waiting.push({ prefix, resolve });
        child.once('exit', (code) => reject(new Error(`peer exited (${code}) before "${prefix}"`)));
      });
    },
  };
  return made;
}

/**
 * `fileNamed(name)`, a new SQLite file's path in the file's temporary directory, and `peer(file, …)`,
 * a process on it, killed after the test if it is still running. In memory where the system has one:
 * a killed process leaves what it wrote to the system, so nothing here needs a disk's sync.
 */
const it = memoryDirTest
  .extend(
    'fileNamed',
    ({ tempDir }) =>
      (name: string) =>
        join(tempDir, `${name}-${Math.random().toString(36).slice(2)}.sqlite`),
  )
  .extend('peer', async ({ defer }) => {
    const entry = await bundled('test/store/sqlite-process.ts');
    const peers: Peer[] = [];
    defer(async () => {
      for (const { child } of peers.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGKILL');
          await exited;
        }
      }
    });
    return (file: string, ...args: string[]) => {
      const made = spawnPeer(entry, file, ...args);
      peers.push(made);
      return made;
    };
  });

/** Writes a process answers for at once before it is killed: enough that they commit in batches. */
const WRITES = 100;

describe('a SQLite store file shared by processes', () => {
  it('decides each claim in the database: two processes racing past the file lock win 1000 claims once each', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('race');
    // Both hold a connection at once (no file lock), so every claim is contested by two connections.
    const racers = [peer(file, '0', 'unlocked'), peer(file, '0', 'unlocked')];
    await Promise.all(racers.map((p) => p.next('ready')));
    for (const p of racers) p.child.stdin?.write('claim 1000\n');
    const wins = await Promise.all(racers.map(async (p) => Number((await p.next('claimed')).split(' ')[1])));
    for (const p of racers) p.child.stdin?.end('close\n');
    expect(wins[0]! + wins[1]!).toBe(1000);
  });

  it('orders one process’s compare-and-set against another’s compare-and-delete in the database: one of the two wins each key', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('cas-cad');
    const racers = [peer(file, '0', 'unlocked'), peer(file, '0', 'unlocked')] as const;
    await Promise.all(racers.map((p) => p.next('ready')));
    const [setter, deleter] = racers;
    setter.child.stdin?.write('claim 1000\n');
    expect(await setter.next('claimed')).toBe('claimed 1000');
    setter.child.stdin?.write(`set 1000 ${setter.child.pid}\n`);
    deleter.child.stdin?.write(`delete 1000 ${setter.child.pid}\n`);
    const set = Number((await setter.next('set')).split(' ')[1]);
    const deleted = Number((await deleter.next('deleted')).split(' ')[1]);
    for (const p of racers) p.child.stdin?.end('close\n');
    expect(set + deleted).toBe(1000);
  });

  it('keeps a second process waiting until the first has closed the file, which then finds every claim taken', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('serialised');
    const first = peer(file, '30000');
    await first.next('ready');
    const second = peer(file, '30000');
    await second.next('opening');
    first.child.stdin?.write('claim 1000\n');
    expect(await first.next('claimed')).toBe('claimed 1000');
    first.child.stdin?.end('close\n');
    // The second reads, as it gets the file, who closed it last: the first had already let go.
    expect(await second.next('ready')).toBe(`ready after ${first.child.pid}`);
    second.child.stdin?.write('claim 1000\n');
    expect(await second.next('claimed')).toBe('claimed 0');
  });

  it('refuses a second process once its wait is over, naming the file and Redis', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('second');
    const first = peer(file, '30000');
    await first.next('ready');
    const second = peer(file, '200');
    expect(await second.next('failed')).toBe(
      `failed another cngn-desk is using ${file} (waited 0.2 s); use PostgreSQL (STORE_URL=postgres://…) or Redis for several replicas`,
    );
    first.child.stdin?.end('close\n');
    await first.next('closed');
  });

  it('lets a restart that overlaps the old process in once the old one closes', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('overlap');
    const old = peer(file, '30000');
    await old.next('ready');
    const fresh = peer(file, '30000');
    await fresh.next('opening');
    old.child.stdin?.end('close\n');
    await old.next('closed');
    await fresh.next('ready');
  });

  it('takes over at once from a holder that was killed', async ({ fileNamed, peer }) => {
    const file = fileNamed('killed');
    const dead = peer(file, '30000');
    await dead.next('ready');
    const exited = once(dead.child, 'exit');
    dead.child.kill('SIGKILL');
    await exited;
    const next = peer(file, '0');
    await next.next('ready');
  });

  it('keeps every write it answered for, batched or not, when the process is killed right after', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('kill-after-write');
    const writer = peer(file, '30000');
    await writer.next('ready');
    writer.child.stdin?.write(`write ${WRITES}\n`);
    await writer.next('written');
    const exited = once(writer.child, 'exit');
    writer.child.kill('SIGKILL');
    await exited;
    const store = await createStore(`sqlite://${file}`, { fileLockWaitMs: 0 });
    try {
      const claims = await Promise.all(Array.from({ length: WRITES }, (_, i) => store.get(`event:${i}`)));
      expect(claims).toEqual(Array.from({ length: WRITES }, (_, i) => ({ i })));
      const values = await Promise.all(Array.from({ length: WRITES }, (_, i) => store.get(`value:${i}`)));
      expect(values).toEqual(Array.from({ length: WRITES }, (_, i) => i));
      expect([...(await store.readList<number>('events', 0, -1))].sort((a, b) => a - b)).toEqual(
        Array.from({ length: WRITES }, (_, i) => i),
      );
      // A claim written before the kill is still taken.
      expect(await store.setIfAbsent('event:7', 'again')).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('keeps every claimAndWrite it answered for (entry, set member, value) when killed right after the answer', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('kill-after-accept');
    const writer = peer(file, '30000');
    await writer.next('ready');
    writer.child.stdin?.write(`accept ${WRITES}\n`);
    await writer.next('accepted');
    const exited = once(writer.child, 'exit');
    writer.child.kill('SIGKILL');
    await exited;
    const store = await createStore(`sqlite://${file}`, { fileLockWaitMs: 0 });
    try {
      const entries = await Promise.all(Array.from({ length: WRITES }, (_, i) => store.get(`entry:${i}`)));
      expect(entries).toEqual(Array.from({ length: WRITES }, (_, i) => ({ i })));
      const tails = await Promise.all(Array.from({ length: WRITES }, (_, i) => store.get(`tail:${i}`)));
      expect(tails).toEqual(Array.from({ length: WRITES }, (_, i) => i));
      expect((await store.setMembers('pending')).map(Number).sort((a, b) => a - b)).toEqual(
        Array.from({ length: WRITES }, (_, i) => i),
      );
      expect(await store.claimAndWrite({ key: 'entry:7', value: 'again' }, [])).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('shares the file between stores of one process, and frees it when the last one closes', async ({
    fileNamed,
    peer,
  }) => {
    const file = fileNamed('same-process');
    const one = await createStore(`sqlite://${file}`, { fileLockWaitMs: 0 });
    const two = await createStore(`sqlite://${file}`, { fileLockWaitMs: 0 });
    await one.set('k', 'v');
    expect(await two.get('k')).toBe('v');
    await one.close();
    const outsider = peer(file, '0');
    expect(await outsider.next('failed')).toMatch(/another cngn-desk is using/);
    await two.close();
    const after = peer(file, '0');
    await after.next('ready');
  });
});
