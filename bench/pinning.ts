// CPU pinning for the benches that run the app under test in a child process: where `taskset` exists
// and there are two or more CPUs, the app gets the last CPU to itself and the load (with any fake
// service) runs on the others, so neither slows the other down.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface Pinning {
  /** Command prefix that runs a process on the app's CPU (empty when not pinned). */
  app: string[];
  /** Command prefix that runs a process on the other CPUs (empty when not pinned). */
  rest: string[];
  /** The other CPUs, as taskset's list (undefined when not pinned). */
  restCpus?: string;
  /** Every CPU, as taskset's list, to give a pinned process all of them back. */
  allCpus?: string;
  label: string;
}

export function pinning(): Pinning {
  const cpus = availableParallelism();
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
  } catch {
    return { app: [], rest: [], label: 'not pinned (no taskset)' };
  }
  if (cpus < 2) return { app: [], rest: [], label: 'not pinned (one CPU)' };
  const last = cpus - 1;
  const others = cpus === 2 ? '0' : `0-${last - 1}`;
  return {
    app: ['taskset', '-c', String(last)],
    rest: ['taskset', '-c', others],
    restCpus: others,
    allCpus: `0-${last}`,
    label: `app pinned to CPU ${last}, load on CPU ${others}`,
  };
}

/** Moves a running process onto the CPUs given (taskset's list). */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync('taskset', ['-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
}
