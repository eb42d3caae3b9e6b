// Loaded into the bot's process by the soak alone (`node --expose-gc --import <this file>`, forked with
// an IPC channel); nothing in src/ knows it. On each `soak:sample` message it answers with the
// process's memory and the event-loop delay since the last sample. The live heap is read after a full
// collection it forces; that collection's own pause is left out of the delay figures.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();
const MB = 1024 * 1024;
// The histogram holds the time between two of its timer's runs: the delay is what passes the period.
const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);

process.on('message', (message) => {
  if (message?.type !== 'soak:sample') return;
  const before = process.memoryUsage();
  const figures = {
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
  };
  globalThis.gc?.();
  const after = process.memoryUsage();
  // Compiled code is in the heap too, and grows as V8 compiles more functions that became hot.
  const code = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('code_'))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  // The timer the collection held up fires late and lands in the histogram: wait for it, then drop it.
  setTimeout(() => {
    delay.reset();
    process.send?.({
      type: 'soak:sample',
      rssMb: before.rss / MB,
      heapMb: after.heapUsed / MB,
      heapBeforeGcMb: before.heapUsed / MB,
      codeMb: code / MB,
      delay: figures,
      gc: Boolean(globalThis.gc),
    });
  }, 50);
});

// The soak ended without stopping the bot (it was killed): the bot stops too rather than linger.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
