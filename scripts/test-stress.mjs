// `npm run test:stress`: the suite beside one busy loop per core, so a test that depends on the machine's
// speed (a bare sleep, a deadline a loaded machine misses) fails here rather than now and then in CI.
// Arguments go to vitest (`npm run test:stress -- test/webhooks` for some files). The loops are this
// script's own children and end with it.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const loops = Array.from({ length: availableParallelism() }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopLoops = () => {
  for (const loop of loops) loop.kill('SIGKILL');
};
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopLoops();
    process.exit(130);
  });
}
const vitest = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
vitest.on('exit', (code, signal) => {
  stopLoops();
  process.exit(code ?? (signal ? 1 : 0));
});
