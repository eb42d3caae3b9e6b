// Run before every test file (vitest setupFiles). Files share a worker (isolate: false in the config),
// so a file that leaves fake timers, or a spy in place of a timer function, would stall every file
// after it in that worker. A file that ends with them replaced fails; one that starts with them
// replaced (a spy put back after the file before it ended) gets the real ones back and says so.
import { afterAll, vi } from 'vitest';

const TIMERS = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate'] as const;
type Timers = Pick<typeof globalThis, (typeof TIMERS)[number]>;

const holder = globalThis as typeof globalThis & { __realTimers?: Timers };
// The first file of a worker sees the real functions; later files find them kept here.
holder.__realTimers ??= Object.fromEntries(TIMERS.map((name) => [name, globalThis[name]])) as Timers;
const real = holder.__realTimers;
const replaced = () => TIMERS.filter((name) => globalThis[name] !== real[name]);

function putBack(): void {
  vi.useRealTimers();
  for (const name of TIMERS) Object.assign(globalThis, { [name]: real[name] });
}

const found = replaced();
if (found.length > 0) {
  putBack();
  console.warn(`a test file before this one in its worker left ${found.join(', ')} replaced; put back`);
}

afterAll(() => {
  const left = replaced();
  if (left.length === 0 && !vi.isFakeTimers()) return;
  putBack();
  throw new Error(`this file left ${left.join(', ') || 'fake timers'} replaced; restore them in afterEach`);
});
