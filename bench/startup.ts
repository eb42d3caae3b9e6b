// Start-up and idle memory of what `npm start` runs: the bot with the embedded sandbox and the
// default SQLite store, started by npm exactly as the README says, against a fake Slack. Times from
// the spawn of `npm start` to the first 200 from /healthz (and from the bot's own process start,
// which leaves npm's start-up out), then reads the RSS of every process npm left running after an
// idle spell. Beside it, in the same run, the same bot as it ran before: npm start running
// `tsx src/main.ts` (npm → sh → tsx → node), through a --script-shell that swaps the start script.
// The build is made fresh first: the target is start-up after the build.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FakeSlack } from '../test/support/fake-slack.js';
import { emitStartup } from './results.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 3);
const IDLE_MS = Number(process.env.BENCH_STARTUP_IDLE_MS ?? 10_000);
const TARGET_MS = 1_000;
const TARGET_RSS_MB = 130;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLOCK_TICKS = 100; // USER_HZ on Linux, the unit of /proc/<pid>/stat times

interface ProcessFigures {
  pid: number;
  command: string;
  rssMb: number;
  /** Of rssMb, pages mapped from files: mostly the node executable, the same pages in every node process. */
  fileMb: number;
}

interface Run {
  /** From the spawn of npm to the first 200 from /healthz. */
  healthzMs: number;
  /** From the start of the process that serves Slack to that 200. */
  fromBotMs: number;
  /** CPU time of every process in the tree up to that 200. */
  cpuMs: number;
  processes: ProcessFigures[];
}

interface ProcStat {
  pid: number;
  ppid: number;
  cpuTicks: number;
  startTicks: number;
}

function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      pid,
      ppid: Number(fields[1]),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
      startTicks: Number(fields[19]),
    };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** `root` and every process below it. */
function processTree(root: number): ProcStat[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => procStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
  const tree: ProcStat[] = [];
  const visit = (pid: number) => {
    const stat = all.find((s) => s.pid === pid);
    if (!stat) return;
    tree.push(stat);
    for (const child of all.filter((s) => s.ppid === pid)) visit(child.pid);
  };
  visit(root);
  return tree;
}

