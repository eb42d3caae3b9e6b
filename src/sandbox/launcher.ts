// `npm run sandbox` starts npm → sh → tsx → this process, and a SIGTERM (or SIGKILL) to npm reaches
// none of them: the sandbox would keep serving on its own. So the CLI watches the processes that
// launched it and stops when any of them is gone.
import { execFileSync } from 'node:child_process';

interface ProcessInfo {
  ppid: number;
  command: string;
}

function describe(pid: number): ProcessInfo | undefined {
  try {
    const line = execFileSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const match = /^(\d+)\s+(.*)$/.exec(line);
    return match ? { ppid: Number(match[1]), command: match[2] ?? '' } : undefined;
  } catch {
    return undefined; // no `ps` (Windows): the direct parent is still watched
  }
}

const isNpm = (command: string) => /^npm(\s|$)/.test(command) || /npm-cli\.js/.test(command);

/**
 * The processes whose end should end the sandbox: the direct parent, and when npm started us
 * (it sets npm_lifecycle_event), every process up to and including npm itself. Never further up:
 * a shell or terminal above npm is the user's business.
 */
function launcherPids(): number[] {
  const parent = process.ppid;
  if (!process.env.npm_lifecycle_event) return [parent];
  const chain: number[] = [];
  let pid = parent;
  for (let depth = 0; depth < 8 && pid > 1; depth++) {
    const found = describe(pid);
    if (!found) break;
    chain.push(pid);
    if (isNpm(found.command)) return chain;
    pid = found.ppid;
  }
  return [parent];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Call `onGone` once when a launcher exits (checked every `everyMs`); returns a stop function. */
export function watchLaunchers(onGone: () => void, everyMs = 500): () => void {
  const pids = launcherPids();
  const parent = process.ppid;
  const timer = setInterval(() => {
    // A changed ppid means our parent died and we were adopted, even if its pid was reused since.
    if (process.ppid !== parent || !pids.every(alive)) {
      clearInterval(timer);
      onGone();
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
