// The page's event stream: a store that cannot say the current version when the page connects is a
// line in the log, not an unhandled rejection, and the stream stays open for the changes to come.
import { createServer } from 'node:http';
import { expect } from 'vitest';
import { createStore } from '../../src/store/index.js';
import type { Interactions } from '../../src/workbench/interactions.js';
import { workbenchRoutes } from '../../src/workbench/routes.js';
import { Workspace } from '../../src/workbench/workspace.js';
import { capturedLog } from '../support/captured-log.js';
import { test } from '../support/fixtures.js';
import { StoreControls } from '../support/store-controls.js';

test('logs a version it could not read, without the credentials the driver quoted, and keeps the stream', async ({
  defer,
}) => {
  const controls = new StoreControls();
  const store = controls.wrap(await createStore('memory://'));
  defer(() => store.close());
  const restore = controls.failReads(
    'workbench:version',
    'lost redis://desk:s3cretpass@cache.internal:6379 mid-read',
  );
  const { logger, lines, entries } = capturedLog('info');
  const workspace = new Workspace(store);
  const routes = workbenchRoutes({
    workspace,
    interactions: {} as Interactions, // only the POST routes use it; none is called here
    logger,
    context: () => ({ environment: 'SANDBOX', sandbox: undefined }),
    assets: () => Promise.reject(new Error('no page in this test')),
  });
  const events = routes.find((route) => route.path.endsWith('/api/events'));
  if (!events) throw new Error('no event stream route');
  const server = createServer((req, res) => events.handler(req as never, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => {
    routes.endStreams();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  const stream = new AbortController();
  defer(() => stream.abort());
  const response = await fetch(`http://127.0.0.1:${port}/workbench/api/events`, { signal: stream.signal });
  expect(response.status).toBe(200);
  await expect.poll(() => entries.length).toBe(1);
  expect(entries[0]).toMatchObject({
    level: 'error',
    message: 'workbench event stream could not read the version',
    error: { message: 'lost redis://[redacted]@cache.internal:6379 mid-read' },
  });
  expect(lines.join('\n')).not.toContain('s3cretpass');
  // Still open: the next change reaches the page.
  restore();
  await workspace.post({ channel: 'C0TREASURY', user: 'U0ADA', text: 'after the failed read' });
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no stream body');
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toBe('data: {"version":1}\n\n');
  await reader.cancel();
});