function describe(pid: number): ProcessFigures {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fileKb = Number(/RssFile:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((arg) => arg.replace(ROOT, ''))
    .join(' ');
  return {
    pid,
    command: command.length > 70 ? `${command.slice(0, 67)}...` : command,
    rssMb: rssKb / 1024,
    fileMb: fileKb / 1024,
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  // The whole group, as Ctrl-C does: before, a SIGTERM to npm alone never reached tsx's node.
  if (child.pid) process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the whole group is gone already
  }
}

async function startOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const port = await freePort();
  const adminPort = await freePort();
  const started = performance.now();
  const child = spawn('npm', args, {
    cwd: ROOT,
    env: { ...env, PORT: String(port), ADMIN_PORT: String(adminPort) },
    detached: true, // its own process group, so nothing outlives the run
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
  });
  try {
    const url = `http://127.0.0.1:${adminPort}/healthz`; // the admin port's probe
    while (!(await healthy(url))) {
      if (child.exitCode !== null) throw new Error(`npm ${args.join(' ')} exited:\n${log}`);
      if (performance.now() - started > 60_000) throw new Error(`no /healthz within 60 s:\n${log}`);
      await sleep(10);
    }
    const healthzMs = performance.now() - started;
    const tree = processTree(child.pid ?? 0);
    const root = tree[0];
    // The bot is the last node process started in the tree (npm, sh and tsx's wrapper come first).
    const bot = tree
      .filter(
        (stat) => describe(stat.pid).command.startsWith('node') || /\/node /.test(describe(stat.pid).command),
      )
      .sort((a, b) => b.startTicks - a.startTicks)[0];
    const botStartedAfterMs = root && bot ? ((bot.startTicks - root.startTicks) * 1_000) / CLOCK_TICKS : 0;
    const cpuMs = (tree.reduce((sum, stat) => sum + stat.cpuTicks, 0) * 1_000) / CLOCK_TICKS;
    await sleep(IDLE_MS);
    const processes = processTree(child.pid ?? 0).map((stat) => describe(stat.pid));
    return { healthzMs, fromBotMs: healthzMs - botStartedAfterMs, cpuMs, processes };
  } finally {
    await stop(child);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const seconds = (ms: number) => `${(ms / 1_000).toFixed(2)} s`;
const mb = (value: number) => `${value.toFixed(0)} MB`;
const verdict = (ok: boolean) => (ok ? 'meets' : 'misses');

function summarise(label: string, runs: Run[]): string[] {
  const total = (run: Run) => run.processes.reduce((sum, p) => sum + p.rssMb, 0);
  const healthz = median(runs.map((run) => run.healthzMs));
  const fromBot = median(runs.map((run) => run.fromBotMs));
  const rss = median(runs.map(total));
  const typical = runs.find((run) => total(run) === rss) ?? runs[0];
  // RSS counts the node executable's pages in each process that maps them; the memory the machine
  // gives up is closer to each process's own pages plus the largest file-backed share once.
  const once = (run: Run) =>
    run.processes.reduce((sum, p) => sum + p.rssMb - p.fileMb, 0) +
    Math.max(0, ...run.processes.map((p) => p.fileMb));
  return [
    `${label} (median of ${runs.length}; runs ${runs.map((run) => seconds(run.healthzMs)).join(', ')})`,
    `  to /healthz 200: ${seconds(healthz)} from \`npm start\` (target < 1 s: ${verdict(healthz < TARGET_MS)}), ` +
      `${seconds(fromBot)} from the bot's own process start; CPU of all its processes ${seconds(median(runs.map((run) => run.cpuMs)))}`,
    `  idle RSS after ${IDLE_MS / 1_000} s: ${mb(rss)} for everything it left running (target < ${TARGET_RSS_MB} MB: ${verdict(rss < TARGET_RSS_MB)}); ` +
      `${mb(median(runs.map(once)))} counting the pages mapped from files (the node executable) once`,
    ...(typical?.processes ?? []).map(
      (p) => `    ${mb(p.rssMb).padStart(6)}  (${mb(p.fileMb)} from files)  ${p.command}`,
    ),
  ];
}

export async function benchStartup(): Promise<{ lines: string[] }> {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  const slack = await FakeSlack.start();
  const data = mkdtempSync(join(tmpdir(), 'cngn-startup-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: 'bench-signing-secret',
    SLACK_API_URL: slack.apiUrl,
    STORE_URL: `sqlite://${join(data, 'cngn-desk.sqlite')}`,
    LOG_LEVEL: 'warn',
  };
  for (const name of Object.keys(env))
    if (name.startsWith('CNGN_') || name === 'PORT' || name === 'ADMIN_PORT') delete env[name];
  const oldStart = join(data, 'old-start.sh');
  writeFileSync(oldStart, "#!/bin/sh\nexec /bin/sh -c 'tsx src/main.ts'\n");
  chmodSync(oldStart, 0o755);
  try {
    const now: Run[] = [];
    const before: Run[] = [];
    // Interleaved, so both meet the same load on the machine.
    for (let i = 0; i < RUNS; i++) {
      now.push(await startOnce(['start'], env));
      before.push(await startOnce(['start', `--script-shell=${oldStart}`], env));
    }
    const rss = (runs: Run[]) =>
      median(runs.map((run) => run.processes.reduce((sum, p) => sum + p.rssMb, 0)));
    const typical =
      now.find((run) => run.processes.reduce((sum, p) => sum + p.rssMb, 0) === rss(now)) ?? now[0];
    emitStartup(median(now.map((run) => run.healthzMs)), typical?.processes ?? [], {
      healthzMs: median(before.map((run) => run.healthzMs)),
      rssMb: rss(before),
    });
    const [one, five] = loadavg();
    return {
      lines: [
        `machine: ${availableParallelism()} CPUs, load average ${one?.toFixed(1)} (1 min) ${five?.toFixed(1)} (5 min), node ${process.version}`,
        ...summarise('npm start: node scripts/start.mjs → dist/main.js (compiled, bundled)', now),
        ...summarise('before, same bot: npm start running tsx src/main.ts', before),
      ],
    };
  } finally {
    await slack.stop();
    rmSync(data, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { lines } = await benchStartup();
  for (const line of lines) console.log(line);
  process.exit(0);
}
