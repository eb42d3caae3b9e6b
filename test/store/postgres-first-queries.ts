// A process of its own opening a PostgreSQL store and sending a burst of queries at once, most of them
// the first on a new connection: node-postgres warns of a query sent on a connection still busy only
// once per process, so only a fresh process shows whether the store ever did.
//   argv: <STORE_URL> <prefix>
//   out:  one JSON line: { warnings, timeouts, connections, deprecationsObservable }: every process
//         warning, each query's statement_timeout as the server saw it, how many connections answered,
//         and whether a deprecation raised here reached the listener at all (--no-deprecation hides them)
import type pg from 'pg';
import { clearStore, createStore } from '../../src/store/index.js';

const PROBE = 'CNGN_DESK_DEPRECATION_PROBE';
const warnings: string[] = [];
let deprecationsObservable = false;
process.on('warning', (warning: Error & { code?: string }) => {
  if (warning.code === PROBE) deprecationsObservable = true;
  else warnings.push(`${warning.name}: ${warning.message}`);
});
process.emitWarning('a deprecation raised to see that deprecations are heard', {
  type: 'DeprecationWarning',
  code: PROBE,
});
const [url = '', prefix = 'cngn-desk'] = process.argv.slice(2);

const store = await createStore(url, { prefix });
let answers: Array<{ timeout: string; pid: number }>;
try {
  const pool = (store as unknown as { pool: pg.Pool }).pool;
  // As many at once as the pool holds connections: each new one takes its first query from here.
  const burst = Array.from({ length: pool.options.max ?? 10 }, () =>
    pool.query<{ timeout: string; pid: number }>(
      "SELECT current_setting('statement_timeout') AS timeout, pg_backend_pid() AS pid",
    ),
  );
  answers = (await Promise.all(burst)).flatMap((result) => result.rows);
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.set(`burst:${i}`, i)));
} finally {
  await clearStore(store);
  await store.close();
}
// A warning is emitted on the tick after it is raised.
await new Promise((resolve) => setImmediate(resolve));
process.stdout.write(
  `${JSON.stringify({
    warnings,
    timeouts: answers.map((answer) => answer.timeout),
    connections: new Set(answers.map((answer) => answer.pid)).size,
    deprecationsObservable,
  })}\n`,
);
